"""Exact money: pesos as integer centavos, as people write them and as they read them.

Written: one grammar for every amount a person types or files (a form, a command, a cell of
a batch): ``48000000``, ``2075.31``, ``2075,31``, ``48.000.000``, ``48.000.000,50``, with an
optional ``$``. A dot followed by exactly three digits groups thousands (``1.500`` is one
thousand five hundred), as Colombians write it; otherwise a dot or a comma separates at most
two decimals. Anything else is refused, never guessed. Read: ``$ 2.018,50``.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from fractions import Fraction
from math import floor

import polars as pl

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
    value = amount_centavos(body)
    if value is None:
        if _AMOUNT.match(body):  # the grammar's, but more whole digits than any amount has
            raise MoneyError(f"'{written}' está fuera de todo rango plausible")
        if _TOO_FINE.match(body):
            raise MoneyError(f"'{written}' tiene más de dos decimales")
        raise MoneyError(f"'{written}' no es un monto en pesos (se escribe {AMOUNT_EXAMPLES})")
    return -value if written.startswith("-") else value


def amount_centavos(body: str) -> int | None:
    """The centavos of an amount written by the grammar, unsigned and with nothing around
    it; None if it is not (or has more than ``AMOUNT_DIGITS`` whole pesos).

    >>> amount_centavos("48.000.000,50"), amount_centavos("2075.3"), amount_centavos("1,234")
    (4800000050, 207530, None)
    """
    match = _AMOUNT.fullmatch(body)  # not ``match``: Python's ``$`` also takes a final "\n"
    if match is None:
        return None
    whole = match["plain"] or match["grouped"].replace(".", "")
    if len(whole) > AMOUNT_DIGITS:
        return None
    return int(whole) * 100 + int(
        (match["plain_cents"] or match["grouped_cents"] or "").ljust(2, "0")
    )


# A number of shares as a person writes it, by the rule of the pesos: digits, with or without
# thousands dots in groups of three ('40000000', '40.000.000'); shares are whole.
SHARES_PATTERN = r"^(?:[0-9]+|[0-9]{1,3}(?:\.[0-9]{3})+)$"
SHARES_EXAMPLES = "40000000 o 40.000.000"
_SHARES = re.compile(SHARES_PATTERN)


def parse_shares(text: str) -> int:
    """A whole number of shares as typed, with or without thousands dots (never negative).

    >>> parse_shares("40.000.000"), parse_shares("1500"), parse_shares(" 1.500 ")
    (40000000, 1500, 1500)
    """
    written = text.strip()
    digits = written.replace(".", "")
    if not _SHARES.match(written) or len(digits) > AMOUNT_DIGITS:
        raise MoneyError(
            f"'{written}' no es un número entero de acciones (se escribe {SHARES_EXAMPLES})"
        )
    return int(digits)


PRICE_PATTERN = re.compile(
    r"^\$?\s*(?P<whole>[0-9]{1,16}|[0-9]{1,3}(?:\.[0-9]{3}){1,5})(?:,(?P<comma>[0-9]+))?$"
)
_PLAIN_PRICE = re.compile(r"^\$?\s*(?P<whole>[0-9]{1,16})(?:\.(?P<dot>[0-9]+))?$")
PRICE_DECIMALS = 12  # a price's decimals beyond these are a typo (decrees give up to six)


def parse_price(text: str) -> Fraction:
    """A price per share as a decree or a notice writes it, exactly, in centavos: every
    decimal it gives (``0.010176``, ``0,010176``, ``2.018,00`` or ``2018``). A dot before
    exactly three digits groups thousands, as ``parse_pesos`` reads it; ``0.010176`` has six
    decimals, so its dot is the decimal point.

    >>> parse_price("0.010176"), parse_price("2.018,50"), parse_price("2018")
    (Fraction(636, 625), Fraction(201850, 1), Fraction(201800, 1))
    """
    written = text.strip()
    plain = _PLAIN_PRICE.match(written)
    grouped = PRICE_PATTERN.match(written)
    if plain is not None and not (plain["dot"] and len(plain["dot"]) == 3 and grouped):
        whole, decimals = plain["whole"], plain["dot"] or ""
    elif grouped is not None:
        whole, decimals = grouped["whole"].replace(".", ""), grouped["comma"] or ""
    else:
        raise MoneyError(
            f"'{written}' no es un precio por acción (se escribe 2018, 2075.31, 0.010176 o "
            "0,010176)"
        )
    if len(decimals) > PRICE_DECIMALS:
        raise MoneyError(f"'{written}' tiene más de {PRICE_DECIMALS} decimales")
    return Fraction(Decimal(f"{whole}.{decimals or '0'}")) * 100


def price_text(centavos: int | Fraction) -> str:
    """A price per share with every decimal it has: '$ 2.018', '$ 2.075,31', '$ 0,010176'.
    A price in whole centavos is written as ``pesos`` writes it."""
    value = Fraction(centavos)
    if value.denominator == 1:
        return pesos(int(value))
    pesos_value = value / 100
    places = 2
    while (pesos_value * 10**places).denominator != 1 and places < 4 * PRICE_DECIMALS:
        places += 1
    return f"$ {fixed(pesos_value, places)}"


def round_centavos(amount: Fraction) -> int:
    """An exact amount (centavos) to the nearest centavo, a half centavo up: the only
    rounding of money, where money changes hands (``ROUNDING_WORDS`` says it)."""
    return floor(amount + Fraction(1, 2))


ROUNDING_WORDS = "redondeado al centavo más cercano (medio centavo, hacia arriba)"


EXACT_SCALE = 8  # decimals of a centavo a price may carry: ten of a peso, past any decree's
EXACT_CENTAVOS = pl.Decimal(38, EXACT_SCALE)


def exact_centavos(price: Fraction | int) -> Decimal:
    """A price (centavos) as the exact decimal it is, for files with a price column; a price
    that needs more than ``EXACT_SCALE`` decimals of a centavo is refused, never rounded."""
    value = Fraction(price)
    shown = Decimal(value.numerator) / Decimal(value.denominator)
    fixed = shown.quantize(Decimal(1).scaleb(-EXACT_SCALE))
    if Fraction(fixed) != value:
        raise MoneyError(f"el precio de {price_text(value)} tiene más de diez decimales")
    return fixed


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


def pesos(centavos: int | Fraction | Decimal) -> str:
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


# --- amounts and ratios as text ----------------------------------------------------------
# Every number the project writes for a reader or a file comes from here, one function for
# each convention: amounts (``pesos`` above, ``pesos_cents``, ``pesos_cell``), exact ratios
# (``fixed``, ``percent``, ``share_percent``, ``exact_percent``) and percentages written as
# decimals (``decimal_percent``). None rounds unless its docstring or ``places`` says so.


def pesos_cents(centavos: int) -> str:
    """'$ 1.234,50', '$ 2.018,00': always the centavos, so that a column of amounts lines up."""
    sign = "-" if centavos < 0 else ""
    whole, cents = divmod(abs(centavos), 100)
    return f"{sign}$ {group(whole)},{cents:02d}"


def pesos_cell(centavos: int | Decimal) -> str:
    """Pesos with a dot for decimals, for machine-read files: 123456 -> '1234.56'.

    At least two decimals and every exact digit beyond them: Decimal('221917.0143') centavos
    -> '2219.170143'. The point is moved in the text, so no digit is ever rounded.
    """
    text = f"{Decimal(centavos):f}"  # every digit: formatting without a precision is exact
    sign, text = ("-", text[1:]) if text.startswith("-") else ("", text)
    whole, _, decimals = text.partition(".")
    whole = whole.rjust(3, "0")
    cents = (whole[-2:] + decimals).rstrip("0").ljust(2, "0")
    return f"{sign}{whole[:-2]}.{cents}"


def fixed(value: Fraction | int, places: int, *, truncate: bool = False) -> str:
    """An exact number to ``places`` decimals, Colombian style: 1234.567 -> '1.234,57'.

    Rounded half away from zero ('0,5' -> '1'); with ``truncate``, cut toward zero instead.
    """
    scale = 10**places
    scaled = Fraction(value) * scale
    if truncate:
        units = int(scaled)  # int() cuts toward zero
    elif scaled >= 0:
        units = int(scaled + Fraction(1, 2))
    else:
        units = -int(-scaled + Fraction(1, 2))
    sign = "-" if units < 0 else ""
    whole, rest = divmod(abs(units), scale)
    return f"{sign}{group(whole)}" + (f",{rest:0{places}d}" if places else "")


def percent(ratio: Fraction, places: int = 2, *, truncate: bool = False) -> str:
    """A ratio as a percentage, as ``fixed`` writes it: 3500/6586 -> '53,14 %'."""
    return f"{fixed(ratio * 100, places, truncate=truncate)} %"


def share_percent(share: Fraction | None, places: int = 2) -> str:
    """A part of a whole as a percentage, rounded: '53,14 %'; '—' when there is no part.

    A part that is neither none nor all never reads as 0 or 100 %: '< 0,01 %', '> 99,99 %'.
    """
    if share is None:
        return "—"
    text = percent(share, places)
    step = Fraction(1, 10**places)  # the smallest figure ``places`` can show
    if share > 0 and text == percent(Fraction(0), places):
        return f"< {fixed(step, places)} %"
    if share < 1 and text == percent(Fraction(1), places):
        return f"> {fixed(100 - step, places)} %"
    return text


def exact_percent(ratio: Fraction) -> str:
    """A non-negative ratio as a percentage never rounded up, marked as ``pesos`` marks a cut.

    Hundredths of a percent, truncated, '…' where something was cut, and no ',00' on a whole
    percentage: 1009/750 -> '134,53… %', 3/8 -> '37,50 %', 5/4 -> '125 %'.
    """
    text = fixed(ratio * 100, 2, truncate=True).removesuffix(",00")
    cut = (ratio * 10_000).denominator != 1
    return text + ("…" if cut else "") + " %"


def decimal_percent(value: Decimal, places: int | None = None) -> str:
    """A percentage written as a decimal: every significant digit, and at least two decimals
    when it has any: Decimal('28.740') -> '28,74 %', Decimal('24.915') -> '24,915 %',
    Decimal('30') -> '30 %'; no thousands dots.

    With ``places``, rounded half up to that many decimals first (then written the same way):
    Decimal('1.18355736327') with 10 places -> '1,1835573633 %'.
    """
    if places is not None:
        value = value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    text = f"{value:f}"
    if "." in text:
        whole, decimals = text.split(".")
        text = f"{whole},{decimals.rstrip('0').ljust(2, '0')}"
    return f"{text} %"


# --- the same renderings as column expressions --------------------------------------------
# What ``group``, ``pesos`` and ``dollars`` write for one number, written for a whole column
# at once (Polars), so a million explanations are built without a Python loop. Each gives,
# row by row, exactly the text of its scalar twin above (``tests/test_money.py`` holds them
# equal on every kind of value).

_PADDED = [f"{i:03d}" for i in range(1000)]
# Each group of three digits as written after the leading one ('.007', its dot included),
# then as the leading one ('7'): index ``digits + 1000`` for the leading group.
_GROUP_TEXTS = pl.Series([f".{t}" for t in _PADDED] + [str(i) for i in range(1000)])
_CENTS = pl.Series([f",{t[1:]}" for t in _PADDED])  # ',07' for 7 centavos
COLUMN_GROUPS = 7  # thousands groups a column rendering writes: magnitudes below 10²¹

Parts = list[pl.Expr]  # pieces of a text, concatenated with nulls skipped (``joined``)


def joined(parts: Parts) -> pl.Expr:
    """The text the parts make: one concatenation, however many numbers it holds.

    Why parts: building a sentence with one concatenation of all its pieces is several times
    cheaper than concatenating each number first and the sentence after.
    """
    return pl.concat_str(parts, ignore_nulls=True)


def group_parts(n: pl.Expr, groups: int = COLUMN_GROUPS) -> Parts:
    """``group`` of each whole number of a column (magnitude below 1000 ** groups), as parts.

    Each group of three digits is looked up in a table of its texts, one gather per group:
    unpadded for the leading group, zero-padded with its dot after it.
    """
    magnitude = n.abs()
    parts: Parts = [pl.when(n < 0).then(pl.lit("-"))]
    for k in range(groups - 1, -1, -1):
        digits = ((magnitude // 10 ** (3 * k)) % 1000).cast(pl.UInt32)
        leading = (magnitude < 10 ** (3 * k + 3)).cast(pl.UInt32) * 1000
        text = pl.lit(_GROUP_TEXTS).gather(digits + leading)
        parts.append(text if k == 0 else pl.when(magnitude >= 10 ** (3 * k)).then(text))
    return parts


def group_column(n: pl.Expr, groups: int = COLUMN_GROUPS) -> pl.Expr:
    """``group`` of each whole number of a column whose magnitude is below 1000 ** groups."""
    return joined(group_parts(n, groups))


def pesos_parts(centavos: pl.Expr, denominator: int = 1) -> Parts:
    """``pesos`` of each amount of a column, in centavos over a fixed ``denominator``
    (dollars converted at a TRM are hundredths of a centavo: denominator 100), as parts. The
    whole centavos must fit in Int64 (every amount here does: below 10¹⁸ centavos)."""
    magnitude = centavos.abs()
    whole_centavos = (magnitude // denominator if denominator > 1 else magnitude).cast(pl.Int64)
    cents = (whole_centavos % 100).cast(pl.UInt32)
    sign = pl.when(centavos < 0).then(pl.lit("-$ ")).otherwise(pl.lit("$ "))
    if denominator == 1:
        tail = [pl.when(cents != 0).then(pl.lit(_CENTS).gather(cents))]
    else:
        cut = magnitude % denominator != 0
        tail = [
            pl.when(cut | (cents != 0)).then(pl.lit(_CENTS).gather(cents)),
            pl.when(cut).then(pl.lit("…")),
        ]
    return [sign, *group_parts(whole_centavos // 100, COLUMN_GROUPS - 1)[1:], *tail]


def pesos_column(centavos: pl.Expr, denominator: int = 1) -> pl.Expr:
    """``pesos`` of each amount of a column (``pesos_parts``)."""
    return joined(pesos_parts(centavos, denominator))


def dollars_parts(cents: pl.Expr) -> Parts:
    """``dollars`` of each amount of a column, in cents of a dollar (never negative here)."""
    rest = (cents % 100).cast(pl.UInt32)
    tail = pl.when(rest != 0).then(pl.lit(_CENTS).gather(rest))
    return [pl.lit("US$ "), *group_parts(cents // 100)[1:], tail]


def dollars_column(cents: pl.Expr) -> pl.Expr:
    """``dollars`` of each amount of a column (``dollars_parts``)."""
    return joined(dollars_parts(cents))
