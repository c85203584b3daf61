"""Exact money: pesos as integer centavos, as people write them and as they read them.

Written: one grammar for every amount a person types or files (a form, a command, a cell of
a batch): ``48000000``, ``2075.31``, ``2075,31``, ``48.000.000``, ``48.000.000,50``, with an
optional ``$``. A dot followed by exactly three digits groups thousands (``1.500`` is one
thousand five hundred), as Colombians write it; otherwise a dot or a comma separates at most
two decimals. Anything else is refused, never guessed. Read: ``$ 2.018,50``.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction

# The grammar of a written amount (sign aside), in ASCII digits only, so that Python's ``re``
# and Polars' regex read it alike (``tables.parse`` types whole columns with it).
AMOUNT_PATTERN = (
    r"^\$?\s*(?:(?P<plain>[0-9]+)(?:[.,](?P<plain_cents>[0-9]{1,2}))?"
    r"|(?P<grouped>[0-9]{1,3}(?:\.[0-9]{3})+)(?:,(?P<grouped_cents>[0-9]{1,2}))?)$"
)
# A written amount with more than two decimals (told apart from one that is not a number).
TOO_FINE_PATTERN = r"^\$?\s*(?:[0-9]+|[0-9]{1,3}(?:\.[0-9]{3})+)[.,][0-9]{3,}$"
AMOUNT_EXAMPLES = "48000000, 2075.31, 48.000.000 o 48.000.000,50"
AMOUNT_DIGITS = 16  # whole pesos beyond 10¹⁶ are a typo, and would not fit in Int64 centavos
_AMOUNT = re.compile(AMOUNT_PATTERN)
_TOO_FINE = re.compile(TOO_FINE_PATTERN)


class MoneyError(ValueError):
    pass


def to_centavos(amount: Decimal) -> int:
    """Pesos to centavos, refusing anything finer than a centavo (never rounds)."""
    cents = amount * 100
    if cents != cents.to_integral_value():
        raise MoneyError(f"{amount} tiene fracciones de centavo")
    return int(cents)


def parse_pesos(text: str) -> int:
    """An amount as a person writes it (the module's grammar) to centavos; may be negative.

    >>> parse_pesos("48.000.000,50"), parse_pesos("2075.31"), parse_pesos("$ 1.500")
    (4800000050, 207531, 150000)
    """
    written = text.strip()
    body = written.removeprefix("-").strip()
    match = _AMOUNT.match(body)
    if match is None:
        if _TOO_FINE.match(body):
            raise MoneyError(f"'{written}' tiene más de dos decimales")
        raise MoneyError(f"'{written}' no es un monto en pesos (se escribe {AMOUNT_EXAMPLES})")
    whole = match["plain"] or match["grouped"].replace(".", "")
    if len(whole) > AMOUNT_DIGITS:
        raise MoneyError(f"'{written}' está fuera de todo rango plausible")
    cents = (match["plain_cents"] or match["grouped_cents"] or "").ljust(2, "0")
    value = int(whole) * 100 + int(cents)
    return -value if written.startswith("-") else value


def parse_percent(text: str) -> Decimal:
    """A percentage as a person writes it ('18.5', '18,5', '18,5 %') as a fraction (0.185)."""
    written = text.strip().removesuffix("%").strip().replace(",", ".")
    try:
        value = Decimal(written)
    except InvalidOperation:
        raise MoneyError(f"'{text.strip()}' no es un porcentaje (p. ej. 18.5 o 18,5)") from None
    if not value.is_finite():
        raise MoneyError(f"'{text.strip()}' no es un porcentaje (p. ej. 18.5 o 18,5)")
    return value / 100


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
