"""What any cell read from a file may hold, whatever its column: printable bounded text.

(The cells a file written for people holds are made safe in ``tables.cells``.)

A NUL byte or another control character is refused here, on every database alike (PostgreSQL
refuses a NUL byte, SQLite stores it). No field of any file is longer than ``MAX_TEXT``
characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from numpy.typing import NDArray

from democratiza.tables.errors import InputError
from democratiza.tables.format import MAX_TEXT

# C0 control characters except tab, line feed and carriage return (a line break in a cell).
CONTROL = r"[\x00-\x08\x0b\x0c\x0e-\x1f]"


def cell_errors(source: str, frame: pl.DataFrame, controls: bool = True) -> list[InputError]:
    """Every cell with a control character or longer than ``MAX_TEXT`` characters.

    ``controls=False``: the caller knows no cell holds a control character (``byte_facts``
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
    rows = frame.filter(suspect).select("fila", *columns).iter_rows()
    return rows_errors(source, columns, ((row[0], row[1:]) for row in rows))


def any_suspect(cells: Iterable[str]) -> bool:
    """``cell_errors``' one look, over a few cells in Python: whether any may be refused (a
    control character, a line feed being none; more characters than ``MAX_TEXT``)."""
    cells = list(cells)
    return bool(_CONTROL.search("\n".join(cells))) or any(len(c) > MAX_TEXT for c in cells)


_CONTROL = re.compile(CONTROL)


def rows_errors(
    source: str, columns: Sequence[str], rows: Iterable[tuple[int, Sequence[str | None]]]
) -> list[InputError]:
    """Every error of these rows (each its number and its cells, in ``columns``' order), row
    by row and column by column."""
    return [
        error
        for number, cells in rows
        for column, text in zip(columns, cells, strict=True)
        for error in cell_error(source, number, column, text)
    ]


@dataclass(frozen=True)
class ByteFacts:
    """What a look at the bytes of an unquoted CSV tells of all its cells at once."""

    controls: bool  # some byte is a ``CONTROL`` character
    padded: bool  # some cell may begin or end with white space (or the caller cannot tell)


SCAN = 1 << 20  # bytes looked at a time: a block and its masks stay in the processor's cache
# The first byte of each white space character but space and tab that stripping a cell
# removes (U+0085, U+00A0: 0xC2; U+1680: 0xE1; U+2000–U+200A, U+2028, U+2029, U+202F, U+205F:
# 0xE2; U+3000: 0xE3); a file with any of these bytes is stripped cell by cell.
WIDE_SPACE_FIRST = (0xC2, 0xE1, 0xE2, 0xE3)
TAB, LF, CR, SPACE = 0x09, 0x0A, 0x0D, 0x20


def byte_facts(data: bytes, separator: str | None) -> ByteFacts:
    """Whether the bytes hold a control character and whether a cell of this unquoted CSV
    (cells between ``separator`` and line ends; the bytes begin where a record does) may
    begin or end with white space; with no separator, ``padded`` is true (not looked at).

    Why: stripping every cell of a million rows cost most of the reading after Polars's
    own; a file whose cells are already stripped, the usual case, skips it. How: a wide
    space's first byte, or a tab, is looked for anywhere (a C search for each); the rest
    with NumPy part by part, each part and its masks in the processor's cache, letting go of
    the interpreter while it compares, so that the pieces evaluated meanwhile in another
    thread go on (Python's search for the controls held it for the whole block).
    """
    everything = np.frombuffer(data, dtype=np.uint8)
    controls = False
    padded = (
        separator is None
        or data[:1] in (b" ", b"\t")
        or data[-1:] in (b" ", b"\t")
        or any(bytes([first]) in data for first in WIDE_SPACE_FIRST)
    )
    tabs = not padded and b"\t" in data
    edge = np.zeros(256, dtype=bool)  # whether a byte ends a cell, looked up by the byte
    if separator is not None:
        edge[[LF, CR, ord(separator)]] = True
    for start in range(0, everything.size, SCAN):
        controls = controls or _controls(everything[start : start + SCAN])
        # A part starts a byte before its own and ends a byte after it, to see the edge of
        # a cell between two parts.
        part = everything[max(start - 1, 0) : start + SCAN + 1]
        padded = padded or _spaced(part, edge, tabs)
        if controls and padded:
            break
    return ByteFacts(controls, padded)


def _controls(part: NDArray[np.uint8]) -> bool:
    """Whether the part holds a ``CONTROL`` character (tab, line feed and carriage return
    are none): bytes below a space but line feeds, then, if any, whether one is neither a
    tab nor a carriage return."""
    low = (part < SPACE) & (part != LF)
    if not low.any():
        return False
    found = part[low]
    return bool(((found != TAB) & (found != CR)).any())


def _spaced(part: NDArray[np.uint8], edge: NDArray[np.bool_], tabs: bool) -> bool:
    """Whether a space (or a tab, if the bytes hold any) of the part touches a cell's edge
    (``edge``)."""
    spaces = np.flatnonzero(part == SPACE)
    if tabs:
        spaces = np.concatenate([spaces, np.flatnonzero(part == TAB)])
    before = spaces[spaces > 0] - 1
    after = spaces[spaces < part.size - 1] + 1
    return bool(edge[part[before]].any() or edge[part[after]].any())


def cell_error(source: str, row: int, column: str, text: str | None) -> list[InputError]:
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
