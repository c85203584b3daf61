"""Amounts a limit is a multiple of, as exact fractions of a centavo (numerator, denominator).

Every amount is an Int128 numerator over a fixed integer denominator, so a limit in shares
is one floor division and never meets a float. Most amounts are whole centavos
(denominator 1); dollars converted at the TRM are cents × centavos, i.e. hundredths of a
centavo (denominator 100).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import lcm

import polars as pl

from democratiza.programs.parameters import Offer
from democratiza.programs.schema import AmountBase

I128 = pl.Int128()


@dataclass(frozen=True)
class Amount:
    numerator: pl.Expr  # Int128, null when a figure it needs is missing
    denominator: int


def _cents(column: str) -> pl.Expr:
    return pl.col(column).cast(I128)


def source_amount(source: str, offer: Offer) -> Amount:
    """One figure the program may take a multiple of (see ``vocabulary.AmountSource``)."""
    if source == "ingresos_usd":
        trm = offer.money("trm")
        # Without a TRM no row can use dollars; the engine refuses the batch before this.
        rate = pl.lit(trm if trm is not None else None, dtype=I128)
        return Amount(_cents("ingresos_usd") * rate, 100)
    if source == "patrimonio_ajustado":
        # Activos - pasivos - superávit por valorización; a missing figure is missing, not 0.
        return Amount(
            _cents("activos_totales")
            - _cents("pasivos_totales")
            - _cents("superavit_valorizacion"),
            1,
        )
    definition = offer.program.remuneration
    if source == "salario_mensual_anualizado":
        assert definition is not None, "the loader refuses this source without its definition"
        short_tenure = pl.col("meses_en_cargo") < definition.min_months
        return Amount(
            pl.when(short_tenure).then(_cents("salario_mensual") * definition.monthly_factor),
            1,
        )
    if source == "remuneracion_anual" and definition is not None:
        # Where the program defines the Remuneración Anual by time in post (Coltel 8.2(c)):
        # the twelve-month total only from ``meses_minimos`` in post on; before that, the
        # monthly figure (``salario_mensual_anualizado``). Time in post not stated: the
        # total, as certified (the certificate is the employer's word on it).
        in_post_long_enough = (pl.col("meses_en_cargo") >= definition.min_months).fill_null(True)
        return Amount(pl.when(in_post_long_enough).then(_cents("remuneracion_anual")), 1)
    return Amount(_cents(source), 1)


@dataclass(frozen=True)
class Base:
    """A limit's base: its amount and, per row, which source supplied it (index or null)."""

    amount: Amount
    source_index: pl.Expr


def base_amount(base: AmountBase, offer: Offer) -> Base:
    amounts = [source_amount(s, offer) for s in base.sources]
    if len(amounts) == 1:
        only = amounts[0]
        return Base(only, first_index([only.numerator.is_not_null()]))
    den = lcm(*(a.denominator for a in amounts))
    scaled = [a.numerator * (den // a.denominator) for a in amounts]
    if base.combine == "mayor":
        chosen = pl.max_horizontal(scaled)
        return Base(Amount(chosen, den), first_index([s == chosen for s in scaled]))
    # "primero": the first source the acceptant filed, in the program's order.
    value = pl.coalesce(scaled)
    return Base(Amount(value, den), first_index([s.is_not_null() for s in scaled]))


def first_index(conditions: list[pl.Expr]) -> pl.Expr:
    """Per row, the index of the first true condition (null if none): ties go to the first."""
    return pl.coalesce(
        [pl.when(c).then(pl.lit(i, dtype=pl.UInt8)) for i, c in enumerate(conditions)]
    )


def shares_within(
    amount: Amount, numerator: int, denominator: int, price: int | Fraction
) -> pl.Expr:
    """Largest whole n with n × price ≤ (numerator/denominator) × amount; 0 if amount ≤ 0.
    The price is exact (centavos; a fraction where the decree gives finer decimals)."""
    price = Fraction(price)
    divisor = denominator * amount.denominator * price.numerator
    times = numerator * price.denominator
    exact = (amount.numerator * times) // divisor
    return (
        pl.when(amount.numerator <= 0).then(pl.lit(0, dtype=I128)).otherwise(exact).cast(pl.Int64)
    )
