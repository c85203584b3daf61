"""Exact money: pesos as integer centavos, and their Colombian rendering ($ 2.018,50)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction


class MoneyError(ValueError):
    pass


def to_centavos(amount: Decimal) -> int:
    """Pesos to centavos, refusing anything finer than a centavo (never rounds)."""
    cents = amount * 100
    if cents != cents.to_integral_value():
        raise MoneyError(f"{amount} tiene fracciones de centavo")
    return int(cents)


def group(n: int) -> str:
    """Thousands with dots, as written in Colombia: 118929 -> '118.929'."""
    sign = "-" if n < 0 else ""
    return sign + f"{abs(n):,}".replace(",", ".")


def pesos(centavos: int | Fraction) -> str:
    """'$ 48.000.000' for whole pesos, '$ 2.075,31' otherwise; exact, never rounded up."""
    if isinstance(centavos, int):  # the common case, without Fraction's cost
        whole_cents, rest_cents = divmod(abs(centavos), 100)
        sign = "-" if centavos < 0 else ""
        tail = f",{rest_cents:02d}" if rest_cents else ""
        return f"{sign}$ {group(whole_cents)}{tail}"
    value = Fraction(centavos)
    whole, rest = divmod(abs(value), 100)
    sign = "-" if value < 0 else ""
    if rest == 0:
        return f"{sign}$ {group(int(whole))}"
    cents = int(rest)
    tail = "…" if rest != cents else ""  # an exact fraction of a centavo is marked, not hidden
    return f"{sign}$ {group(int(whole))},{cents:02d}{tail}"


def dollars(cents: int) -> str:
    whole, rest = divmod(cents, 100)
    return f"US$ {group(whole)}" + (f",{rest:02d}" if rest else "")
