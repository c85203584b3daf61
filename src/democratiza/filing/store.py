"""Decided batches written in the caller's transaction: batch rows, acceptances, audit.

What ``filing.batches`` (a file) and ``filing.singles`` (single acceptances filed at the same
moment) both store once the engine has decided their rows: each batch its ``lotes`` row, its
broker's number and radicados (``storage.radicados``), its acceptances (a correction keeps its
radicado and order of receipt, and becomes the next version) and its audit entry, all in one
bulk write per table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
import polars as pl
from sqlalchemy import Connection, insert, select

from democratiza.offers.lifecycle import StoredOffer
from democratiza.rules.engine import CompiledProgram
from democratiza.rules.explain import Explanation
from democratiza.rules.person import stored_general
from democratiza.storage import audit
from democratiza.storage.bulk import (
    BulkWriteRefused,
    Written,
    insert_with_new_ids,
    rows_with_keys,
    write_rows,
    written_columns,
)
from democratiza.storage.database import new_id
from democratiza.storage.radicados import (
    batch_prefix,
    radicados,
    receipts,
    take_many_batch_numbers,
)
from democratiza.storage.receipts import StorageError, refused_message
from democratiza.storage.schema import acceptances, batches
from democratiza.storage.versions import retire
from democratiza.words import filed

BATCH_ROW = pl.Schema(
    {
        "oferta_id": pl.Int64(),
        "comisionista": pl.String(),
        "lote": pl.String(),
        "archivo": pl.String(),
        "huella": pl.String(),
        "filas": pl.Int64(),
        "recibido_en": pl.Datetime("us"),
        "quien": pl.String(),
        "numero": pl.Int64(),
    }
)
FEW_KEYS = 1_000  # up to this many references are looked up without asking first


@dataclass(frozen=True)
class BatchResult:
    batch_id: int  # the database's id: audit log and office only, never shown to a broker
    number: int  # the broker's own count of its batches in the offer: what a broker is shown
    created: bool  # False when the same batch had already been received
    rows: int
    decisions: pl.DataFrame  # radicado, referencia, decision, cantidad_permitida
    message: str
    # For a batch received now: what the engine decided, to explain row by row to the broker.
    evaluated: tuple[CompiledProgram, pl.DataFrame, pl.DataFrame] | None = None
    # Already rendered, per row (None for an accepted row), when the rows were explained
    # together with others (single acceptances filed at the same moment).
    explanations: tuple[Explanation | None, ...] | None = None


@dataclass(frozen=True)
class Decided:
    """One batch ready to be stored: its rows typed and the engine's decision for each."""

    broker: str
    batch: str  # the broker's own batch id
    file_name: str
    digest: str  # SHA-256 of the batch as sent: a resend with the same bytes is recognised
    who: str  # who filed it (audit log)
    frame: pl.DataFrame  # typed rows (``tables.parse``), all of this broker
    results: pl.DataFrame  # ``CompiledProgram.evaluate(frame)``
    # The web request that sent it (its audit entry's ``solicitud``): by default the one
    # being answered where the batch was decided.
    request: str | None = field(default_factory=audit.request_now)


# What a broker is answered for each row of a batch (its ``-radicados.csv``).
ANSWER_COLUMNS = ["radicado", "referencia", "decision", "cantidad_permitida"]


