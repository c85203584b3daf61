"""The credit-line gate: an offer's Primera Etapa opens only once its credit lines qualify.

Ley 226 de 1995 art. 11 num. 3 (GEB arts. 6.4 and 7): the shares are offered in the
Primera Etapa only once one or several credit lines exist that together make available at
least 10 % of the value of the shares offered (shares offered × fixed price), each with a
term of at least five years including the grace, a capital grace of at least one year, a rate
no higher than the interés bancario corriente on its grant date, and the shares bought
admitted as collateral at the fixed price. The figures and their citations come from the
offer's own program file (``lineas_credito``); only the lines that meet every condition count
towards the 10 % (``check_credit_lines``).

The office registers each line for the offer (``register_line``), reads them with their
check (``credit_verdict``), and opens the offer through ``open_offer``, the only opening the
command line, the API and the pages use: it refuses with the failing conditions, or opens and
records the verdict in the opening's event.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from math import ceil
from typing import Any, cast

from sqlalchemy import Connection, insert, select

from democratiza.compliance.credit.checks import Finding, check_credit_lines
from democratiza.compliance.credit.lines import (
    CreditError,
    CreditLine,
    CreditTerms,
    ShareCollateral,
)
from democratiza.compliance.official_series import HOW_TO_LOAD, IBC, rates_in_force
from democratiza.compliance.series import MissingSeriesValue, RateSeries
from democratiza.money import pesos
from democratiza.offers.lifecycle import OfferError, StoredOffer, advance
from democratiza.storage import audit
from democratiza.storage.database import new_id
from democratiza.storage.schema import credit_lines

# Lines are registered before the offer opens, or while it is open (a later line finances
# acquirers too); after the close they would change nothing.
REGISTRABLE = ("borrador", "abierta")


@dataclass(frozen=True)
class RegisteredLine:
    """A credit line as registered for an offer: the line, who and when."""

    id: int
    line: CreditLine
    who: str
    registered: datetime


@dataclass(frozen=True)
class CreditVerdict:
    """The offer's lines and every condition checked; ``ok``: the offer may open."""

    lines: tuple[RegisteredLine, ...]
    findings: tuple[Finding, ...]
    offer_value: int  # centavos: shares offered × fixed price

    @property
    def ok(self) -> bool:
        return bool(self.lines) and all(f.ok for f in self.findings)

    @property
    def total(self) -> Finding:
        """The 10 % of the lines together (``check_credit_lines`` gives it last)."""
        return self.findings[-1]


def offer_value(stored: StoredOffer) -> int:
    """The value of the shares offered, in centavos: shares offered × fixed price, up to
    the centavo where the price is finer (the lines must finance at least the exact part)."""
    shares = stored.offer.values.get("acciones_ofrecidas")
    if not isinstance(shares, int):
        raise OfferError(
            f"La oferta '{stored.code}' no tiene acciones_ofrecidas: sin ellas no se sabe el "
            "valor de las acciones ofrecidas que deben financiar las líneas de crédito."
        )
    return ceil(shares * stored.offer.price)


def line_values(line: CreditLine) -> dict[str, Any]:
    """The line's columns, as stored (registered or corrected: ``line_changes``)."""
    return {
        "entidad": line.lender,
        "monto_disponible": line.available_centavos,
        "plazo_meses": line.term_months,
        "gracia_meses": line.grace_months,
        "tasa_ea": str(line.rate_ea),
        "fecha_otorgamiento": line.granted,
        "capitalizar_gracia": line.capitalise_grace_interest,
        "garantia": line.share_collateral,
    }


def register_line(conn: Connection, stored: StoredOffer, line: CreditLine, who: str) -> int:
    """Register a credit line for the offer; its conditions are checked at the opening."""
    if stored.state not in REGISTRABLE:
        raise OfferError(
            f"La oferta '{stored.code}' está {stored.state}: las líneas de crédito se "
            "registran antes de abrirla o mientras está abierta."
        )
    CreditTerms.from_program(stored.program)  # a program without conditions is refused here
    values = {
        "oferta_id": stored.id,
        **line_values(line),
        "quien": who,
        "registrada_en": datetime.now(),
    }
    line_id = new_id(conn.execute(insert(credit_lines).values(**values)))
    recorded = {k: v for k, v in values.items() if k not in ("oferta_id", "quien")}
    audit.append(
        conn, who, "credito.registrar", f"ofertas/{stored.id}/lineas/{line_id}", None, recorded
    )
    return line_id


def offer_lines(conn: Connection, stored: StoredOffer) -> tuple[RegisteredLine, ...]:
    """The lines registered for the offer, in the order they were registered."""
    rows = conn.execute(
        select(credit_lines)
        .where(credit_lines.c.oferta_id == stored.id)
        .order_by(credit_lines.c.id)
    ).mappings()
    return tuple(
        RegisteredLine(
            r["id"],
            CreditLine(
                r["entidad"],
                r["monto_disponible"],
                r["plazo_meses"],
                r["gracia_meses"],
                Decimal(r["tasa_ea"]),
                r["fecha_otorgamiento"],
                r["capitalizar_gracia"],
                cast(ShareCollateral, r["garantia"]),
            ),
            r["quien"],
            r["registrada_en"],
        )
        for r in rows
    )


def credit_verdict(
    conn: Connection, stored: StoredOffer, ibc: RateSeries | None = None
) -> CreditVerdict:
    """Every condition of the offer's lines, and of the lines together.

    ``ibc`` is the interés bancario corriente series (given: the one the office loaded last,
    or else the shipped points); a grant date without a certified value raises
    ``OfferError`` naming the period and how to load the series that has it.
    """
    lines = offer_lines(conn, stored)
    value = offer_value(stored)
    try:
        terms = CreditTerms.from_program(stored.program)
        findings = check_credit_lines(
            [r.line for r in lines],
            value,
            ibc or rates_in_force(conn, IBC),
            terms=terms,
        )
    except MissingSeriesValue as exc:
        raise OfferError(f"{exc} {HOW_TO_LOAD}") from None
    except CreditError as exc:
        raise OfferError(str(exc)) from None
    return CreditVerdict(lines, tuple(findings), value)


def refusal(stored: StoredOffer, verdict: CreditVerdict) -> str:
    """Why the offer cannot open yet, in Spanish, with the failing conditions."""
    total = verdict.total
    intro = (
        f"La oferta '{stored.code}' no puede abrirse: la Primera Etapa solo se ofrece una vez "
        f"existan líneas de crédito que en conjunto financien al menos el valor exigido "
        f"({total.citation})."
    )
    if not verdict.lines:
        return (
            f"{intro} No hay líneas de crédito registradas; el valor de las acciones "
            f"ofrecidas es {pesos(verdict.offer_value)}."
        )
    failing = [f"- {f}" for f in verdict.findings if not f.ok]
    return "\n".join([intro, *failing])


def open_offer(
    conn: Connection,
    stored: StoredOffer,
    who: str,
    why: str,
    ibc: RateSeries | None = None,
) -> StoredOffer:
    """Open the offer if its credit lines qualify; otherwise refuse and change nothing."""
    if stored.state != "borrador":  # the lifecycle's own refusal, before reading the lines
        return advance(conn, stored, "abierta", who, why)
    verdict = credit_verdict(conn, stored, ibc)
    if not verdict.ok:
        raise OfferError(refusal(stored, verdict))
    total = verdict.total
    return advance(
        conn, stored, "abierta", who, why, {"lineas_credito": f"{total.citation}: {total.text}"}
    )
