"""Allocate a closed stage: one clearing price, each order's shares, a reproducible record.

The book is every current order marked ``valida`` at intake, in the order of receipt
(``recepcion``, ``storage.radicados``; a broker's declared time of entry is kept but decides
nothing): that order is the tie-break of the clearing's left-over lots (largest order
first, then received earlier; ``clearing``). The record keeps the stage's terms, the
mechanism, the price, a SHA-256 of the canonical book and of the canonical results;
recomputing it from the stored orders gives byte-identical results. A clearing that finds no
order at or above the minimum price declares the stage void (desierta) with that cause.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import polars as pl
from sqlalchemy import Connection, Engine, insert, select

from democratiza.money import pesos
from democratiza.stages.clearing import NO_ORDERS, clear, demand_curve
from democratiza.stages.lifecycle import StoredStage, advance_stage, declare_void, load_stage
from democratiza.stages.terms import StageError
from democratiza.storage import audit
from democratiza.storage.bulk import write_rows
from democratiza.storage.database import new_id, read_frame
from democratiza.storage.records import digest, verified
from democratiza.storage.schema import order_awards, orders, stage_allocations

BOOK_COLUMNS = ["radicado", "fecha_ingreso", "precio", "cantidad"]
RESULT_COLUMNS = [
    "radicado",
    "comisionista",
    "referencia",
    "tipo_identificacion",
    "numero_identificacion",
    "nombre",
    "tipo_persona",
    "nacionalidad",
    "fecha_ingreso",
    "precio",
    "cantidad",
    "decision",
    "motivo",
    "asignada",
]
ORDER = ["recepcion"]  # the order of receipt (``storage.radicados``)


@dataclass(frozen=True)
class StageAllocation:
    stage_code: str
    header: dict[str, object]
    results: pl.DataFrame  # RESULT_COLUMNS, in the order of receipt
    curve: list[tuple[int, int]]  # (price, shares asked at or above), high to low


DATETIMES = "%Y-%m-%dT%H:%M:%S%.f"  # times of entry in the hashed CSV: to the microsecond


def current_orders(conn: Connection, stage: StoredStage) -> pl.DataFrame:
    """The stage's current version of every order (withdrawn ones included, as such)."""
    text, whole = pl.String(), pl.Int64()
    schema: dict[str, pl.DataType] = {"id": whole}
    schema.update({c: text for c in RESULT_COLUMNS if c != "asignada"})
    schema.update({"fecha_ingreso": pl.Datetime("us"), "precio": whole, "cantidad": whole})
    schema["recepcion"] = whole
    statement = select(*(orders.c[c] for c in schema)).where(
        orders.c.etapa_id == stage.id, orders.c.vigente
    )
    frame = read_frame(conn, statement, schema)
    return frame.sort(ORDER)


def compute(stage: StoredStage, book: pl.DataFrame, cutoff: int | None) -> StageAllocation:
    """Pure: the allocation of this book under this stage's terms (no database)."""
    terms = stage.terms
    if terms.mechanism == "construccion_libro" and cutoff is None:
        raise StageError(
            "En construcción de libro el vendedor fija el precio de corte después de ver el "
            "libro (democratiza etapa libro): indique --precio-corte."
        )
    if terms.mechanism == "subasta_holandesa" and cutoff is not None:
        raise StageError("En subasta holandesa el precio sale del libro; no se fija un corte.")
    if cutoff is not None and cutoff < stage.minimum_price:
        raise StageError(
            f"El precio de corte {pesos(cutoff)} es inferior al precio mínimo "
            f"{pesos(stage.minimum_price)}."
        )
    valid = book.filter(pl.col("decision") == "valida")
    prices = valid["precio"].to_numpy().astype(np.int64)
    quantities = valid["cantidad"].to_numpy().astype(np.int64)
    entry = np.arange(valid.height, dtype=np.int64)  # the book is in the order of receipt
    result = clear(
        prices,
        quantities,
        entry,
        stage.shares,
        stage.minimum_price,
        terms.lot,
        terms.mechanism,
        cutoff,
    )
    assigned = valid.select("radicado").with_columns(pl.Series("asignada", result.allocations))
    results = (
        book.join(assigned, on="radicado", how="left", maintain_order="left")
        .with_columns(pl.col("asignada").fill_null(0))
        .select(RESULT_COLUMNS)
    )
    header: dict[str, object] = {
        "etapa": stage.code,
        "numero": stage.number,
        "nombre": stage.name,
        "primera_etapa": stage.first.code,
        "programa": stage.program.id,
        "version_programa": stage.program.version,
        "terminos": json.loads(terms.model_dump_json(by_alias=True)),
        "mecanismo": terms.mechanism,
        "acciones_ofrecidas": stage.shares,
        "precio_minimo": stage.minimum_price,
        "precio_corte": cutoff,
        "lote": terms.lot,
        "orden": "orden de recepción (radicado); sobrantes al pedido mayor, luego al recibido "
        "antes",
        "ordenes_validas": valid.height,
        "demanda_valida": int(quantities.sum()),
        "precio": result.price,
        "asignadas": result.total,
        "desierta": result.void,
        "causa": _cause(result.reason, book.height - valid.height),
        "notas": list(result.notes),
        "huella_entradas": digest(valid.select(BOOK_COLUMNS), DATETIMES),
        "huella_resultado": digest(results, DATETIMES),
    }
    return StageAllocation(stage.code, header, results, demand_curve(prices, quantities))