def store_batches(
    conn: Connection,
    stored: StoredOffer,
    decided: Sequence[Decided],
    before_commit: Callable[[], None] | None = None,
    numbers_apart: bool = True,
    progress: Written | None = None,
) -> list[BatchResult]:
    """Write batches in the caller's transaction: each its ``lotes`` row, rows and audit entry.

    Why several at once: single acceptances filed at the same moment are stored together
    (one transaction, one bulk write) while each stays its own batch, with its own id,
    radicados and audit entry, exactly as if it had been stored alone. The caller commits;
    if anything fails, nothing of any of them is written.

    ``numbers_apart``: the batch numbers are taken in a short transaction of their own
    (``_batch_numbers``); a group of single acceptances, whose whole write takes
    milliseconds, takes them in the caller's transaction instead (``False``), which saves
    the group a commit of its own.

    ``progress``: told the acceptances written so far, of all the batches' rows, after each
    piece of their bulk write (``storage.bulk.write_rows``), the longest step of a large
    batch's storing; the total once all are stored.
    """
    now = datetime.now()
    numbers = _batch_numbers(conn, stored.id, [d.broker for d in decided], numbers_apart)
    entries = [
        {
            "oferta_id": stored.id,
            "comisionista": d.broker,
            "lote": d.batch,
            "archivo": d.file_name,
            "huella": d.digest,
            "filas": d.frame.height,
            "recibido_en": now,
            "quien": d.who,
            "numero": number,
        }
        for d, (_, number) in zip(decided, numbers, strict=True)
    ]
    if len(entries) == 1:
        # A plain INSERT: a batch id taken meanwhile by another process must come back as
        # IntegrityError, which ``import_batch`` and ``_store_alone`` answer as a resend.
        batch_ids = [new_id(conn.execute(insert(batches).values(**entries[0])))]
    else:
        try:
            batch_ids = insert_with_new_ids(conn, batches, entries, BATCH_ROW)
        except BulkWriteRefused as exc:  # say, another process took one of the batch ids
            raise StorageError(refused_message(str(exc))) from None
    sizes = [d.frame.height for d in decided]
    frame = pl.concat([d.frame for d in decided]) if len(decided) > 1 else decided[0].frame
    results = pl.concat([d.results for d in decided]) if len(decided) > 1 else decided[0].results
    current = _current_versions(conn, stored.id, frame.select("comisionista", "referencia"))
    retire(conn, acceptances, current["id"].to_list())
    batch_of_row = pl.Series("lote_id", np.repeat(batch_ids, sizes), dtype=pl.Int64)
    new_radicados = radicados([batch_prefix(tag, n) for tag, n in numbers], sizes)
    decided_columns = results.select(
        "cantidad_permitida",
        "limite_minimo",
        pl.col("decision").cast(pl.String),
        "regla_limitante",
        pl.col("causas").cast(pl.Int64),
        "regla_limite",
        *stored_general(stored.program),
        # The price each was evaluated at and will pay: the one in force on receipt.
        pl.lit(stored.recorded_price, dtype=pl.Int64).alias("precio"),
    )
    rows = (
        pl.concat([frame.drop("fila"), decided_columns], how="horizontal")
        .join(
            current.drop("id"),
            on=["comisionista", "referencia"],
            how="left",
            maintain_order="left",
        )
        .with_columns(
            pl.lit(stored.id).alias("oferta_id"),
            batch_of_row,
            pl.coalesce("radicado_previo", pl.lit(new_radicados)).alias("radicado"),
            pl.coalesce("recepcion_previa", pl.lit(receipts(batch_ids, sizes))).alias("recepcion"),
            (pl.col("version_previa").fill_null(0) + 1).alias("version"),
            pl.lit(True).alias("vigente"),
            pl.when(pl.col("version_previa").is_null())
            .then(pl.lit("radicada"))
            .otherwise(pl.lit("corregida"))
            .alias("estado"),
            pl.lit(None, dtype=pl.String).alias("motivo"),
            pl.col(pl.Enum).cast(pl.String),
        )
        .select(written_columns(acceptances))
    )
    try:
        write_rows(conn, acceptances, rows, progress)
    except BulkWriteRefused as exc:
        raise StorageError(refused_message(str(exc))) from None
    corrected = rows.filter(pl.col("version") > 1)["lote_id"].to_list()
    audit_entries = [
        audit.Change(
            d.who,
            "lote.recibir",
            f"lotes/{batch_id}",
            None,
            {
                "oferta": stored.code,
                "comisionista": d.broker,
                "lote": d.batch,
                "huella": d.digest,
                "filas": size,
                "correcciones": corrected.count(batch_id),
            },
            d.request,
        )
        for d, batch_id, size in zip(decided, batch_ids, sizes, strict=True)
    ]
    try:
        audit.append_many(conn, audit_entries)
    except BulkWriteRefused as exc:
        raise StorageError(refused_message(str(exc))) from None
    answered = rows.select(ANSWER_COLUMNS)
    answers = []
    offset = 0
    for d, batch_id, (_, number), size in zip(decided, batch_ids, numbers, sizes, strict=True):
        answers.append(
            BatchResult(
                batch_id,
                number,
                True,
                size,
                answered.slice(offset, size),
                f"Lote '{d.batch}' recibido: {filed(size)}.",
            )
        )
        offset += size
    if before_commit:
        before_commit()
    return answers


