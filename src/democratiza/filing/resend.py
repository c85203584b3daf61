"""A stored batch's decisions again, from the same file: to write its decision files again.

A batch is stored once; if its decision files could not be written (a full disk after the
commit), the broker sends the same file again: it is recognised by its bytes, nothing new is
stored, and its rows are evaluated again, at the price they were received at (an adjusted
price after an interruption is not theirs: Ley 226 art. 11 num. 2), so that the files can be
written. The files must say what was decided: if the offer's rules now decide otherwise (its
parameters changed since), they are not written, and the broker is told why.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import polars as pl
from sqlalchemy import Engine, select

from democratiza.filing.batches import RECEIVED
from democratiza.filing.compiled import compiled_program
from democratiza.filing.store import BatchResult
from democratiza.offers.lifecycle import OfferError, load_offer
from democratiza.rules.engine import CompiledProgram
from democratiza.storage.schema import acceptances
from democratiza.tables.acceptances import ACCEPTANCES
from democratiza.tables.brokers import read_broker_file

DECIDED = ["referencia", "decision", "cantidad_permitida"]


def evaluated_again(
    engine: Engine, offer_code: str, path: Path, broker: str, stored: BatchResult
) -> tuple[CompiledProgram, pl.DataFrame, pl.DataFrame]:
    """The stored batch's rules, decisions and rows, as ``BatchResult.evaluated`` holds them."""
    with engine.connect() as conn:
        offer = load_offer(conn, offer_code)
        price = conn.execute(
            select(acceptances.c.precio)
            .where(acceptances.c.lote_id == stored.batch_id, RECEIVED)
            .limit(1)
        ).scalar()
    frame = read_broker_file(path, ACCEPTANCES, broker, datetime.now())
    # Rows stored before prices were recorded were all evaluated at the initial price.
    compiled = compiled_program(offer, offer.offer.price_centavos if price is None else price)
    results = compiled.evaluate(frame)
    now = pl.DataFrame(
        {
            "referencia": frame["referencia"],
            "decision": results["decision"].cast(pl.String),
            "cantidad_permitida": results["cantidad_permitida"].cast(pl.Int64),
        }
    )
    then = stored.decisions.select(
        pl.col("referencia").cast(pl.String),
        pl.col("decision").cast(pl.String),
        pl.col("cantidad_permitida").cast(pl.Int64),
    )
    if not now.sort(DECIDED).equals(then.sort(DECIDED)):
        raise OfferError(
            "Las reglas de la oferta deciden hoy distinto de cuando se recibió el lote (sus "
            "parámetros cambiaron); sus archivos de decisiones no se escriben de nuevo. Lo "
            "decidido está en la base de datos: consúltelo con 'oferta ver'."
        )
    return compiled, results, frame
