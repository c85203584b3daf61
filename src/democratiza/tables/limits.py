"""How much a file may ask of the reader: rows, what a workbook expands to, and time.

Why: an XLSX is a zip of XML, and a 2 MB file can expand to 1,5 GB (a "zip bomb") or
hold a sheet of 2 GB, which kept the reader busy for minutes and took gigabytes of memory;
the command line and the service read files alike, so both keep these limits. Before a
workbook is parsed, its zip directory is read: a workbook whose parts expand past
``xlsx_expanded`` bytes in all, or any large part more than ``xlsx_ratio`` times, is
refused without parsing it (a real workbook's XML compresses about ten times). While it
is read (``xlsx_sheet``, cell by cell), row numbers, time and the text held are checked at
every row. CSV is read by Polars, fast and
bounded by the file's own size; its rows are counted too.
"""

from __future__ import annotations

import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from democratiza.money import group
from democratiza.tables.errors import InputError, InputRejected

MIB = 1024 * 1024
RATIO_FROM = MIB  # parts smaller than this are too small to matter, whatever their ratio


@dataclass(frozen=True)
class ReadLimits:
    rows: int = 1_000_000  # data rows in one file
    xlsx_expanded: int = 128 * MIB  # a workbook's parts, uncompressed, in all
    xlsx_ratio: int = 100  # uncompressed ÷ compressed, for a part over 1 MiB
    xlsx_seconds: float = 120.0  # reading one workbook
    # the text a workbook's cells hold, read, is bounded by xlsx_expanded too (shared
    # strings repeat a text without repeating its bytes)
    clock: Callable[[], float] = field(default=time.monotonic, compare=False)


LIMITS = ReadLimits()
USE_CSV = "envíe el lote como CSV"


def _refuse(source: str, message: str) -> InputRejected:
    return InputRejected([InputError(source, None, None, message)])


def check_workbook(path: Path, limits: ReadLimits, unreadable: str) -> None:
    """Refuse a workbook that would expand too far, from its zip directory alone."""
    source = str(path)
    try:
        with zipfile.ZipFile(path) as book:
            parts = book.infolist()
    except (zipfile.BadZipFile, OSError):
        raise _refuse(source, unreadable) from None
    expanded = sum(p.file_size for p in parts)
    if expanded > limits.xlsx_expanded:
        raise _refuse(
            source,
            f"el libro se expande a {expanded // MIB} MiB al abrirlo, más que el límite de "
            f"{limits.xlsx_expanded // MIB} MiB; {USE_CSV}",
        )
    for part in parts:
        if part.file_size > RATIO_FROM and part.file_size > limits.xlsx_ratio * max(
            1, part.compress_size
        ):
            raise _refuse(
                source,
                f"la parte '{part.filename}' del libro se expande "
                f"{part.file_size // max(1, part.compress_size)} veces, más que el límite de "
                f"{limits.xlsx_ratio}; el archivo no parece un libro de Excel normal",
            )


def check_rows(source: str, rows: int, limits: ReadLimits) -> None:
    """Refuse a file with more data rows than ``limits.rows``."""
    if rows > limits.rows:
        raise _refuse(
            source,
            f"el archivo tiene más de {group(limits.rows)} filas de datos; "
            "divídalo en varios lotes",
        )
