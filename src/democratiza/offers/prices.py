"""The price of an offer after an interruption (Ley 226 art. 11 num. 2; GEB art. 6.3 and its
parágrafo).

The fixed price holds during the Primera Etapa while there is no interruption; after one, or
once the term has run, it may be adjusted (GEB art. 6.3). The office records the adjustment
with its legal basis and the date it takes effect (``vigente_desde``, a business date: today
by default, never later than the day it is recorded, never before the aviso or an earlier
adjustment). Our texts do not say what happens to the acceptances filed before, so the
office decides and records it with its basis: they keep the price they were evaluated at
(``conservan``) or are evaluated again at the adjusted price (``reevaluadas``). Every filing
received after the adjustment is recorded is evaluated at the adjusted price, and every
acceptance keeps the price it was evaluated at and will pay.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal, cast, get_args

from sqlalchemy import Connection, select

from democratiza.money import MoneyError, parse_pesos
from democratiza.storage.schema import offer_events

EarlierFilings = Literal["conservan", "reevaluadas"]
EARLIER_FILINGS: tuple[EarlierFilings, ...] = get_args(EarlierFilings)


@dataclass(frozen=True)
class PriceAdjustment:
    """An adjusted price, from its effective date, and what it does to earlier filings."""

    price: int  # centavos per share
    effective: date
    basis: str  # the legal basis of the adjustment
    earlier: EarlierFilings
    earlier_basis: str  # why the earlier filings keep their price or are evaluated again

    def detail(self) -> dict[str, Any]:
        """As kept in the interruption's event."""
        return {
            "precio_centavos": self.price,
            "vigente_desde": self.effective.isoformat(),
            "fundamento": self.basis,
            "aceptaciones_anteriores": self.earlier,
            "fundamento_anteriores": self.earlier_basis,
        }

    @classmethod
    def from_detail(cls, detail: Mapping[str, Any], recorded: date) -> PriceAdjustment:
        """An event's detail; one recorded before adjustments applied (a price as text,
        no date, no choice) took effect the day it was recorded and kept earlier filings."""
        if "precio_centavos" in detail:
            return cls(
                int(detail["precio_centavos"]),
                date.fromisoformat(str(detail["vigente_desde"])),
                str(detail["fundamento"]),
                cast(EarlierFilings, detail["aceptaciones_anteriores"]),
                str(detail["fundamento_anteriores"]),
            )
        return cls(
            parse_pesos(str(detail["precio_nuevo"])),
            recorded,
            str(detail.get("fundamento", "")),
            "conservan",
            "registrado sin decisión sobre las aceptaciones anteriores",
        )


def price_adjustments(conn: Connection, offer_id: int) -> tuple[PriceAdjustment, ...]:
    """The offer's price adjustments, in the order they were recorded."""
    rows = conn.execute(
        select(offer_events.c.detalle, offer_events.c.cuando)
        .where(
            offer_events.c.oferta_id == offer_id,
            offer_events.c.tipo == "interrupcion",
            offer_events.c.detalle.is_not(None),
        )
        .order_by(offer_events.c.id)
    ).all()
    found = []
    for detail, when in rows:
        values = json.loads(detail)
        if "precio_centavos" in values or "precio_nuevo" in values:
            found.append(PriceAdjustment.from_detail(values, when.date()))
    return tuple(found)


def new_price(text: str) -> int:
    """The adjusted price as typed, in centavos; a refusal says why (``ValueError``)."""
    try:
        cents = parse_pesos(text)
    except MoneyError as exc:
        raise ValueError(f"Precio ajustado: {exc}.") from None
    if cents <= 0:
        raise ValueError("El precio ajustado debe ser positivo.")
    return cents


@dataclass(frozen=True)
class AdjustmentRequest:
    """A price adjustment as the office asks for it (text as typed, dates as given)."""

    price: str
    basis: str | None
    earlier: str | None  # conservan or reevaluadas
    earlier_basis: str | None
    effective: date | None = None  # today when not given


@dataclass(frozen=True)
class AdjustmentProblem:
    """One reason an adjustment is refused: the form's field it concerns (None: the offer),
    what the form says under that field, and what the command line says (with its option)."""

    field: str | None
    on_field: str
    text: str


class AdjustmentRefused(ValueError):
    """Every reason an adjustment is refused; its text is the command line's, one a line."""

    def __init__(self, problems: list[AdjustmentProblem]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(p.text for p in problems))


def checked_adjustment(
    asked: AdjustmentRequest,
    offer: tuple[str, str],
    announced: date | None,
    earlier: tuple[PriceAdjustment, ...],
    today: date,
) -> PriceAdjustment:
    """The adjustment checked against the offer (its code and state, its aviso, its earlier
    adjustments): every refusal at once, in Spanish (``AdjustmentRefused``)."""
    code, state = offer
    problems: list[AdjustmentProblem] = []

    def refuse(field: str | None, text: str, on_field: str | None = None) -> None:
        problems.append(AdjustmentProblem(field, on_field or text, text))

    try:
        price = new_price(asked.price)
    except ValueError as exc:  # reported with the others
        refuse("precio_nuevo", str(exc))
        price = 0
    if not (asked.basis or "").strip():
        refuse(
            "fundamento",
            "Un ajuste del precio debe citar su fundamento legal (--fundamento).",
            "cite el fundamento legal del ajuste (p. ej. Ley 226 de 1995 art. 11 num. 2)",
        )
    if asked.earlier not in EARLIER_FILINGS:
        refuse(
            "aceptaciones_anteriores",
            "Diga qué pasa con las aceptaciones radicadas antes del ajuste "
            "(--aceptaciones-anteriores conservan o reevaluadas): los textos disponibles de "
            "la norma no lo dicen.",
            "elija si las aceptaciones radicadas antes conservan su precio o se evalúan de "
            "nuevo al precio ajustado: la ley no lo dice y lo decide la oficina",
        )
    if not (asked.earlier_basis or "").strip():
        refuse(
            "fundamento_anteriores",
            "La decisión sobre las aceptaciones anteriores debe decir su fundamento "
            "(--fundamento-anteriores).",
            "escriba el fundamento de esa decisión",
        )
    if state not in ("abierta", "cerrada"):
        refuse(
            None,
            f"La oferta '{code}' está {state}: el precio se ajusta tras una "
            "interrupción dentro del plazo o al vencerlo, antes de adjudicar (Ley 226 de 1995 "
            "art. 11 num. 2).",
        )
    effective = asked.effective or today
    if effective > today:
        refuse(
            "vigente_desde",
            f"El ajuste rige desde el día en que se registra o antes; {effective:%Y-%m-%d} es "
            "posterior a hoy.",
        )
    if announced and effective < announced:
        refuse(
            "vigente_desde",
            f"El ajuste no puede regir ({effective:%Y-%m-%d}) antes del aviso "
            f"({announced:%Y-%m-%d}).",
        )
    if earlier and effective < earlier[-1].effective:
        refuse(
            "vigente_desde",
            f"El ajuste no puede regir antes del ajuste anterior "
            f"({earlier[-1].effective:%Y-%m-%d}).",
        )
    if problems:
        raise AdjustmentRefused(problems)
    return PriceAdjustment(
        price,
        effective,
        (asked.basis or "").strip(),
        cast(EarlierFilings, asked.earlier),
        (asked.earlier_basis or "").strip(),
    )
