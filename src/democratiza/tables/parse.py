"""Give each text column its type, collecting every bad cell instead of stopping at one.

Each column is parsed in one vectorised step; a cell that has text but no parsed value is
an error, reported with its row. Money is parsed straight into integer centavos from the
digits, so no amount ever passes through a float.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import polars as pl

from democratiza.money import (
    AMOUNT_DIGITS,
    AMOUNT_EXAMPLES,
    AMOUNT_PATTERN,
    TOO_FINE_PATTERN,
    amount_centavos,
)
from democratiza.tables.acceptances import ACCEPTANCES
from democratiza.tables.errors import InputError, InputRejected
from democratiza.tables.format import (
    MAX_DOLLARS,
    MAX_PESOS,
    MAX_SHARES,
    MAX_YEAR,
    MIN_YEAR,
    Column,
    FileFormat,
)
from democratiza.tables.readers import FEW_ROWS, RawTable

TRUE = ["si", "sí", "s", "x", "1", "true", "verdadero", "yes"]
FALSE = ["no", "n", "0", "false", "falso"]
# A quantity of shares as pesos are written (``money``): a dot before exactly three digits
# groups thousands ('40.000.000'); otherwise a dot or a comma starts a fraction, which is
# read so the rules can refuse it ('10.5'). Groups: thousands-grouped whole and its
# fraction, then plain whole and its fraction.
QUANTITY = r"^(?:(\d{1,3}(?:\.\d{3})+)(?:,(\d+))?|(\d+)(?:[.,](\d+))?)$"


# A parser returns (typed value or null, error message or null) as two expressions.
Parsed = tuple[pl.Expr, pl.Expr]

# The largest typed value each kind admits (money in cents); beyond it, "fuera de todo rango".
MAXIMA = {"pesos": MAX_PESOS * 100, "dolares": MAX_DOLLARS * 100, "cantidad": MAX_SHARES}


def _money(col: pl.Expr, maximum: int, unit: str) -> Parsed:
    """An amount in the grammar of ``money`` (``AMOUNT_PATTERN``), in centavos or cents.

    The value read here is only that of a cell of plain digits (a cast, without a regex: most
    amounts are written so); ``_written_amounts`` then reads every other cell by the
    grammar, on those cells alone. The message reads the cell again: messages are built
    only for the rows that have an error.
    """
    signed = _signed(col)
    value = pl.when(~signed & (col.str.len_bytes() <= AMOUNT_DIGITS)).then(
        col.cast(pl.Int64, strict=False) * 100
    )
    whole = _amount(_amount_groups(col))[0]
    error = (
        pl.when(col.is_null())
        .then(None)
        .when(col.str.starts_with("-"))
        .then(pl.lit("monto negativo: '{}'"))
        .when(whole.str.len_chars() > AMOUNT_DIGITS)
        .then(pl.lit("monto fuera de todo rango plausible: '{}'"))
        .when(whole.is_null() & col.str.contains(TOO_FINE_PATTERN))
        .then(pl.lit("más de dos decimales: '{}'"))
        .when(whole.is_null())
        .then(pl.lit(f"no es un monto en {unit}: '{{}}' (se escribe {AMOUNT_EXAMPLES})"))
        .when(_amount_value(col) > maximum)
        .then(pl.lit("monto fuera de todo rango plausible: '{}'"))
    )
    return value, error


def _signed(col: pl.Expr) -> pl.Expr:
    """Whether the cell begins with a sign, '+' or '-', which a cast to an integer would take.

    Told by its first byte lying between them (a ',' too, which no cast takes): two
    comparisons of the texts, several times cheaper than two ``str.starts_with``.
    """
    return (col >= "+") & (col < ".")


def _amount_groups(col: pl.Expr) -> pl.Expr:
    """The grammar's groups of each cell (a struct; its fields null where it does not fit)."""
    return col.str.extract_groups(AMOUNT_PATTERN)