def _cause(reason: str | None, refused: int) -> str | None:
    """Why the stage is void; an empty book because every order was refused says so."""
    if reason == NO_ORDERS and refused:
        return (
            f"no hay órdenes válidas: las {refused} recibidas se rechazaron al radicarlas "
            "(por debajo del precio mínimo o de la orden mínima, fuera del plazo o sin "
            "capacidad legal declarada)"
        )
    return reason


def allocate_stage(
    engine: Engine, stage_code: str, who: str, why: str, cutoff: int | None = None
) -> StageAllocation:
    """Allocate a closed stage once, store the record, and move it to adjudicada (or desierta)."""
    with engine.begin() as conn:
        stage = load_stage(conn, stage_code)
        if stage.state != "cerrada":
            raise StageError(f"La etapa '{stage_code}' está {stage.state}; se adjudica cerrada.")
        book = current_orders(conn, stage)
        done = compute(stage, book, cutoff)
        record_id = new_id(
            conn.execute(
                insert(stage_allocations).values(
                    etapa_id=stage.id,
                    mecanismo=stage.terms.mechanism,
                    precio=done.header["precio"],
                    desierta=bool(done.header["desierta"]),
                    huella_entradas=done.header["huella_entradas"],
                    huella_resultado=done.header["huella_resultado"],
                    registro=json.dumps(done.header, sort_keys=True, ensure_ascii=False),
                    creada_en=datetime.now(),
                    quien=who,
                )
            )
        )
        awarded = book.select(pl.col("id").alias("orden_id"), "radicado").join(
            done.results.select("radicado", "asignada"), on="radicado"
        )
        write_rows(
            conn,
            order_awards,
            awarded.filter(pl.col("asignada") > 0).select(
                pl.lit(record_id).alias("adjudicacion_id"), "orden_id", "asignada"
            ),
        )
        audit.append(
            conn,
            who,
            "etapa.adjudicar",
            f"etapas/{stage.code}/adjudicacion/{record_id}",
            None,
            {
                k: done.header[k]
                for k in ("precio", "asignadas", "desierta", "huella_entradas", "huella_resultado")
            },
        )
        if done.header["desierta"]:
            declare_void(conn, stage, who, f"{why}: {done.header['causa']}")
        else:
            advance_stage(conn, stage, "adjudicada", who, why)
    return done


def stored_allocation(engine: Engine, stage_code: str) -> StageAllocation:
    """The stored record, recomputed from the stored orders and checked against its hashes."""
    with engine.connect() as conn:
        stage = load_stage(conn, stage_code)
        header, again = verified(
            conn,
            stage_allocations,
            ("etapa_id", stage.id),
            lambda stored: compute(stage, current_orders(conn, stage), stored["precio_corte"]),
            (
                StageError(f"La etapa '{stage_code}' no se ha adjudicado."),
                StageError(
                    "La adjudicación recalculada de la etapa no coincide con la registrada."
                ),
            ),
        )
    return StageAllocation(stage_code, header, again.results, again.curve)