CURRENT_SCHEMA = pl.Schema(
    {
        "id": pl.Int64(),
        "comisionista": pl.String(),
        "referencia": pl.String(),
        "radicado_previo": pl.String(),
        "recepcion_previa": pl.Int64(),
        "version_previa": pl.Int64(),
    }
)


def _batch_numbers(
    conn: Connection, offer_id: int, brokers: Sequence[str], apart: bool = True
) -> list[tuple[str, int]]:
    """Each batch's broker tag and number, in the batches' order (``storage.radicados``).

    Taken in a short transaction of their own, before the caller's writes: a broker's counter
    is then locked for milliseconds, not for the whole of a large batch's write, which would
    hold every single acceptance grouped with one of that broker's. A batch refused after
    leaves a gap in its broker's own numbers, which tells nobody anything.

    Not ``apart``: in the caller's transaction, for a write that is itself short (a group of
    single acceptances): the counters are then locked for that write's milliseconds, and the
    group is spared a commit of its own (a round trip and a flush of the database's log).
    """
    scope, counts, where = f"oferta:{offer_id}", Counter(brokers), {"oferta_id": offer_id}
    if apart:
        with conn.engine.begin() as own:
            first = take_many_batch_numbers(own, scope, counts, batches, where)
    else:
        first = take_many_batch_numbers(conn, scope, counts, batches, where)
    numbers = []
    taken: Counter[str] = Counter()
    for broker in brokers:
        tag, start = first[broker]
        numbers.append((tag, start + taken[broker]))
        taken[broker] += 1
    return numbers


def _current_versions(conn: Connection, offer_id: int, keys: pl.DataFrame) -> pl.DataFrame:
    """The current acceptances with these (broker, reference) keys: the rows being corrected.

    The server looks the keys up by the index on (offer, broker, reference) and sends back
    only the acceptances being corrected. Why not read the broker's current acceptances
    and match them here: a broker that sends batch after batch then had all of its earlier
    rows read again with every new batch (a tenth of a second per 100.000). A large batch
    first asks whether its brokers have any current acceptance at all (one probe of the
    index): for a broker's first batch, the usual case, there is nothing to look up.
    """
    if keys.height > FEW_KEYS:
        brokers = keys["comisionista"].unique().to_list()
        anything = conn.execute(
            select(acceptances.c.id)
            .where(
                acceptances.c.oferta_id == offer_id,
                acceptances.c.comisionista.in_(brokers),
                acceptances.c.vigente,
            )
            .limit(1)
        ).first()
        if anything is None:
            return pl.DataFrame(schema=CURRENT_SCHEMA)
    rows = rows_with_keys(
        conn,
        acceptances,
        keys.unique(maintain_order=True),
        ["id", "comisionista", "referencia", "radicado", "recepcion", "version"],
        {"oferta_id": offer_id, "vigente": True},
    )
    return pl.DataFrame([tuple(r) for r in rows], schema=CURRENT_SCHEMA, orient="row")
