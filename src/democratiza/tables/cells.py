"""Text cells made safe to open in a spreadsheet: the one place every exported file uses.

Why: a name filed as ``=HYPERLINK(...)`` would come out of an export as a live formula in
the hands of whoever opens it (OWASP, "CSV Injection"). As OWASP recommends, a text cell
that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a single quote
in front, which spreadsheets show as text. A cell that is only a number (a sign, digits,
separators, a percent sign: ``-1234.50``, ``-3,2 %``) is left as it is: it can call
nothing, and an amount keeps reading as an amount. Numbers, dates and booleans are not
text and are never touched; column names are text cells too.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Any

import polars as pl

# Patterns shared by the cell-by-cell and the column-wise forms, so both decide alike.
_STARTS = "=+-@\t\r"  # what a risky cell starts with
_STARTS_DANGEROUS = "^[" + _STARTS.replace("-", "\\-") + "]"
_ONLY_A_NUMBER = r"^[-+]?[\d.,\s%]+$"
_DANGEROUS = re.compile(_STARTS_DANGEROUS)
_NUMBER = re.compile(_ONLY_A_NUMBER)
QUOTE = "'"


def safe_text(text: str) -> str:
    """The text as a spreadsheet will show it and never run it."""
    if _DANGEROUS.match(text) and not _NUMBER.match(text):
        return QUOTE + text
    return text


def safe_cell(value: object) -> object:
    """A cell of a row written by hand: text made safe, anything else as it is."""
    return safe_text(value) if isinstance(value, str) else value


def safe_row(values: Iterable[object]) -> list[object]:
    return [safe_cell(v) for v in values]


def safe_mapping(row: Mapping[str, object]) -> dict[str, object]:
    return {k: safe_cell(v) for k, v in row.items()}


def _safe(column: pl.Expr) -> pl.Expr:
    text = column.cast(pl.String)
    risky = text.str.contains(_STARTS_DANGEROUS) & ~text.str.contains(_ONLY_A_NUMBER)
    return pl.when(risky).then(pl.lit(QUOTE) + text).otherwise(text)


def safe_frame(frame: pl.DataFrame) -> pl.DataFrame:
    """Every text column (and every column name) made safe; other columns unchanged."""
    texts = [
        name
        for name, kind in frame.schema.items()
        if kind == pl.String or isinstance(kind, (pl.Categorical, pl.Enum))
    ]
    # Only the columns with a cell that starts like a formula are rewritten. Why: the
    # patterns cost a regular expression on every cell, most of writing a decision file
    # (long sentences, none risky); the first character alone is a cheap pass.
    starts = list(_STARTS)
    risky = frame.select(
        pl.col(name).cast(pl.String).str.slice(0, 1).is_in(starts).any().alias(name)
        for name in texts
    )
    texts = [name for name in texts if risky[name].item()]
    if texts:
        frame = frame.with_columns(_safe(pl.col(name)).alias(name) for name in texts)
    return frame.rename({c: safe_text(c) for c in frame.columns if safe_text(c) != c})


# How an exported CSV separates its fields and writes its decimals: by default a comma and a
# dot ('24750000.00'), for the programs that read it; with ``;``, a comma decimal
# ('24750000,00'), the file a Colombian Excel opens as columns of numbers
# (``--separador ;``, ``docs/formatos.md``). The header is the same either way.
SEPARATORS: dict[str, dict[str, Any]] = {
    ",": {},
    ";": {"separator": ";", "decimal_comma": True},
}


def csv_style(separator: str) -> dict[str, Any]:
    """The writer's options for ``separator`` (',' or ';'); another is refused."""
    if separator not in SEPARATORS:
        raise ValueError(
            f"separador desconocido '{separator}': se admite ',' (punto decimal) o ';' "
            "(coma decimal, para Excel en español)"
        )
    return SEPARATORS[separator]


def write_csv(frame: pl.DataFrame, target: str | Path | IO[bytes], **options: Any) -> None:
    """The frame as an exported CSV (Polars' writer, its options), text cells made safe."""
    safe_frame(frame).write_csv(target, **options)


def csv_bytes(frame: pl.DataFrame, **options: Any) -> bytes:
    buffer = io.BytesIO()
    write_csv(frame, buffer, **options)
    return buffer.getvalue()


def csv_text(header: Iterable[str], rows: Iterable[Iterable[object]]) -> str:
    """Rows written by hand as an exported CSV (header first), text cells made safe."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(safe_row(header))
    writer.writerows(safe_row(r) for r in rows)
    return out.getvalue()
