"""Broker batches into the database: all or nothing, once only, evaluated at intake.

- A batch is parsed and evaluated completely before anything is written; a file with any
  bad row is refused whole with its row-by-row report.
- The batch and its acceptances are written in one transaction: a crash leaves nothing.
- (offer, broker, broker batch id) is unique in the database: a batch sent again, or by two
  processes at once, is stored once; the second send is told so.
- A row whose broker reference already has a current acceptance is a correction: it keeps
  the radicado, gets the next version, and the previous version stays as history.
- Radicados are ``<batch>-<row>``, so concurrent batches never compete for numbers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

import polars as pl
from sqlalchemy import Connection, Engine, insert, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError

from democratiza.intake.errors import InputError, InputRejected
from democratiza.intake.parse import parse
from democratiza.intake.readers import read_table
from democratiza.intake.receipts import previous_batch
from democratiza.offers.lifecycle import OfferError, StoredOffer, load_offer
from democratiza.programs.parameters import OfferParameterError
from democratiza.rules.engine import CompiledProgram
from democratiza.storage import audit
from democratiza.storage.bulk import BulkWriteRefused, write_rows
from democratiza.storage.database import new_id
from democratiza.storage.schema import acceptances, batches

LOOKUP_CHUNK = 5_000  # ids per UPDATE, below SQLite's limit of bound parameters


@dataclass(frozen=True)
class BatchResult:
    batch_id: int
    created: bool  # False when the same batch had already been received
    rows: int
    decisions: pl.DataFrame  # radicado, referencia, decision, cantidad_permitida
    message: str
    # For a batch received now: what the engine decided, to explain row by row to the broker.
    evaluated: tuple[CompiledProgram, pl.DataFrame, pl.DataFrame] | None = None


def file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _already_received(
    conn: Connection, offer_id: int, broker: str, batch: str, digest: str, path: Path
) -> BatchResult | None:
    row = previous_batch(conn, batches, {"oferta_id": offer_id}, broker, batch, digest, path)
    if row is None:
        return None
    decisions = pl.DataFrame(
        conn.execute(
            select(
                acceptances.c.radicado,
                acceptances.c.referencia,
                acceptances.c.decision,
                acceptances.c.cantidad_permitida,
            )
            .where(acceptances.c.lote_id == row.id)
            .order_by(acceptances.c.radicado)
        )
        .mappings()
        .all()
    )
    return BatchResult(
        row.id,
        False,
        row.filas,
        decisions,
        f"El lote '{batch}' ya se había recibido; no se creó nada nuevo.",
    )


def import_batch(
    engine: Engine,
    offer_code: str,
    path: Path,
    broker: str,
    batch: str,
    who: str,
    before_commit: Callable[[], None] | None = None,
) -> BatchResult:
    """Receive one broker batch. ``before_commit`` lets tests interrupt a transaction."""
    digest = file_hash(path)
    with engine.connect() as conn:
        stored = load_offer(conn, offer_code)
        done = _already_received(conn, stored.id, broker, batch, digest, path)
        if done:
            return done
    if stored.state != "abierta":
        raise OfferError(f"La oferta '{offer_code}' está {stored.state}; no recibe aceptaciones.")
    frame = parse(read_table(path))
    foreign = frame.filter(pl.col("comisionista") != broker)
    if foreign.height:
        raise InputRejected(
            [
                InputError(
                    str(path),
                    row,
                    "comisionista",
                    f"la fila es de otro comisionista; el lote es de {broker}",
                )
                for row in foreign["fila"]
            ]
        )
    compiled = CompiledProgram(stored.offer)
    try:
        results = compiled.evaluate(frame)
    except OfferParameterError as exc:
        raise OfferError("\n".join(exc.messages)) from None
    try:
        with engine.begin() as conn:
            stored_batch = _store(
                conn, stored, frame, results, path, broker, batch, digest, who, before_commit
            )
        return replace(stored_batch, evaluated=(compiled, results, frame))
    except IntegrityError as exc:
        # Another process stored the same batch between our check and our insert.
        with engine.connect() as conn:
            done = _already_received(conn, stored.id, broker, batch, digest, path)
        if done is None:
            raise StorageError(_refused(exc)) from None
        return done
    except DBAPIError as exc:
        raise StorageError(_refused(exc)) from None


class StorageError(Exception):
    """The database refused the write; the transaction was rolled back whole."""


def _refused(exc: DBAPIError) -> str:
    reason = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
    return refused_message(reason)


def refused_message(reason: str) -> str:
    return (
        f"La base de datos rechazó la escritura del lote ({reason}); no se guardó nada del "
        "lote y la oferta quedó como estaba."
    )


def _store(
    conn: Connection,
    stored: StoredOffer,
    frame: pl.DataFrame,
    results: pl.DataFrame,
    path: Path,
    broker: str,
    batch: str,
    digest: str,
    who: str,
    before_commit: Callable[[], None] | None,
) -> BatchResult:
    now = datetime.now()
    batch_id = new_id(
        conn.execute(
            insert(batches).values(
                oferta_id=stored.id,
                comisionista=broker,
                lote=batch,
                archivo=path.name,
                huella=digest,
                filas=frame.height,
                recibido_en=now,
                quien=who,
            )
        )
    )
    current = _current_versions(conn, stored.id, broker, frame["referencia"].to_list())
    for start in range(0, current.height, LOOKUP_CHUNK):
        ids = current["id"].slice(start, LOOKUP_CHUNK).to_list()
        conn.execute(update(acceptances).where(acceptances.c.id.in_(ids)).values(vigente=False))
    number = pl.int_range(1, pl.len() + 1).cast(pl.String).str.zfill(6)
    decided = results.select(
        "cantidad_permitida",
        "limite_minimo",
        pl.col("decision").cast(pl.String),
        "regla_limitante",
        pl.col("causas").cast(pl.Int64),
    )
    rows = (
        pl.concat([frame.drop("fila"), decided], how="horizontal")
        .join(current.drop("id"), on="referencia", how="left", maintain_order="left")
        .with_columns(
            pl.lit(stored.id).alias("oferta_id"),
            pl.lit(batch_id).alias("lote_id"),
            pl.coalesce("radicado_previo", pl.lit(f"{batch_id:06d}-") + number).alias("radicado"),
            (pl.col("version_previa").fill_null(0) + 1).alias("version"),
            pl.lit(True).alias("vigente"),
            pl.when(pl.col("version_previa").is_null())
            .then(pl.lit("radicada"))
            .otherwise(pl.lit("corregida"))
            .alias("estado"),
            pl.lit(None, dtype=pl.String).alias("motivo"),
            pl.col(pl.Enum).cast(pl.String),
        )
        .select([c.name for c in acceptances.columns if c.name != "id"])
    )
    try:
        write_rows(conn, acceptances, rows)
    except BulkWriteRefused as exc:
        raise StorageError(refused_message(str(exc))) from None
    audit.append(
        conn,
        who,
        "lote.recibir",
        f"lotes/{batch_id}",
        None,
        {
            "oferta": stored.code,
            "comisionista": broker,
            "lote": batch,
            "huella": digest,
            "filas": frame.height,
            "correcciones": current.height,
        },
    )
    if before_commit:
        before_commit()
    return BatchResult(
        batch_id,
        True,
        frame.height,
        rows.select("radicado", "referencia", "decision", "cantidad_permitida"),
        f"Lote '{batch}' recibido: {frame.height} aceptaciones radicadas.",
    )


def _current_versions(
    conn: Connection, offer_id: int, broker: str, references: list[str]
) -> pl.DataFrame:
    """The broker's current acceptances with these references (the rows being corrected).

    One range scan of the broker's current acceptances (index on offer, broker, reference),
    matched in memory: cheaper than sending every reference of a large batch to the server.
    """
    rows = conn.execute(
        select(
            acceptances.c.id,
            acceptances.c.referencia,
            acceptances.c.radicado,
            acceptances.c.version,
        ).where(
            acceptances.c.oferta_id == offer_id,
            acceptances.c.comisionista == broker,
            acceptances.c.vigente,
        )
    ).all()
    schema = {
        "id": pl.Int64(),
        "referencia": pl.String(),
        "radicado_previo": pl.String(),
        "version_previa": pl.Int64(),
    }
    current = pl.DataFrame([tuple(r) for r in rows], schema=schema, orient="row")
    return current.filter(pl.col("referencia").is_in(references))


def withdraw(engine: Engine, offer_code: str, radicado: str, who: str, why: str) -> None:
    """Withdraw an acceptance before the window closes, keeping every version."""
    with engine.begin() as conn:
        stored = load_offer(conn, offer_code)
        if stored.state != "abierta":
            raise OfferError(
                "Una aceptación solo se puede retirar mientras la oferta está abierta."
            )
        row = (
            conn.execute(
                select(acceptances).where(
                    acceptances.c.oferta_id == stored.id,
                    acceptances.c.radicado == radicado,
                    acceptances.c.vigente,
                )
            )
            .mappings()
            .first()
        )
        if row is None:
            raise OfferError(f"No hay una aceptación vigente con radicado {radicado}.")
        conn.execute(update(acceptances).where(acceptances.c.id == row["id"]).values(vigente=False))
        new = {k: v for k, v in row.items() if k != "id"}
        new.update(
            version=row["version"] + 1,
            estado="retirada",
            vigente=True,
            cantidad_permitida=0,
            decision="rechazada",
            motivo=f"{why} ({who})",
        )
        conn.execute(insert(acceptances).values(**new))
        audit.append(
            conn,
            who,
            "aceptacion.retirar",
            f"ofertas/{stored.id}/aceptaciones/{radicado}",
            {"version": row["version"], "estado": row["estado"]},
            {"version": new["version"], "estado": "retirada", "motivo": why},
        )
