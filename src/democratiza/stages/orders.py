"""Broker order batches for a stage: the same guarantees as acceptances (``filing.batches``).

- The file is read and typed by the shared intake code; a file with any bad cell is
  refused whole with its row-by-row report, and nothing is written.
- Each order is checked against the stage's rules (``order_checks``) at intake: the broker
  learns at once which orders are refused and why.
- (stage, broker, broker batch id) is unique: a batch sent again, or by two processes at
  once, is stored once, and the second send is told so.
- An order whose broker reference already has a current version is a correction: same
  radicado, next version; the previous version stays. Withdrawal keeps every version.
- Only while the stage is open.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import polars as pl
from sqlalchemy import Connection, Engine, insert, select

from democratiza.stages.lifecycle import StoredStage, load_stage
from democratiza.stages.order_checks import check_orders
from democratiza.stages.terms import StageError
from democratiza.storage import audit
from democratiza.storage.bulk import write_rows, written_columns
from democratiza.storage.database import new_id
from democratiza.storage.radicados import batch_prefix, radicados, receipts, take_batch_numbers
from democratiza.storage.receipts import look_up, previous_batch, store_once
from democratiza.storage.schema import order_batches, orders
from democratiza.storage.versions import retire, withdraw, withdrawn_radicados
from democratiza.tables.brokers import read_broker_file
from democratiza.tables.orders import ORDERS
from democratiza.words import count, orders_filed

DECISION_COLUMNS = ["radicado", "referencia", "decision", "motivo"]


@dataclass(frozen=True)
class OrderBatchResult:
    batch_id: int  # the database's id: audit log and office only, never shown to a broker
    number: int  # the broker's own count of its batches in the stage: what a broker is shown
    created: bool  # False when the same batch had already been received
    rows: int
    decisions: pl.DataFrame  # DECISION_COLUMNS
    message: str


def _received(
    conn: Connection, stage: StoredStage, broker: str, batch: str, digest: str, path: Path
) -> OrderBatchResult | None:
    row = previous_batch(conn, order_batches, {"etapa_id": stage.id}, broker, batch, digest, path)
    if row is None:
        return None
    decisions = pl.DataFrame(
        conn.execute(
            select(*(orders.c[c] for c in DECISION_COLUMNS))
            .where(orders.c.lote_id == row.id)
            .order_by(orders.c.radicado)
        )
        .mappings()
        .all(),
        schema={c: pl.String() for c in DECISION_COLUMNS},
    )
    return OrderBatchResult(
        row.id,
        row.numero,
        False,
        row.filas,
        decisions,
        f"El lote '{batch}' ya se había recibido; no se creó nada nuevo.",
    )


def import_orders(
    engine: Engine,
    stage_code: str,
    path: Path,
    broker: str,
    batch: str,
    who: str,
    before_commit: Callable[[], None] | None = None,
) -> OrderBatchResult:
    """Receive one broker batch of orders. ``before_commit`` lets tests interrupt it."""
    stage, digest, done = look_up(
        engine,
        path,
        lambda conn: load_stage(conn, stage_code),
        lambda conn, stage, digest: _received(conn, stage, broker, batch, digest, path),
    )
    if done:
        return done
    if stage.state != "abierta":
        raise StageError(f"La etapa '{stage_code}' está {stage.state}; no recibe órdenes.")
    checked = check_orders(stage, read_broker_file(path, ORDERS, broker, datetime.now()))
    return store_once(
        engine,
        lambda conn: _store(conn, stage, checked, path, broker, batch, digest, who, before_commit),
        lambda conn: _received(conn, stage, broker, batch, digest, path),
    )


def _store(
    conn: Connection,
    stage: StoredStage,
    checked: pl.DataFrame,
    path: Path,
    broker: str,
    batch: str,
    digest: str,
    who: str,
    before_commit: Callable[[], None] | None,
) -> OrderBatchResult:
    scope = {"etapa_id": stage.id}
    with conn.engine.begin() as own:  # its own short transaction, as for acceptances
        tag, number = take_batch_numbers(own, f"etapa:{stage.id}", broker, 1, order_batches, scope)
    batch_id = new_id(
        conn.execute(
            insert(order_batches).values(
                numero=number,
                etapa_id=stage.id,
                comisionista=broker,
                lote=batch,
                archivo=path.name,
                huella=digest,
                filas=checked.height,
                recibido_en=datetime.now(),
                quien=who,
            )
        )
    )
    current = _current(conn, stage, broker)
    corrected = current.filter(pl.col("referencia").is_in(checked["referencia"].implode()))
    retire(conn, orders, corrected["id"].to_list())
    size = [checked.height]
    rows = (
        checked.drop("fila")
        .join(corrected.drop("id"), on="referencia", how="left", maintain_order="left")
        .with_columns(
            pl.lit(stage.id).alias("etapa_id"),
            pl.lit(batch_id).alias("lote_id"),
            pl.coalesce(
                "radicado_previo", pl.lit(radicados([batch_prefix(tag, number, order=True)], size))
            ).alias("radicado"),
            pl.coalesce("recepcion_previa", pl.lit(receipts([batch_id], size))).alias("recepcion"),
            (pl.col("version_previa").fill_null(0) + 1).alias("version"),
            pl.lit(True).alias("vigente"),
            pl.when(pl.col("version_previa").is_null())
            .then(pl.lit("radicada"))
            .otherwise(pl.lit("corregida"))
            .alias("estado"),
            pl.col(pl.Enum).cast(pl.String),
        )
        .select(written_columns(orders))
    )
    write_rows(conn, orders, rows)
    valid = rows.filter(pl.col("decision") == "valida").height
    audit.append(
        conn,
        who,
        "ordenes.lote",
        f"etapas/{stage.code}/lotes/{broker}/{batch}",
        None,
        {"archivo": path.name, "huella": digest, "filas": rows.height, "validas": valid},
    )
    if before_commit:
        before_commit()
    refused = rows.height - valid
    return OrderBatchResult(
        batch_id,
        number,
        True,
        rows.height,
        rows.select(DECISION_COLUMNS),
        f"Lote '{batch}' recibido: {orders_filed(rows.height)} "
        f"({count(valid, 'válida', 'válidas')}, {count(refused, 'rechazada', 'rechazadas')}).",
    )


def _current(conn: Connection, stage: StoredStage, broker: str) -> pl.DataFrame:
    rows = conn.execute(
        select(
            orders.c.id,
            orders.c.referencia,
            orders.c.radicado,
            orders.c.recepcion,
            orders.c.version,
        ).where(orders.c.etapa_id == stage.id, orders.c.comisionista == broker, orders.c.vigente)
    ).all()
    schema = {
        "id": pl.Int64(),
        "referencia": pl.String(),
        "radicado_previo": pl.String(),
        "recepcion_previa": pl.Int64(),
        "version_previa": pl.Int64(),
    }
    return pl.DataFrame([tuple(r) for r in rows], schema=schema, orient="row")


def withdrawn_orders(conn: Connection, stage: StoredStage) -> list[str]:
    """The radicados of the stage's orders their brokers withdrew (kept as rejected)."""
    return withdrawn_radicados(conn, orders, {"etapa_id": stage.id})


def withdraw_order(engine: Engine, stage_code: str, radicado: str, who: str, why: str) -> None:
    """Withdraw an order while the stage is open, keeping every version."""
    with engine.begin() as conn:
        stage = load_stage(conn, stage_code)
        if stage.state != "abierta":
            raise StageError("Una orden solo se puede retirar mientras la etapa está abierta.")
        entry = ("orden.retirar", f"etapas/{stage.code}/ordenes/{radicado}")
        if not withdraw(
            conn,
            orders,
            {"etapa_id": stage.id},
            radicado,
            who,
            why,
            entry,
            decision="rechazada",
            motivo=f"retirada: {why} ({who})",
        ):
            raise StageError(f"No hay una orden vigente con radicado {radicado}.")
