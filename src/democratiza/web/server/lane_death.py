"""What a broker is told when the process storing its batch dies: what is true.

The batch's transaction either committed before the process died or died with it; which
one is read from the database, where a stored batch is found by its name and its bytes. If
the database cannot be asked either, the broker is told that it is not known, and that
sending the same file again is safe: a batch is stored once.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError

from democratiza.filing.batches import already_received
from democratiza.offers.lifecycle import OfferError, load_offer
from democratiza.storage.receipts import look_up
from democratiza.tables.errors import InputRejected
from democratiza.web.errors import Unavailable
from democratiza.web.server.filing_answers import answer_json, batch_answer
from democratiza.words import filed

NOT_STORED = (
    "El proceso que guarda los lotes se detuvo antes de terminar; no se guardó nada de este "
    "lote (todo o nada). Envíelo de nuevo."
)
UNKNOWN = (
    "El proceso que guarda los lotes se detuvo y no se pudo comprobar si este lote alcanzó a "
    "guardarse. Envíe de nuevo el mismo archivo con el mismo lote: si ya estaba guardado se le "
    "responde lo guardado, y nunca se guarda dos veces."
)


def after_worker_died(
    engine: Engine, code: str, path: Path, shown: str, batch: str, broker: str
) -> bytes:
    """The stored batch's answer if it was stored; else ``Unavailable`` saying what is true."""
    try:
        _, _, stored = look_up(
            engine,
            path,
            lambda conn: load_offer(conn, code),
            lambda conn, offer, digest: already_received(conn, offer, broker, batch, digest, shown),
        )
    except (DBAPIError, OSError, OfferError, InputRejected):
        raise Unavailable(UNKNOWN) from None
    if stored is None:
        raise Unavailable(NOT_STORED)
    told = (
        f"Lote '{batch}' recibido: {filed(stored.rows)}. (El proceso que lo guardó se detuvo "
        "justo después; lo guardado es esto.)"
    )
    return answer_json(batch_answer(replace(stored, created=True, message=told)))
