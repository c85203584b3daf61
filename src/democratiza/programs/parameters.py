"""Offer parameters: the program's values, completed by the program office for an offer.

A program file gives a value where its decree does; where the decree is silent the value is
left empty and the offer must set it. An offer may not overwrite a value the decree fixes
(a price adjustment after an interruption is a recorded event of the offer's life, not a
silent override).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from fractions import Fraction

from democratiza.money import (
    PRICE_DECIMALS,
    MoneyError,
    group,
    parse_pesos,
    parse_price,
    parse_shares,
    pesos,
    price_text,
)
from democratiza.programs.schema import Program
from democratiza.vocabulary import SMMLV_PARAMETER


@dataclass(frozen=True)
class ParameterSpec:
    kind: str  # "entero", "dinero", "precio" or "fecha" (Spanish: it is shown to users)
    label: str

    def accepts(self, value: object) -> bool:
        if self.kind == "fecha":
            return isinstance(value, date)
        if self.kind == "entero":
            return isinstance(value, int) and not isinstance(value, bool) and value > 0
        if isinstance(value, Decimal) and self.kind == "dinero":
            return value > 0 and value == round(value, 2)
        if isinstance(value, Decimal):
            return value > 0 and value == round(value, PRICE_DECIMALS)
        return isinstance(value, int) and not isinstance(value, bool) and value > 0

    @property
    def expected(self) -> str:
        """What a value must be, in words."""
        if self.kind == "precio":
            return f"un precio positivo (hasta {PRICE_DECIMALS} decimales)"
        if self.kind == "dinero":
            return "dinero positivo (hasta dos decimales)"
        return self.kind


_NAMED: dict[str, ParameterSpec] = {
    "acciones_ofrecidas": ParameterSpec("entero", "acciones ofrecidas"),
    "acciones_en_circulacion": ParameterSpec("entero", "acciones en circulación del emisor"),
    "precio": ParameterSpec("precio", "precio fijo por acción"),
    "trm": ParameterSpec("dinero", "tasa representativa del mercado (pesos por dólar)"),
    "fecha_aviso": ParameterSpec("fecha", "fecha de publicación del aviso de oferta"),
    "fecha_cierre": ParameterSpec("fecha", "último día del plazo de la oferta"),
    "fecha_corte_directivos": ParameterSpec("fecha", "fecha de corte de los directivos nuevos"),
}
_SMMLV = re.compile(SMMLV_PARAMETER.format(year=r"(\d{4})"))


class _Parameters(Mapping[str, ParameterSpec]):
    """The parameters a program may have: the named ones, and the SMMLV of any year
    (``smmlv_2018``: «salario mínimo mensual legal vigente de 2018»)."""

    def __getitem__(self, name: str) -> ParameterSpec:
        if name in _NAMED:
            return _NAMED[name]
        found = _SMMLV.fullmatch(name)
        if found is None:
            raise KeyError(name)
        return ParameterSpec("dinero", f"salario mínimo mensual legal vigente de {found[1]}")

    def __contains__(self, name: object) -> bool:
        return name in _NAMED or (isinstance(name, str) and _SMMLV.fullmatch(name) is not None)

    def __iter__(self) -> Iterator[str]:
        return iter(_NAMED)

    def __len__(self) -> int:
        return len(_NAMED)


PARAMETERS: Mapping[str, ParameterSpec] = _Parameters()
REQUIRED_PARAMETERS = ("acciones_ofrecidas", "precio")


class OfferParameterError(Exception):
    """The offer lacks (or wrongly sets) parameters the evaluation needs."""

    def __init__(self, messages: list[str]) -> None:
        self.messages = messages
        super().__init__("\n".join(messages))


@dataclass(frozen=True)
class Offer:
    """A program with every parameter the evaluation may use resolved to exact values."""

    program: Program
    # Money in centavos, shares as int, dates as date; the price in exact centavos (a
    # Fraction where the decree gives more decimals than centavos: Granahorrar's $ 0,010176).
    values: Mapping[str, int | date | Fraction]

    def money(self, name: str) -> int | None:
        value = self.values.get(name)
        return value if isinstance(value, int) else None

    @property
    def price(self) -> Fraction:
        """The fixed price per share, in centavos, exactly as the decree or the notice gives it."""
        value = self.values.get("precio")
        assert isinstance(value, (int, Fraction)), "make_offer always resolves the price"
        return Fraction(value)

    def day(self, name: str) -> date | None:
        value = self.values.get(name)
        return value if isinstance(value, date) else None

    @property
    def price_centavos(self) -> int:
        """The price in whole centavos, for what keeps prices in centavos (a later stage's
        floor, the payment records): a price finer than a centavo has none."""
        price = self.price
        if price.denominator != 1:
            raise MoneyError(
                f"el precio de {price_text(price)} por acción tiene fracciones de centavo"
            )
        return int(price)

    def require(self, names: list[str], why: str) -> None:
        missing = [n for n in names if n not in self.values]
        if missing:
            raise OfferParameterError([_missing_message(self.program, n, why) for n in missing])


def _missing_message(program: Program, name: str, why: str) -> str:
    param = program.parameters.get(name)
    where = program.cite(param.citation) if param else ""
    note = f" {param.note}" if param and param.note else ""
    return (
        f"Falta el parámetro de la oferta '{name}' ({PARAMETERS[name].label}; {where}), "
        f"necesario para {why}.{note}"
    )


def make_offer_value(name: str, raw: object) -> int | date | Fraction:
    """A parameter's exact value: money in centavos, shares as int, dates as date; the
    price in exact centavos, whole where it has no fraction of a centavo."""
    spec = PARAMETERS[name]
    if spec.kind == "precio":
        price = parse_price(str(raw))
        if price <= 0:
            raise ValueError
        return int(price) if price.denominator == 1 else price
    if spec.kind == "fecha":
        if isinstance(raw, date):
            return raw
        return date.fromisoformat(str(raw))
    if spec.kind == "entero":  # shares, with or without thousands dots, as pesos
        value = (
            raw if isinstance(raw, int) and not isinstance(raw, bool) else parse_shares(str(raw))
        )
        if value <= 0:
            raise ValueError
        return value
    cents = parse_pesos(str(raw))
    if cents <= 0:
        raise ValueError
    return cents


def make_offer(program: Program, overrides: Mapping[str, object] | None = None) -> Offer:
    """Resolve the offer's parameters; the price must be known before anything is evaluated."""
    values: dict[str, int | date | Fraction] = {}
    errors: list[str] = []
    for name, param in program.parameters.items():
        if param.value is not None:
            values[name] = make_offer_value(name, param.value)
    for name, raw in (overrides or {}).items():
        if raw is None:
            continue
        if name not in program.parameters:
            errors.append(f"{program.called} no tiene el parámetro '{name}'.")
            continue
        param = program.parameters[name]
        if param.value is not None:
            cite = program.cite(param.citation)
            errors.append(
                f"El parámetro '{name}' lo fija la norma ({cite}) y no se puede cambiar "
                "para la oferta."
            )
            continue
        try:
            values[name] = make_offer_value(name, raw)
        except (ValueError, MoneyError):
            errors.append(
                f"El parámetro '{name}' debe ser {_expected(PARAMETERS[name])}; se recibió '{raw}'."
            )
    if errors:
        raise OfferParameterError(errors)
    offer = Offer(program, values)
    offer.require(["precio"], "calcular cualquier límite en acciones")
    return offer


def _expected(spec: ParameterSpec) -> str:
    """The words of a refusal as they were for money and counts; a price says its decimals."""
    if spec.kind == "precio":
        return spec.expected
    return f"{spec.kind} positivo"


def shown(name: str, value: int | date | Fraction) -> str:
    """A parameter as a person reads it: $ 2.018, $ 0,010176, 40.000.000, 2018-02-26."""
    kind = PARAMETERS[name].kind if name in PARAMETERS else ""
    if isinstance(value, date):
        return value.isoformat()
    if kind == "precio" or isinstance(value, Fraction):
        return price_text(value)
    if kind == "dinero":
        return pesos(value)
    return group(value)
