"""Exact arithmetic for fines and loans: the Decimal contexts, centavos, a period's rate.

Products of finite decimals (a balance × a CPI factor) are exact with enough digits, and
``EXACT`` traps any rounding. A rate for part of a year, (1 + i)^(d/365) − 1, is irrational:
``PRECISE`` carries 50 significant digits, and amounts are rounded to centavos half-up only
where the computation books them (``round_centavos``).
"""

from __future__ import annotations

from decimal import (
    ROUND_HALF_UP,
    Context,
    Decimal,
    DivisionByZero,
    Inexact,
    InvalidOperation,
    Overflow,
    localcontext,
)

# Products of finite decimals are exact with enough digits; Inexact traps any rounding.
EXACT = Context(prec=400, traps=[InvalidOperation, DivisionByZero, Overflow, Inexact])
# Powers with a fractional exponent are irrational: 50 significant digits, then centavos.
PRECISE = Context(prec=50, rounding=ROUND_HALF_UP, traps=[InvalidOperation, DivisionByZero])


def round_centavos(value: Decimal) -> int:
    """Half-up to whole centavos (0,5 centavos goes away from zero)."""
    with localcontext(EXACT) as ctx:
        ctx.traps[Inexact] = False
        return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def period_rate(annual: Decimal, days: int, year: int = 365) -> Decimal:
    """(1 + annual)^(days/year) − 1 with 50 significant digits (annual as a fraction).

    A stretch of ``days`` days of a fine's interest; a loan's month is ``days=1, year=12``.
    The annual rate is never divided.
    """
    if days == 0:
        return Decimal(0)
    with localcontext(PRECISE) as ctx:
        return ctx.power(1 + annual, Decimal(days) / year) - 1
