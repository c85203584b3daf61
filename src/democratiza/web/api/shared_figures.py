"""The figures of each offer as last counted, kept in PostgreSQL for every process.

Why: each process kept in its memory the figures it had counted; with several processes
(or machines) on one database only the background recount was shared (one at a time), and
a process that had not recounted went on serving its own older figures, or counted again
itself: two clerks' pages, answered by two processes, showed different counts. Here the
last count of an offer and the key it was counted for (``offer_figures.key``, with the
code that counts them) are one row of ``cifras_ofertas``, written by whichever process
counted; a process whose figures in memory are not for the offer's key now reads that row
(one row, by its key) before it counts anything, so every process serves the last count.

The figures are written as JSON, never as Python objects: the row comes from the
database, and nothing read from it is run. A row that cannot be read back as figures (say,
written by another version of the code) is as good as none: the figures are counted again.
SQLite, one machine and one process, keeps them in memory only (``offer_figures``).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, select
from sqlalchemy.dialects.postgresql import insert

from democratiza.adjudication.figures import FilingFigures
from democratiza.storage.schema import offer_figures_cache as cache

if TYPE_CHECKING:  # ``offer_figures`` uses this module: no import at run time
    from democratiza.web.api.offer_figures import OfferFigures


def encode(figures: OfferFigures) -> str:
    """``OfferFigures`` as JSON (its figures are whole numbers and words; its time ISO)."""
    return json.dumps(
        {
            "intake": figures.intake,
            "filing": asdict(figures.filing),
            "awarded": figures.awarded,
            "computed_at": figures.computed_at.isoformat(timespec="microseconds"),
            "seconds": figures.seconds,
        },
        ensure_ascii=False,
        sort_keys=True,
    )


def decode(text: str) -> dict[str, Any] | None:
    """The fields of ``OfferFigures`` from ``encode``'s JSON, or ``None`` if it is not that."""
    try:
        value = json.loads(text)
        filing = dict(value["filing"])
        filing["limites"] = tuple((str(rule), int(n)) for rule, n in filing["limites"])
        awarded = value["awarded"]
        return {
            "intake": dict(value["intake"]),
            "filing": FilingFigures(**filing),
            "awarded": None if awarded is None else (int(awarded[0]), int(awarded[1])),
            "computed_at": datetime.fromisoformat(value["computed_at"]),
            "seconds": float(value["seconds"]),
        }
    except (ValueError, KeyError, TypeError, IndexError):
        return None


def read(conn: Connection, offer_id: int, known: str | None = None) -> tuple[str, str] | None:
    """The stored key and figures (both JSON) of an offer, if any process counted them and
    their key is not ``known`` (the one the asking process keeps: its figures are those)."""
    where = cache.c.oferta_id == offer_id
    if known is not None:
        where = where & (cache.c.clave != known)
    row = conn.execute(select(cache.c.clave, cache.c.cifras).where(where)).first()
    return None if row is None else (str(row.clave), str(row.cifras))


def write(engine: Engine, offer_id: int, key: str, figures: str) -> None:
    """Keep an offer's figures and their key for every process (the last count wins).

    In a transaction of its own: the request that counted holds its connection for reading.
    """
    upsert = insert(cache).values(oferta_id=offer_id, clave=key, cifras=figures)
    with engine.begin() as conn:
        conn.execute(
            upsert.on_conflict_do_update(
                index_elements=[cache.c.oferta_id],
                set_={"clave": upsert.excluded.clave, "cifras": upsert.excluded.cifras},
            )
        )
