"""An interruption with an adjusted price, and the earlier acceptances evaluated again when the
office so decides (Ley 226 art. 11 num. 2; GEB art. 6.3 and its parágrafo).

The adjusted price applies to every filing received after it is recorded. For the ones filed
before, the office records its choice and basis (``offers.prices``): ``conservan`` leaves
them at the price they were evaluated at; ``reevaluadas`` evaluates each current one again,
with the very engine that decided it, at the adjusted price. A re-evaluated acceptance is a
new version (``estado`` reevaluada) with its new decision, price and the rule of its
smallest limit (at another price another limit may be the smallest); the old one stays as
history, and the broker's filing is never rewritten in place.
"""

from __future__ import annotations

import polars as pl
from sqlalchemy import Connection, or_, select

from democratiza.filing.compiled import compiled_program
from democratiza.offers.lifecycle import (
    StoredOffer,
    record_interruption,
)
from democratiza.offers.prices import AdjustmentRequest
from democratiza.rules.person import stored_general
from democratiza.storage import audit
from democratiza.storage.bulk import BulkWriteRefused, wire_type, write_rows, written_columns
from democratiza.storage.database import read_frame
from democratiza.storage.receipts import StorageError, refused_message
from democratiza.storage.schema import acceptances
from democratiza.storage.versions import retire
from democratiza.tables.acceptances import typed_schema


def interrupt(
    conn: Connection,
    stored: StoredOffer,
    who: str,
    why: str,
    adjustment: AdjustmentRequest | None = None,
) -> tuple[StoredOffer, int]:
    """Record the interruption; with ``reevaluadas``, evaluate the earlier filings again.

    Returns the offer with its new price and how many acceptances were evaluated again.
    """
    adjusted = record_interruption(conn, stored, who, why, adjustment)
    if adjustment is None or adjusted.adjustments[-1].earlier != "reevaluadas":
        return adjusted, 0
    return adjusted, reevaluate(conn, adjusted, who)


def _earlier(conn: Connection, stored: StoredOffer) -> pl.DataFrame:
    """The current acceptances evaluated at another price: every stored column."""
    a = acceptances.c
    statement = select(acceptances).where(
        a.oferta_id == stored.id,
        a.vigente,
        a.estado != "retirada",
        or_(a.precio.is_(None), a.precio != stored.price_in_force),
    )
    schema = {c.name: wire_type(c.type) for c in acceptances.columns}
    return read_frame(conn, statement.order_by(a.id), schema)


def as_filed(earlier: pl.DataFrame) -> pl.DataFrame:
    """The stored acceptances typed as the engine reads a broker's file."""
    schema = typed_schema()
    return earlier.select(
        pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias("fila")
        if name == "fila"
        else pl.col(name).cast(dtype)
        for name, dtype in schema.items()
    )


def reevaluate(conn: Connection, stored: StoredOffer, who: str) -> int:
    """Evaluate the earlier current acceptances again at the price in force; each becomes a
    new version with its decision and price. How many.

    All of them at once, as a batch is stored: the current versions become history and the
    new ones go in one bulk write (one statement per row took half an hour for a million).
    """
    earlier = _earlier(conn, stored)
    if earlier.is_empty():
        return 0
    results = compiled_program(stored).evaluate(as_filed(earlier))
    price = stored.price_in_force
    following = (
        earlier.drop("id")
        .with_columns(
            results["cantidad_permitida"],
            results["limite_minimo"],
            results["decision"].cast(pl.String),
            results["regla_limitante"],
            results["causas"].cast(pl.Int64),
            results["regla_limite"],
            results["limite_general"],
            results["regla_general"],
            (pl.col("version") + 1).alias("version"),
            pl.lit(True).alias("vigente"),
            pl.lit("reevaluada").alias("estado"),
            pl.lit(price, dtype=pl.Int64).alias("precio"),
        )
        .with_columns(stored_general(stored.program))
    )
    retire(conn, acceptances, earlier["id"].to_list())
    try:
        write_rows(conn, acceptances, following.select(written_columns(acceptances)))
    except BulkWriteRefused as exc:
        raise StorageError(refused_message(str(exc))) from None
    audit.append(
        conn,
        who,
        "oferta.reevaluar",
        f"ofertas/{stored.id}/aceptaciones",
        None,
        {"oferta": stored.code, "precio": price, "aceptaciones": earlier.height},
    )
    return earlier.height