def _amount(groups: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """(whole pesos, their cents) as written, from the grammar's ``groups``."""
    grouped = groups.struct.field("grouped").str.replace_all(".", "", literal=True)
    whole = pl.coalesce(groups.struct.field("plain"), grouped)
    cents = pl.coalesce(groups.struct.field("plain_cents"), groups.struct.field("grouped_cents"))
    return whole, cents


def _amount_value(col: pl.Expr) -> pl.Expr:
    """The cell's centavos by the grammar (null if it does not fit it, or is implausible)."""
    return _amount_of_groups(_amount_groups(col))


def _amount_of_groups(groups: pl.Expr) -> pl.Expr:
    whole, cents = _amount(groups)
    return pl.when(whole.str.len_chars() <= AMOUNT_DIGITS).then(
        whole.cast(pl.Int64, strict=False) * 100
        + cents.str.pad_end(2, "0").cast(pl.Int64, strict=False).fill_null(0)
    )


def _read_the_rest(typed: pl.DataFrame, fmt: FileFormat) -> pl.DataFrame:
    """Every cell the first, cheap reading left unread, read in full (``SECOND_READ``): an
    amount with decimals or thousands dots by the grammar, a yes or no written otherwise
    than 'si' or 'no'.

    Only those cells are read, so a file of plain amounts pays for no regex at all, and one
    of 'si' and 'no' for no lower-casing. A few rows (single acceptances filed at once,
    ``FEW_ROWS``) are read otherwise, to the same values: there the cost is Polars planning,
    not the reading (a frame, a select and a scatter for each such column, mostly planning
    the grammar's regex, took half of typing a group of 30 single acceptances, where amounts
    with centavos are usual). So an amount is read in Python by the very grammar
    (``money.amount_centavos``), and any other kind in the one select of every column that
    has an unread cell, a cell read first keeping its first value.
    """
    few = typed.height <= FEW_ROWS
    read: list[pl.Expr | pl.Series] = []
    for column in fmt.columns:
        second = SECOND_READ.get(column.kind)
        if second is None:
            continue
        name = column.name
        written, value = typed[_written(name)], typed[name]
        unread = written.is_not_null() & value.is_null()
        if not unread.any():
            continue
        fraction = column.kind == "cantidad" and FRACTION in typed.columns
        if few and second is _amount_value:
            cells = zip(written.to_list(), value.to_list(), unread.to_list(), strict=True)
            values = [amount_centavos(w) if u else v for w, v, u in cells]
            read.append(pl.Series(name, values, dtype=typed.schema[name]))
        elif few:
            cell = pl.col(_written(name))
            is_unread = cell.is_not_null() & pl.col(name).is_null()
            read.append(pl.when(is_unread).then(second(cell)).otherwise(pl.col(name)).alias(name))
            if fraction:
                had = pl.col(FRACTION)
                read.append(pl.when(is_unread).then(_fraction(cell)).otherwise(had).alias(FRACTION))
        else:
            at = unread.arg_true()
            unread_cells = pl.DataFrame({"celda": written.gather(at)})
            reading = second(pl.col("celda"))
            if second is _amount_value:
                # The groups matched once, in a column: each use of them in one expression
                # matched the regex again (this took most of reading an amount's cells).
                groups = _amount_groups(pl.col("celda")).alias("grupos")
                unread_cells = unread_cells.with_columns(groups)
                reading = _amount_of_groups(pl.col("grupos"))
            cells_read = unread_cells.select(
                reading.alias(name),
                *([_fraction(pl.col("celda")).alias(FRACTION)] if fraction else []),
            )
            read += [typed[c].clone().scatter(at, cells_read[c]) for c in cells_read.columns]
    return typed.with_columns(read) if read else typed


FRACTION = "cantidad_fraccionaria"  # beside a quantity: written with a decimal part


def _quantity_whole(parts: pl.Expr) -> pl.Expr:
    grouped = parts.struct.field("1").str.replace_all(".", "", literal=True)
    return pl.coalesce(grouped, parts.struct.field("3"))


def _quantity_fraction(parts: pl.Expr) -> pl.Expr:
    return pl.coalesce(parts.struct.field("2"), parts.struct.field("4"))


def _quantity_value(col: pl.Expr) -> pl.Expr:
    """The whole shares of a quantity as written (``QUANTITY``), null if it does not fit."""
    return _quantity_whole(_quantity_groups(col)).cast(pl.Int64, strict=False)


def _fraction(col: pl.Expr) -> pl.Expr:
    """Whether a quantity is written with a decimal part other than zeros."""
    decimals = _quantity_fraction(_quantity_groups(col))
    return (decimals.str.strip_chars_end("0") != "").fill_null(False)


QUANTITY_DIGITS = 18  # the digits an Int64 always holds


def _quantity(col: pl.Expr) -> Parsed:
    """Read first by a cast, as nearly every quantity is plain digits (no regex, no decimal
    part); ``_read_the_rest`` reads any other cell by ``_quantity_value``, as the message
    does, and says whether it has a decimal part (``FRACTION``)."""
    signed = _signed(col)
    first = pl.when(~signed & (col.str.len_bytes() <= QUANTITY_DIGITS)).then(
        col.cast(pl.Int64, strict=False)
    )
    value = _quantity_value(col)
    error = (
        pl.when(col.is_null())
        .then(pl.lit("falta la cantidad"))
        .when(col.str.starts_with("-"))
        .then(pl.lit("cantidad negativa: '{}'"))
        .when(value.is_null())
        .then(pl.lit("la cantidad no es un número: '{}'"))
        .when(value > MAXIMA["cantidad"])
        .then(pl.lit("cantidad fuera de todo rango plausible: '{}'"))
    )
    return first, error


def _integer(col: pl.Expr) -> Parsed:
    value = col.str.extract(r"^(\d{1,9})$").cast(pl.Int64, strict=False)
    return value, pl.when(col.is_not_null() & value.is_null()).then(
        pl.lit("no es un número entero no negativo: '{}'")
    )


FLAG_WORDS = {**dict.fromkeys(TRUE, True), **dict.fromkeys(FALSE, False)}


def _flag_value(col: pl.Expr) -> pl.Expr:
    """One lookup per cell: any other word (and an empty cell) has no value."""
    return col.str.to_lowercase().replace_strict(FLAG_WORDS, default=None, return_dtype=pl.Boolean)


def _flag(col: pl.Expr) -> Parsed:
    """Read first as the words nearly every file writes, 'si' and 'no' (two comparisons,
    far cheaper than lower-casing each cell); ``_read_the_rest`` reads any other cell by
    ``_flag_value``, as the message does."""
    value = pl.when(col == "si").then(True).when(col == "no").then(False)
    return value, pl.when(col.is_not_null() & _flag_value(col).is_null()).then(
        pl.lit("se espera si o no: '{}'")
    )


IMPLAUSIBLE_DATE = f"fecha fuera de todo rango plausible (años {MIN_YEAR} a {MAX_YEAR}): '{{}}'"


def _plausible(value: pl.Expr) -> pl.Expr:
    """The date only within ``MIN_YEAR``..``MAX_YEAR`` (a year 0 is a typo no database takes)."""
    return pl.when(value.dt.year().is_between(MIN_YEAR, MAX_YEAR)).then(value)


def _read_date(col: pl.Expr) -> pl.Expr:
    return col.str.to_date("%Y-%m-%d", strict=False)


def _date(col: pl.Expr, read: pl.Expr) -> Parsed:
    """A date as written (``read``: computed once by ``_plan``'s prepared columns, as both
    the value and the message read it)."""
    error = (
        pl.when(col.is_not_null() & read.is_null())
        .then(pl.lit("fecha no válida (AAAA-MM-DD): '{}'"))
        .when(read.is_not_null() & _plausible(read).is_null())
        .then(pl.lit(IMPLAUSIBLE_DATE))
    )
    return _plausible(read), error


DATETIME_FORMATS = ("%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S")


def _first_format(col: pl.Expr) -> pl.Expr:
    # No cache: a filing's date and time is nearly always its own; caching every distinct
    # text took longer than parsing it (the dates' cache pays: a file has few dates).
    return col.str.to_datetime(DATETIME_FORMATS[0], strict=False, time_unit="us", cache=False)


def _datetime(col: pl.Expr, first: pl.Expr) -> Parsed:
    """The first of the formats that reads the cell (a bare date is midnight).

    Why the first format apart (``first``, computed once by ``_plan``'s prepared columns):
    a format that does not fit costs Polars a slow parse of every cell it is given, so the
    other formats read only the cells the first one left unread.
    """
    left = pl.when(first.is_null()).then(col)
    read = pl.coalesce(
        first,
        *(left.str.to_datetime(fmt, strict=False, time_unit="us") for fmt in DATETIME_FORMATS[1:]),
        left.str.to_date("%Y-%m-%d", strict=False).cast(pl.Datetime("us")),  # a bare date
    )
    error = (
        pl.when(col.is_not_null() & read.is_null())
        .then(pl.lit("fecha y hora no válida (AAAA-MM-DDTHH:MM): '{}'"))
        .when(read.is_not_null() & _plausible(read).is_null())
        .then(pl.lit(IMPLAUSIBLE_DATE))
    )
    return _plausible(read), error


def _text(column: Column, codes: tuple[str, ...] | None) -> Parsed:
    """Free text, or one of the column's codes (an empty required cell: see ``_plan``)."""
    col = pl.col(column.name)
    if not codes:
        return col, pl.lit(None, dtype=pl.String)
    listed = ", ".join(codes)
    error = pl.when(col.is_not_null() & ~col.is_in(list(codes))).then(
        pl.lit(f"valor desconocido '{{}}'; se admite: {listed}")
    )
    # A cell that is none of the codes is null: the cast, not strict, tells it (cheaper than
    # looking each cell up in the list and casting it after).
    return col.cast(pl.Enum(list(codes)), strict=False), error


# Each parser gets the column and its prepared column (``PREPARED``, see ``_plan``).
PARSERS: dict[str, Callable[[pl.Expr, pl.Expr], Parsed]] = {
    "pesos": lambda c, _: _money(c, MAXIMA["pesos"], "pesos"),
    "dolares": lambda c, _: _money(c, MAXIMA["dolares"], "dólares"),
    "cantidad": lambda c, _: _quantity(c),
    "entero": lambda c, _: _integer(c),
    "si_no": lambda c, _: _flag(c),
    "fecha": _date,
    "fecha_hora": _datetime,
}
# What reads a cell the first reading left unread (``_read_the_rest``).
SECOND_READ: dict[str, Callable[[pl.Expr], pl.Expr]] = {
    "pesos": _amount_value,
    "dolares": _amount_value,
    "si_no": _flag_value,
    "cantidad": _quantity_value,
}


def _quantity_groups(col: pl.Expr) -> pl.Expr:
    return col.str.extract_groups(QUANTITY)


# What several expressions of a column read, computed once in a column of its own: a date,
# and a date-time's first format. (A quantity's regex groups are read only for the cells the
# cast leaves unread, ``_read_the_rest``, and for the rows that have an error.)
PREPARED: dict[str, Callable[[pl.Expr], pl.Expr]] = {
    "fecha": _read_date,
    "fecha_hora": _first_format,
}


def _prepared(name: str) -> str:
    return f"_preparado_{name}"


def _written(name: str) -> str:
    return f"_escrito_{name}"


def _is_wrong(column: Column) -> pl.Expr:
    """Whether a cell fails its column: it has text but no typed value (not a number, a
    date, a known code...), it is empty but required, or its value passes the kind's
    maximum. Exactly the cells the column's message describes (``tests/test_intake.py``
    checks both on every kind of cell); the messages are built only for the rows that
    fail, and these checks read the typed values instead of parsing the text again.
    """
    written, value = pl.col(_written(column.name)), pl.col(column.name)
    wrong = written.is_not_null() & value.is_null()
    if column.required:
        wrong = wrong | written.is_null()
    if column.kind in MAXIMA:
        wrong = wrong | (value > MAXIMA[column.kind]).fill_null(False)
    return wrong


def column_errors(source: str, names: Sequence[str], fmt: FileFormat) -> list[InputError]:
    """Unknown columns and missing required ones (reported on the header, row 1)."""
    names = [c for c in names if c != "fila"]
    known = fmt.by_name
    errors = [InputError(source, 1, n, "columna desconocida") for n in names if n not in known]
    errors += [
        InputError(source, 1, c.name, "falta esta columna obligatoria")
        for c in fmt.columns
        if c.required and c.name not in names
    ]
    return errors


@dataclass(frozen=True)
class _Plan:
    """A format's parsing expressions: built once, reused for every file of that format.

    Why cached: building the few hundred Polars expressions costs milliseconds of Python,
    as much as typing a small file; a single acceptance filed over HTTP should not pay it.
    Expressions are immutable, so sharing them between threads is safe.
    """

    schema: dict[str, pl.DataType]
    prepared: list[pl.Expr]  # ``PREPARED`` of each column that has one
    values: list[pl.Expr]
    messages: list[pl.Expr]
    extra: list[pl.Expr]
    repeated: pl.Expr
    written: list[pl.Expr]  # each cell as written, beside its typed value
    flags: list[pl.Expr]  # one boolean column per check: is something wrong there? (the
    # cells' checks, then the repeated key's)


_PLANS: dict[int, tuple[FileFormat, _Plan]] = {}


def _plan(fmt: FileFormat) -> _Plan:
    cached = _PLANS.get(id(fmt))
    if cached is not None and cached[0] is fmt:
        return cached[1]
    schema = fmt.typed_schema()
    prepared = [
        PREPARED[c.kind](pl.col(c.name)).alias(_prepared(c.name))
        for c in fmt.columns
        if c.kind in PREPARED
    ]
    values, messages = [], []
    for column in fmt.columns:
        if column.kind == "texto":
            value, error = _text(column, fmt.codes.get(column.name))
        else:
            parser = PARSERS[column.kind]
            value, error = parser(pl.col(column.name), pl.col(_prepared(column.name)))
        if column.required:  # every required column, whatever its kind, says so when empty
            empty = pl.when(pl.col(column.name).is_null()).then(pl.lit("campo obligatorio vacío"))
            error = pl.coalesce(error, empty)
        values.append(value.cast(schema[column.name]).alias(column.name))
        messages.append(error.alias(column.name))
    extra = []
    if FRACTION in schema:
        # Only a cell the cast did not read can have a decimal part (``_read_the_rest``).
        extra.append(pl.lit(False).alias(FRACTION))
    repeated = pl.col(fmt.key).is_duplicated() if fmt.key else pl.lit(False)
    written = [pl.col(c.name).alias(_written(c.name)) for c in fmt.columns]
    flags = [_is_wrong(c).alias(f"_malo_{i}") for i, c in enumerate(fmt.columns)]
    flags.append(repeated.alias("_malo_repetida"))
    plan = _Plan(schema, prepared, values, messages, extra, repeated, written, flags)
    _PLANS[id(fmt)] = (fmt, plan)
    return plan


def parse(raw: RawTable, fmt: FileFormat = ACCEPTANCES) -> pl.DataFrame:
    """Typed rows (``fmt.typed_schema()``), or ``InputRejected`` with every error."""
    typed, errors = parse_rows(raw, fmt)
    if errors:
        raise InputRejected(errors)
    return typed


def parse_rows(
    raw: RawTable, fmt: FileFormat = ACCEPTANCES
) -> tuple[pl.DataFrame, list[InputError]]:
    """The good rows typed, and every error of the bad rows (by row, as people see them).

    Why both: a file is refused whole (``parse``), but a group of single acceptances filed
    at once is typed together and each bad one is refused alone, with exactly the errors it
    would have had on its own. Column errors concern the whole table and are raised.
    """
    errors = column_errors(raw.source, raw.frame.columns, fmt)
    if errors:
        raise InputRejected(errors)
    plan = _plan(fmt)
    frame = raw.frame.with_columns(
        pl.lit(None, dtype=pl.String).alias(c.name)
        for c in fmt.columns
        if c.name not in raw.frame.columns
    )
    # Prepared once, in columns of their own: every value and message of such a column
    # reads them (matching the regex again in each expression made typing even a single
    # row cost milliseconds of planning; a select computes a repeated expression again).
    if plan.prepared:
        frame = frame.with_columns(plan.prepared)
    # Typed first; then one boolean per check and row, read from the typed values beside
    # the cells as written (``_is_wrong``), says whether anything is wrong. The Spanish
    # messages are built only for the rows that have errors, so a clean million-row file
    # carries no message columns, and a few single acceptances do not pay for planning
    # them (typing those is mostly the planning of these expressions).
    typed = _typed(frame, plan, fmt)
    key = fmt.key
    repeats = key is not None and _may_repeat(typed[key])
    flags = plan.flags if repeats else plan.flags[:-1]
    is_bad = typed.select(pl.any_horizontal(flags)).to_series()
    bad = frame.filter(is_bad)
    if not bad.height:
        return typed.select(list(plan.schema)), []
    duplicated = pl.Series([], dtype=pl.String)
    if key is not None and repeats:
        duplicated = frame.filter(plan.repeated)[key]
    found = _collect(raw.source, bad, plan.messages, duplicated, fmt)
    return typed.filter(~is_bad).select(list(plan.schema)), found


def _may_repeat(key: pl.Series) -> bool:
    """Whether two cells of the key may be equal: only if two of their hashes are (equal
    cells, two empty ones, or a collision), told by counting distinct 64-bit numbers,
    several times cheaper than looking for repeated texts; ``plan.repeated`` then finds
    them exactly."""
    return key.hash().n_unique() < key.len()


def _typed(frame: pl.DataFrame, plan: _Plan, fmt: FileFormat) -> pl.DataFrame:
    """Each column's typed value beside the cell as written (the frame as prepared)."""
    first = frame.select("fila", *plan.values, *plan.extra, *plan.written)
    return _read_the_rest(first, fmt)


def _collect(
    source: str,
    bad: pl.DataFrame,
    messages: list[pl.Expr],
    duplicated: pl.Series,
    fmt: FileFormat,
) -> list[InputError]:
    """Every error of the rows that have one, with the cell as the broker wrote it."""
    found = bad.select("fila", *(m.name.prefix("_e_") for m in messages))
    errors = []
    # The cells as written only: a prepared column may hold a value Python cannot (year 0).
    written = bad.select(c.name for c in fmt.columns)
    for text, row in zip(written.iter_rows(named=True), found.iter_rows(named=True), strict=True):
        for column in fmt.columns:
            message = row[f"_e_{column.name}"]
            if message is not None:
                cell = str(text[column.name])[:60]
                errors.append(
                    InputError(source, row["fila"], column.name, message.replace("{}", cell))
                )
        if fmt.key and text[fmt.key] in duplicated:
            errors.append(
                InputError(
                    source,
                    row["fila"],
                    fmt.key,
                    f"{fmt.key} repetida en el archivo: '{text[fmt.key]}'",
                )
            )
    return errors
