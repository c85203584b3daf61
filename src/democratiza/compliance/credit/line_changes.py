"""A registered credit line corrected or removed, while lines may still be registered.

Why: a line typed with a wrong grant date (one the interés bancario corriente series does
not cover, or a figure mistyped) blocked the offer for good: nothing could change it. The
office corrects it (the same conditions are checked at the opening) or removes it, each
recorded in the audit log with what it was before, so the record keeps every value a line
ever had.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, delete, update

from democratiza.compliance.credit.gate import (
    REGISTRABLE,
    RegisteredLine,
    line_values,
    offer_lines,
)
from democratiza.compliance.credit.lines import CreditLine, CreditTerms
from democratiza.offers.lifecycle import OfferError, StoredOffer
from democratiza.storage import audit
from democratiza.storage.schema import credit_lines


def _registered(conn: Connection, stored: StoredOffer, number: int) -> RegisteredLine:
    """The offer's line ``number`` (1, 2, … in the order registered), if it may change."""
    if stored.state not in REGISTRABLE:
        raise OfferError(
            f"La oferta '{stored.code}' está {stored.state}: sus líneas de crédito ya no se "
            "corrigen ni se retiran."
        )
    lines = offer_lines(conn, stored)
    if not 1 <= number <= len(lines):
        raise OfferError(f"La oferta '{stored.code}' no tiene una línea de crédito {number}.")
    return lines[number - 1]


def correct_line(
    conn: Connection, stored: StoredOffer, number: int, line: CreditLine, who: str
) -> None:
    """Replace the values of the offer's line ``number``; the old ones stay in the log."""
    CreditTerms.from_program(stored.program)  # a program without conditions is refused here
    found = _registered(conn, stored, number)
    before, after = line_values(found.line), line_values(line)
    conn.execute(update(credit_lines).where(credit_lines.c.id == found.id).values(**after))
    entity = f"ofertas/{stored.id}/lineas/{found.id}"
    audit.append(conn, who, "credito.corregir", entity, _plain(before), _plain(after))


def remove_line(conn: Connection, stored: StoredOffer, number: int, who: str, why: str) -> None:
    """Remove the offer's line ``number``, recording what it was and why."""
    found = _registered(conn, stored, number)
    conn.execute(delete(credit_lines).where(credit_lines.c.id == found.id))
    entity = f"ofertas/{stored.id}/lineas/{found.id}"
    audit.append(
        conn, who, "credito.retirar", entity, _plain(line_values(found.line)), {"motivo": why}
    )


def _plain(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v.isoformat() if hasattr(v, "isoformat") else v for k, v in values.items()}
