"""What any cell read from a file may hold, whatever its column: printable bounded text.

(The cells a file written for people holds are made safe in ``tables.cells``.)

A NUL byte or another control character is refused here, on every database alike (PostgreSQL
refuses a NUL byte, SQLite stores it). No field of any file is longer than ``MAX_TEXT``
characters.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from democratiza.tables.errors import InputError
from democratiza.tables.format import MAX_TEXT

# C0 control characters except tab, line feed and carriage return (a line break in a cell).
CONTROL = r"[\x00-\x08\x0b\x0c\x0e-\x1f]"


def cell_errors(source: str, frame: pl.DataFrame, controls: bool = True) -> list[InputError]:
    """Every cell with a control character or longer than ``MAX_TEXT`` characters.

    ``controls=False``: the caller knows no cell holds a control character (``no_controls``
    of the bytes every cell came from), so only the lengths are looked at.
    """
    columns = [c for c in frame.columns if c != "fila"]
    # One pass over the bytes says whether any cell needs a closer look (a clean file, the
    # usual case, pays only this); a character takes at least one byte.
    suspect = frame.select(
        pl.any_horizontal(
            (pl.col(c).str.contains(CONTROL) if controls else pl.lit(False))
            | (pl.col(c).str.len_bytes() > MAX_TEXT)
            for c in columns
        ).fill_null(False)
    ).to_series()
    if not suspect.any():
        return []
    errors = []
    for row in frame.filter(suspect).iter_rows(named=True):
        for column in columns:
            errors += _cell_error(source, row["fila"], column, row[column])
    return errors


def no_controls(data: bytes) -> bool:
    """Whether these bytes hold no ``CONTROL`` character: every byte below a space is a tab,
    a line feed or a carriage return. One count over the bytes, several times faster than
    looking for the characters in each cell (in UTF-8 no byte of another character is below
    a space)."""
    low = int(np.count_nonzero(np.frombuffer(data, dtype=np.uint8) < 0x20))
    return low == data.count(b"\t") + data.count(b"\n") + data.count(b"\r")


def _cell_error(source: str, row: int, column: str, text: str | None) -> list[InputError]:
    if text is None:
        return []
    control = next((c for c in text if c < " " and c not in "\t\n\r"), None)
    if control is not None:
        return [
            InputError(
                source,
                row,
                column,
                f"contiene un carácter de control (código {ord(control):#04x}) que no es "
                "texto: quítelo del archivo",
            )
        ]
    if len(text) > MAX_TEXT:
        return [
            InputError(
                source,
                row,
                column,
                f"el campo tiene {len(text)} caracteres; el máximo es {MAX_TEXT}",
            )
        ]
    return []
