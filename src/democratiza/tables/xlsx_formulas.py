"""Formulas without a computed value: a cell that would be read as empty is refused.

A workbook stores a formula's last computed value beside it; a program that writes formulas
without computing them (a script, some exports) leaves only the formula, and reading values
would take such a cell as blank. The rows are scanned for formulas only when the sheet
has any, so a workbook of plain values is read once.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from democratiza.tables.errors import InputError

FORMULA_TAG = re.compile(rb"<(?:\w+:)?f[\s>/]")
CHUNK = 1 << 20


def has_formulas(book: Any, sheet: Any) -> bool:
    """Whether the sheet's XML holds any formula (read in chunks, never whole)."""
    tail = b""
    with book._archive.open(sheet._worksheet_path) as xml:
        while chunk := xml.read(CHUNK):
            if FORMULA_TAG.search(tail + chunk):
                return True
            tail = chunk[-16:]
    return False


def uncomputed_formulas(
    path: Path, values: list[list[str | None]], header: list[str]
) -> list[InputError]:
    """Each cell of ``values`` (as read, header first) that is empty only for lack of a value."""
    from openpyxl import load_workbook

    book = load_workbook(path, read_only=True, data_only=False)
    errors = []
    for i, row in enumerate(book.worksheets[0].iter_rows(values_only=True)):
        for j, cell in enumerate(row):
            read = values[i][j] if i < len(values) and j < len(values[i]) else None
            if isinstance(cell, str) and cell.startswith("=") and read is None:
                column = header[j] if i > 0 and j < len(header) else None
                errors.append(
                    InputError(
                        str(path),
                        i + 1,
                        column,
                        f"la celda tiene la fórmula {cell[:60]} sin su valor calculado: abra el "
                        "libro en Excel y guárdelo (así se calcula), o escriba el valor",
                    )
                )
    book.close()
    return errors
