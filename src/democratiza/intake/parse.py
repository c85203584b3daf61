"""Give each text column its type, collecting every bad cell instead of stopping at one.

Each column is parsed in one vectorised step; a cell that has text but no parsed value is
an error, reported with its row. Money is parsed straight into integer centavos from the
digits, so no amount ever passes through a float.
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from democratiza.intake.columns import (
    ACCEPTANCES,
    MAX_DOLLARS,
    MAX_PESOS,
    MAX_SHARES,
    Column,
    FileFormat,
)
from democratiza.intake.errors import InputError, InputRejected
from democratiza.intake.readers import RawTable

TRUE = ["si", "sí", "s", "x", "1", "true", "verdadero", "yes"]
FALSE = ["no", "n", "0", "false", "falso"]
DECIMAL = r"^(\d+)(?:\.(\d+))?$"


# A parser returns (typed value or null, error message or null) as two expressions.
Parsed = tuple[pl.Expr, pl.Expr]


def _money(col: pl.Expr, maximum: int, unit: str) -> Parsed:
    parts = col.str.extract_groups(DECIMAL)
    whole, frac = parts.struct.field("1"), parts.struct.field("2").fill_null("")
    ok = whole.is_not_null() & (frac.str.len_chars() <= 2) & (whole.str.len_chars() <= 16)
    cents = whole.cast(pl.Int64, strict=False) * 100 + frac.str.pad_end(2, "0").cast(
        pl.Int64, strict=False
    ).fill_null(0)
    value = pl.when(ok).then(cents)
    error = (
        pl.when(col.is_null())
        .then(None)
        .when(col.str.starts_with("-"))
        .then(pl.lit("monto negativo: '{}'"))
        .when(whole.is_not_null() & (frac.str.len_chars() > 2))
        .then(pl.lit("más de dos decimales: '{}'"))
        .when(whole.str.len_chars() > 16)
        .then(pl.lit("monto fuera de todo rango plausible: '{}'"))
        .when(~ok)
        .then(pl.lit(f"no es un monto en {unit}: '{{}}' (punto decimal, sin separador de miles)"))
        .when(value > maximum * 100)
        .then(pl.lit("monto fuera de todo rango plausible: '{}'"))
    )
    return value, error


def _quantity(col: pl.Expr) -> Parsed:
    parts = col.str.extract_groups(DECIMAL)
    whole = parts.struct.field("1")
    value = whole.cast(pl.Int64, strict=False)
    error = (
        pl.when(col.is_null())
        .then(pl.lit("falta la cantidad"))
        .when(col.str.starts_with("-"))
        .then(pl.lit("cantidad negativa: '{}'"))
        .when(value.is_null())
        .then(pl.lit("la cantidad no es un número: '{}'"))
        .when(value > MAX_SHARES)
        .then(pl.lit("cantidad fuera de todo rango plausible: '{}'"))
    )
    return value, error


def _integer(col: pl.Expr) -> Parsed:
    value = col.str.extract(r"^(\d{1,9})$").cast(pl.Int64, strict=False)
    return value, pl.when(col.is_not_null() & value.is_null()).then(
        pl.lit("no es un número entero no negativo: '{}'")
    )


def _flag(col: pl.Expr) -> Parsed:
    low = col.str.to_lowercase()
    value = (
        pl.when(col.is_null())
        .then(None)
        .when(low.is_in(TRUE))
        .then(True)
        .when(low.is_in(FALSE))
        .then(False)
    )
    return value, pl.when(col.is_not_null() & value.is_null()).then(
        pl.lit("se espera si o no: '{}'")
    )


def _date(col: pl.Expr) -> Parsed:
    value = col.str.to_date("%Y-%m-%d", strict=False)
    return value, pl.when(col.is_not_null() & value.is_null()).then(
        pl.lit("fecha no válida (AAAA-MM-DD): '{}'")
    )


def _datetime(col: pl.Expr) -> Parsed:
    value = pl.coalesce(
        col.str.to_datetime("%Y-%m-%dT%H:%M:%S", strict=False, time_unit="us"),
        col.str.to_datetime("%Y-%m-%dT%H:%M", strict=False, time_unit="us"),
        col.str.to_datetime("%Y-%m-%d %H:%M:%S", strict=False, time_unit="us"),
        col.str.to_date("%Y-%m-%d", strict=False).cast(pl.Datetime("us")),
    )
    return value, pl.when(col.is_not_null() & value.is_null()).then(
        pl.lit("fecha y hora no válida (AAAA-MM-DDTHH:MM): '{}'")
    )


def _text(column: Column, codes: tuple[str, ...] | None) -> Parsed:
    col = pl.col(column.name)
    errors = [pl.lit(None, dtype=pl.String)]
    if column.required:
        errors.append(pl.when(col.is_null()).then(pl.lit("campo obligatorio vacío")))
    if codes:
        listed = ", ".join(codes)
        errors.append(
            pl.when(col.is_not_null() & ~col.is_in(list(codes))).then(
                pl.lit(f"valor desconocido '{{}}'; se admite: {listed}")
            )
        )
    value = pl.when(col.is_in(list(codes))).then(col) if codes else col
    return value, pl.coalesce(errors)


PARSERS: dict[str, Callable[[pl.Expr], Parsed]] = {
    "pesos": lambda c: _money(c, MAX_PESOS, "pesos"),
    "dolares": lambda c: _money(c, MAX_DOLLARS, "dólares"),
    "cantidad": _quantity,
    "entero": _integer,
    "si_no": _flag,
    "fecha": _date,
    "fecha_hora": _datetime,
}


def _column_errors(raw: RawTable, fmt: FileFormat) -> list[InputError]:
    names = [c for c in raw.frame.columns if c != "fila"]
    known = fmt.by_name
    errors = [InputError(raw.source, 1, n, "columna desconocida") for n in names if n not in known]
    errors += [
        InputError(raw.source, 1, c.name, "falta esta columna obligatoria")
        for c in fmt.columns
        if c.required and c.name not in names
    ]
    return errors


def parse(raw: RawTable, fmt: FileFormat = ACCEPTANCES) -> pl.DataFrame:
    """Typed rows (``fmt.typed_schema()``), or ``InputRejected`` with every error."""
    errors = _column_errors(raw, fmt)
    if errors:
        raise InputRejected(errors)
    frame = raw.frame.with_columns(
        pl.lit(None, dtype=pl.String).alias(c.name)
        for c in fmt.columns
        if c.name not in raw.frame.columns
    )
    schema = fmt.typed_schema()
    values, messages = [], []
    for column in fmt.columns:
        if column.kind == "texto":
            value, error = _text(column, fmt.codes.get(column.name))
        else:
            value, error = PARSERS[column.kind](pl.col(column.name))
        values.append(value.cast(schema[column.name]).alias(column.name))
        messages.append(error.alias(column.name))
    extra = []
    if "cantidad_fraccionaria" in schema:
        fraction = pl.col("cantidad").str.extract(DECIMAL, 2).str.strip_chars_end("0") != ""
        extra.append(fraction.fill_null(False).alias("cantidad_fraccionaria"))
    repeated = pl.col(fmt.key).is_duplicated() if fmt.key else pl.lit(False)
    # One boolean per row says whether anything is wrong; the Spanish messages are built only
    # for the rows that have errors, so a clean million-row file carries no message columns.
    typed = frame.select(
        "fila",
        *values,
        *extra,
        (pl.any_horizontal(m.is_not_null() for m in messages) | repeated).alias("_bad"),
    )
    bad = frame.filter(typed["_bad"])
    if bad.height:
        duplicated = frame.filter(repeated)[fmt.key] if fmt.key else pl.Series([], dtype=pl.String)
        raise InputRejected(_collect(raw.source, bad, messages, duplicated, fmt))
    return typed.select(list(schema))


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
    for text, row in zip(bad.iter_rows(named=True), found.iter_rows(named=True), strict=True):
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
