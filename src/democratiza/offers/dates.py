"""The dates of an offer that carry legal effect: business dates the office gives, never the
clock of the machine that recorded them.

The aviso and the close are the offer's parameters; the window opens the day the program file
says (``ventana.desde``). The adjudication, the publication of the results, the payment
deadline and the sale (fecha de enajenación) are dates the office gives when it records each
step (today when it gives none), checked for their order:

    aviso < apertura < cierre <= adjudicación <= publicación <= plazo de pago
    adjudicación <= enajenación

A business date is never later than the day it is recorded. The audit log and the events keep
when each step was recorded; the two are never mixed: Central's fine bands count from the
adjudication's business date (Central, inciso de multas), not from when it was recorded.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy import Connection, select, update

from democratiza.offers.lifecycle import OfferError, StoredOffer
from democratiza.storage.schema import adjudications, offers

WORDS = {
    "fecha_cierre": "cierre",
    "fecha_adjudicacion": "adjudicación",
    "fecha_publicacion": "publicación",
    "fecha_enajenacion": "enajenación",
}


@dataclass(frozen=True)
class BusinessDates:
    """What the office gave; None: not given (yet)."""

    closing: date | None
    adjudication: date | None
    publication: date | None
    payment_deadline: date | None


def business_dates(conn: Connection, offer_id: int, closing: date | None) -> BusinessDates:
    """The offer's business dates; an offer adjudicated before they were kept takes its
    adjudication's recorded day."""
    row = conn.execute(
        select(
            offers.c.fecha_adjudicacion, offers.c.fecha_publicacion, offers.c.fecha_limite_pago
        ).where(offers.c.id == offer_id)
    ).one()
    adjudicated = row.fecha_adjudicacion
    if adjudicated is None:
        recorded = conn.execute(
            select(adjudications.c.creada_en).where(adjudications.c.oferta_id == offer_id)
        ).scalar_one_or_none()
        adjudicated = recorded.date() if recorded is not None else None
    return BusinessDates(closing, adjudicated, row.fecha_publicacion, row.fecha_limite_pago)


def order_problems(name: str, day: date, after: dict[str, date | None], today: date) -> list[str]:
    """Why ``day`` (the date called ``name``) cannot be: later than today, or before any of
    the dates in ``after`` (the same day is allowed). Spanish."""
    problems = []
    if day > today:
        problems.append(
            f"La fecha de {WORDS[name]} ({day:%Y-%m-%d}) es posterior a hoy: una fecha de "
            "negocio se registra cuando ocurre."
        )
    for other, earlier in after.items():
        if earlier is not None and day < earlier:
            problems.append(
                f"La fecha de {WORDS[name]} ({day:%Y-%m-%d}) no puede ser anterior a la fecha "
                f"de {WORDS[other]} ({earlier:%Y-%m-%d})."
            )
    return problems


def record_dates(conn: Connection, offer_id: int, **days: date) -> None:
    """Keep the business dates given (``fecha_adjudicacion=…``), in the caller's transaction."""
    conn.execute(update(offers).where(offers.c.id == offer_id).values(**days))


def _refuse(problems: list[str]) -> None:
    if problems:
        raise OfferError("\n".join(problems))


def adjudication_day(stored: StoredOffer, day: date | None, today: date) -> date:
    """The adjudication's business date (today if not given), not before the close."""
    chosen = day or today
    closing = {"fecha_cierre": stored.offer.day("fecha_cierre")}
    _refuse(order_problems("fecha_adjudicacion", chosen, closing, today))
    return chosen


def publication_days(
    conn: Connection,
    stored: StoredOffer,
    day: date | None,
    deadline: date | None,
    today: date,
) -> dict[str, date]:
    """The publication's business date (today if not given) and the payment deadline, if
    given: not before the adjudication, the deadline not before the publication."""
    chosen = day or today
    known = business_dates(conn, stored.id, stored.offer.day("fecha_cierre"))
    problems = order_problems(
        "fecha_publicacion", chosen, {"fecha_adjudicacion": known.adjudication}, today
    )
    days = {"fecha_publicacion": chosen}
    if deadline is not None:
        if deadline < chosen:
            problems.append(
                f"El plazo de pago ({deadline:%Y-%m-%d}) no puede vencer antes de la "
                f"publicación ({chosen:%Y-%m-%d})."
            )
        days["fecha_limite_pago"] = deadline
    _refuse(problems)
    return days


def sale_day_problems(conn: Connection, stored: StoredOffer, sale: date, today: date) -> list[str]:
    """Why a sale (fecha de enajenación) cannot be dated ``sale``: before the adjudication,
    or later than today."""
    known = business_dates(conn, stored.id, stored.offer.day("fecha_cierre"))
    return order_problems(
        "fecha_enajenacion", sale, {"fecha_adjudicacion": known.adjudication}, today
    )
