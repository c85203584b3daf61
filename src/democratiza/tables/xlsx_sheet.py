"""A workbook's first sheet, streamed cell by cell: only the cells it holds, never padding.

Why not openpyxl's ``iter_rows``: it pads every row to the sheet's declared dimension and
yields a row for every missing row number, so a 2,5 KB workbook declaring ``A1:XFD1000000``
with one cell in row 1.000.000 asked for a thousand million cells (gigabytes). Here the
sheet's XML is read element by element and each element is dropped once read: a missing
row or column costs nothing, cells right of the header are ignored, a row number past the
rows a file may have is refused the moment it appears, and the time and the text held are
checked at every row (and every ``CELLS_BETWEEN_LOOKS`` cells of a row, however long).

A formula without its computed value is reported in the same pass (a cell that would be
read as empty only because the program that wrote it never computed it).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from democratiza.money import group
from democratiza.tables.errors import InputError, InputRejected
from democratiza.tables.limits import MIB, USE_CSV, ReadLimits, check_rows

MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
ROW, CELL, SHEET_DATA, FORMULA = f"{MAIN}row", f"{MAIN}c", f"{MAIN}sheetData", f"{MAIN}f"
EXCEL_COLUMNS = 16_384  # column XFD: no workbook Excel writes has more
CELLS_BETWEEN_LOOKS = 1_000  # cells of one row between two looks at the clock


@dataclass(frozen=True)
class SheetRow:
    number: int  # the row as the workbook numbers it (1 is the header)
    values: dict[int, object]  # column (1 = A) → value, only the cells that hold one


@dataclass(frozen=True)
class Formula:
    row: int
    column: int
    text: str  # as a person types it, "=1000+853"


def _refuse(source: str, message: str) -> InputRejected:
    return InputRejected([InputError(source, None, None, message)])


def _rows(n: int) -> str:
    return "1 fila" if n == 1 else f"{group(n)} filas"


class _Budget:
    """The clock and the text held, looked at as the sheet is read."""

    def __init__(self, source: str, limits: ReadLimits) -> None:
        self.source, self.limits = source, limits
        self.until = limits.clock() + limits.xlsx_seconds
        self.held = 0
        self.rows = 0

    def look(self) -> None:
        if self.limits.clock() > self.until:
            raise _refuse(
                self.source,
                f"el libro tardó más de {group(round(self.limits.xlsx_seconds))} segundos en "
                f"leerse (llevaba {_rows(self.rows)}); {USE_CSV}",
            )

    def hold(self, value: object) -> None:
        self.held += len(value) if isinstance(value, str) else 8
        if self.held > self.limits.xlsx_expanded:
            raise _refuse(
                self.source,
                f"las celdas del libro suman más de {self.limits.xlsx_expanded // MIB} MiB de "
                f"texto al leerlas (llevaba {_rows(self.rows)}); {USE_CSV}",
            )


def sheet_rows(
    book: Any, source: str, limits: ReadLimits, formulas: list[Formula]
) -> Iterator[SheetRow]:
    """The first sheet's rows that hold a value, in order; row 1 (the header) always first.

    Cells right of the header's last named column are skipped once the header is read.
    Formulas found without their computed value are appended to ``formulas``.
    """
    from openpyxl.worksheet._reader import WorkSheetParser
    from openpyxl.xml.functions import iterparse

    sheet = book.worksheets[0]
    parser = WorkSheetParser(
        None,
        sheet._shared_strings,
        data_only=True,
        epoch=book.epoch,
        date_formats=book._date_formats,
        timedelta_formats=book._timedelta_formats,
    )
    budget = _Budget(source, limits)
    width = EXCEL_COLUMNS  # until the header is read
    header_seen = False
    values: dict[int, object] = {}
    cells = 0
    data: Any = None
    with book._archive.open(sheet._worksheet_path) as xml:
        for event, element in iterparse(xml, events=("start", "end")):
            tag = element.tag
            if event == "start":
                if tag == ROW:
                    parser.row_counter = _row_number(source, element.get("r"), parser.row_counter)
                    parser.col_counter = 0
                    check_rows(source, parser.row_counter - 1, limits)  # 1 is the header
                    values, cells = {}, 0
                elif tag == SHEET_DATA:
                    data = element
                continue
            if tag == CELL:
                cells += 1
                if cells % CELLS_BETWEEN_LOOKS == 0:
                    budget.look()
                _cell(source, parser, element, width, values, formulas, budget)
                element.clear()
            elif tag == ROW:
                budget.rows += 1
                budget.look()
                row = parser.row_counter
                if row > 1 and not header_seen:
                    header_seen = True
                    width = 0
                    yield SheetRow(1, {})
                if row == 1:
                    header_seen = True
                    width = _width(values)
                if values or row == 1:
                    yield SheetRow(row, values)
                element.clear()
                if data is not None:
                    data.clear()  # the rows read are dropped, not kept under sheetData
    if not header_seen:
        yield SheetRow(1, {})


def _row_number(source: str, given: str | None, previous: int) -> int:
    if given is None:
        return previous + 1
    try:
        number = int(given)
    except ValueError:
        number = 0
    if number <= previous:  # Excel writes rows in order, each once
        raise _refuse(source, f"el libro numera mal sus filas: la fila «{given[:20]}»")
    return number


def _cell(
    source: str,
    parser: Any,
    element: Any,
    width: int,
    values: dict[int, object],
    formulas: list[Formula],
    budget: _Budget,
) -> None:
    try:
        cell = parser.parse_cell(element)
    except (ValueError, IndexError, TypeError, KeyError, OverflowError):
        raise _refuse(
            source, f"el libro tiene una celda ilegible: {element.get('r', '')[:20]}"
        ) from None
    column = cell["column"]
    if column > EXCEL_COLUMNS:
        raise _refuse(source, f"el libro tiene celdas más allá de la columna {EXCEL_COLUMNS}")
    if column > width:
        return
    value = cell["value"]
    if value is None:
        formula = element.find(FORMULA)
        if formula is not None:
            formulas.append(Formula(parser.row_counter, column, "=" + (formula.text or "")))
        return
    budget.hold(value)
    values[column] = value


def _width(header: dict[int, object]) -> int:
    """The header's last column with a name: the cells right of it are not read."""
    return max((c for c, v in header.items() if v != ""), default=0)
