"""An interruption with an adjusted price, and the earlier acceptances evaluated again when the
office so decides (Ley 226 art. 11 num. 2; GEB art. 6.3 and its parágrafo).

The adjusted price applies to every filing received after it is recorded. For the ones filed
before, the office records its choice and basis (``offers.prices``): ``conservan`` leaves
them at the price they were evaluated at; ``reevaluadas`` evaluates each current one again,
with the very engine that decided it, at the adjusted price. A re-evaluated acceptance is a
new version (``estado`` reevaluada) with its new decision and price; the old one stays as
history, and the broker's filing is never rewritten in place.
"""

from __future__ import annotations

import polars as pl
from sqlalchemy import Connection, or_, select

from democratiza.filing.batches import compiled_program
from democratiza.offers.lifecycle import (
    StoredOffer,
    record_interruption,
)
from democratiza.offers.prices import AdjustmentRequest
from democratiza.storage import audit
from democratiza.storage.database import read_frame
from democratiza.storage.schema import acceptances
from democratiza.storage.versions import supersede
from democratiza.tables.acceptances import typed_schema

DECIDED = ("cantidad_permitida", "limite_minimo", "decision", "regla_limitante", "causas")


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
    """The current acceptances evaluated at another price, typed as the engine reads them."""
    schema = {k: v for k, v in typed_schema().items() if k != "fila"}
    as_read = {k: pl.String() if isinstance(v, pl.Enum) else v for k, v in schema.items()}
    a = acceptances.c
    price = stored.price_in_force
    statement = select(a.id, *(a[name] for name in schema)).where(
        a.oferta_id == stored.id,
        a.vigente,
        a.estado != "retirada",
        or_(a.precio.is_(None), a.precio != price),
    )
    frame = read_frame(conn, statement.order_by(a.id), {"id": pl.Int64(), **as_read})
    return frame.with_columns(
        *(pl.col(k).cast(v) for k, v in schema.items() if isinstance(v, pl.Enum)),
        pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias("fila"),
    )


def reevaluate(conn: Connection, stored: StoredOffer, who: str) -> int:
    """Evaluate the earlier current acceptances again at the price in force; each becomes a
    new version with its decision and price. How many."""
    earlier = _earlier(conn, stored)
    if earlier.is_empty():
        return 0
    results = compiled_program(stored).evaluate(earlier.drop("id"))
    decided = results.select(
        *DECIDED[:2],
        pl.col("decision").cast(pl.String),
        "regla_limitante",
        pl.col("causas").cast(pl.Int64),
    )
    price = stored.price_in_force
    for acceptance_id, new in zip(earlier["id"], decided.iter_rows(named=True), strict=True):
        row = conn.execute(select(acceptances).where(acceptances.c.id == acceptance_id))
        supersede(conn, acceptances, row.mappings().one(), estado="reevaluada", precio=price, **new)
    audit.append(
        conn,
        who,
        "oferta.reevaluar",
        f"ofertas/{stored.id}/aceptaciones",
        None,
        {"oferta": stored.code, "precio": price, "aceptaciones": earlier.height},
    )
    return earlier.height
