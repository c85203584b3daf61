"""The one XLSX writer: typed cells, a bold frozen header in words, columns as wide as they read.

Why typed cells: a person who opens a broker's file in Excel sums the shares and the sums to
pay; a number stored as text cannot be summed, and a date as text cannot be sorted. So whole
numbers and decimals are numbers, dates and date-times are dates, and text is text, made
safe by ``tables.cells`` (a name can never come out as a formula).

Number formats: ``#,##0`` for whole numbers (shares, counts) and ``#,##0.00`` for amounts in
pesos (with as many more decimals, ``#,##0.00####``, as a price finer than a centavo has).
These are Excel's codes, not literal characters: Excel draws the thousands and decimal
separators of the computer's regional settings, so a Colombian Excel shows ``40.000.000`` and
``24.750.000,00`` and the same file still reads right elsewhere (``docs/formatos.md``).

A decimal with more than ``EXACT_DIGITS`` significant digits is written as text: Excel keeps
15 digits of a number, and a figure it would round is never shown rounded as a number.

The same data gives the same bytes: creation dates and the zip members' times are fixed.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from zipfile import ZIP_DEFLATED, ZipFile, ZipInfo

import polars as pl

from democratiza.tables.cells import safe_text

FIXED_DATE = datetime(2000, 1, 1)
EXACT_DIGITS = 15  # the significant digits Excel keeps of a number
WHOLE = "#,##0"
DATE = "yyyy-mm-dd"
DATE_TIME = "yyyy-mm-dd hh:mm:ss"
WIDEST = 60  # characters: a longer cell wraps in its column instead of widening it
YES, NO = "sí", "no"


class MissingTitle(KeyError):
    """A column written to a workbook has no title in words (a defect, caught by the tests)."""


def number_format(kind: pl.DataType) -> str | None:
    """Excel's format code for a column of ``kind``; None for text and yes/no."""
    if kind.is_integer():
        return WHOLE
    if isinstance(kind, pl.Decimal):
        extra = max(0, (kind.scale or 0) - 2)
        return f"{WHOLE}.00" + "#" * extra
    if isinstance(kind, pl.Datetime):
        return DATE_TIME
    if isinstance(kind, pl.Date):
        return DATE
    return None


def _shown(value: object) -> str:
    """The cell roughly as Excel shows it, to size its column."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return YES if value else NO
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, Decimal):
        return f"{value:,f}"
    if isinstance(value, datetime):
        return "0000-00-00 00:00:00"
    if isinstance(value, date):
        return "0000-00-00"
    return str(value)


def _exact_number(value: Decimal) -> bool:
    digits = value.normalize().as_tuple().digits
    return len(digits) <= EXACT_DIGITS


def widths(frame: pl.DataFrame, titles: list[str]) -> list[int]:
    """Each column as wide as its title or its widest cell, within ``WIDEST``."""
    found = []
    for title, name in zip(titles, frame.columns, strict=True):
        longest = max((len(_shown(v)) for v in frame[name].to_list()), default=0)
        found.append(min(WIDEST, max(len(title), longest) + 2))
    return found


def write_workbook(
    frame: pl.DataFrame, path: Path, sheet_title: str, titles: Mapping[str, str]
) -> None:
    """``frame`` as one sheet of ``path``: the header in words (``titles``: column → title),
    bold and frozen, typed cells with their formats, and a filter on the header.

    Why a write-only workbook with one cell per column, reused row after row: each row is
    written out as it is appended, so a broker's file of a hundred thousand rows neither
    holds a cell object per value nor looks its style up again for each.
    """
    from openpyxl import Workbook
    from openpyxl.cell.cell import Cell, WriteOnlyCell
    from openpyxl.styles import Alignment, Font
    from openpyxl.utils import get_column_letter

    missing = [c for c in frame.columns if c not in titles]
    if missing:
        raise MissingTitle(f"columnas sin título: {', '.join(missing)}")
    header = [titles[c] for c in frame.columns]
    book = Workbook(write_only=True)
    sheet = book.create_sheet(sheet_title[:31])
    for i, width in enumerate(widths(frame, header), start=1):
        sheet.column_dimensions[get_column_letter(i)].width = width
    sheet.freeze_panes = "A2"
    if frame.width:
        sheet.auto_filter.ref = f"A1:{get_column_letter(frame.width)}{frame.height + 1}"

    def text_cell(value: str) -> Cell:
        cell = WriteOnlyCell(sheet, safe_text(value))
        cell.data_type = "s"  # never a formula, whatever openpyxl would guess
        return cell

    bold, wrap = Font(bold=True), Alignment(wrap_text=True, vertical="top")
    titled = []
    for title in header:
        cell = text_cell(title)
        cell.font, cell.alignment = bold, wrap
        titled.append(cell)
    sheet.append(titled)
    numbers, texts = [], []
    for kind in frame.schema.values():
        number = WriteOnlyCell(sheet)
        shown = number_format(kind)
        if shown is not None:
            number.number_format = shown
        numbers.append(number)
        texts.append(WriteOnlyCell(sheet))

    def typed(value: object, column: int) -> object:
        if value is None:
            return None
        if isinstance(value, bool):
            value = YES if value else NO
        elif isinstance(value, Decimal) and not _exact_number(value):
            value = f"{value:f}"
        if isinstance(value, str):
            cell = texts[column]
            cell.value = safe_text(value)
            cell.data_type = "s"
            return cell
        cell = numbers[column]
        cell.value = value
        return cell

    for row in frame.iter_rows():
        sheet.append([typed(v, i) for i, v in enumerate(row)])
    _save_fixed(book, path)


def _save_fixed(book: object, path: Path) -> None:
    """Not ``book.save``: it stamps the save's time as the modified date, and every member of
    the zip gets the time it was written. Both fixed, the same data gives the same bytes."""
    from openpyxl.workbook.workbook import Workbook
    from openpyxl.writer.excel import ExcelWriter

    assert isinstance(book, Workbook)
    book.properties.created = FIXED_DATE
    book.properties.modified = FIXED_DATE
    written = io.BytesIO()
    with ZipFile(written, "w", ZIP_DEFLATED) as archive:
        ExcelWriter(book, archive).save()
    with ZipFile(written) as source, ZipFile(path, "w", ZIP_DEFLATED) as fixed:
        for member in source.infolist():
            stamped = ZipInfo(member.filename, date_time=FIXED_DATE.timetuple()[:6])
            stamped.compress_type = ZIP_DEFLATED
            fixed.writestr(stamped, source.read(member))
