"""The shape of a CSV file: every row as many fields as the header, every quote closed.

A row with fewer fields than the header would be read with its last cells blank, and one
with more would not read at all; either way the broker is told the row, the column and why,
instead of a table that silently differs from the file. Rows are counted as ``readers`` counts
them: the header is row 1 and each record (even a blank line) is the next row.

The text is read in blocks, as it comes (the whole file is one block): the reader of a whole
file and the reader in pieces check a file with this same pass.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import chain

import numpy as np

from democratiza.tables.errors import InputError

BARE_CR = (
    "la fila termina en un retorno de carro (CR) sin salto de línea: guarde el archivo "
    "como «CSV UTF-8» (finales de línea LF o CRLF)"
)


@dataclass(frozen=True)
class CsvShape:
    separator: str  # the header's: ``;`` or ``,``
    header: list[str]
    lines: int  # physical lines, the header's included
    blank: bool  # nothing but white space
    bare_cr: InputError | None  # the first line ending in a carriage return alone
    errors: list[InputError]  # rows whose number of fields differs from the header's, a quote


def header_separator(header: str) -> str:
    """The separator a CSV's header line uses: ``;`` (Excel in Spanish) where it has more of
    them than commas, else ``,``."""
    return ";" if header.count(";") > header.count(",") else ","


class _Lines:
    """The physical lines of the text in blocks (without their line feed), counted as they go,
    noting the first one that ends in a carriage return alone (old Mac files: the reader
    would see one line)."""

    def __init__(self, source: str, blocks: Iterable[str]) -> None:
        self.source, self.count, self.blank = source, 0, True
        self.bare_cr: InputError | None = None
        self.lines = self._read(blocks)

    def _read(self, blocks: Iterable[str]) -> Iterator[str]:
        pending = ""
        for block in blocks:
            parts = (pending + block).split("\n")
            pending = parts.pop()
            for part in parts:
                self._note(part, part.find("\r") not in (-1, len(part) - 1))  # CRLF is no CR
                yield part
        if pending:
            self._note(pending, "\r" in pending)
            yield pending

    def _note(self, line: str, bare_cr: bool) -> None:
        self.count += 1
        if self.blank and line.strip():
            self.blank = False
        if bare_cr and self.bare_cr is None:
            self.bare_cr = InputError(self.source, self.count, None, BARE_CR)


def csv_shape(source: str, blocks: Iterable[str]) -> CsvShape:
    """The header (its separator the one it uses most) and every row's shape, reading the
    text once to its end: a later bare carriage return, or a later encoding error raised by
    ``blocks``, is found even after a quote that does not close."""
    text = _Lines(source, blocks)
    first = next(text.lines, "").removeprefix("\ufeff").rstrip("\r")
    separator = header_separator(first)
    try:
        header = next(csv.reader([first], delimiter=separator), [])
    except csv.Error:  # a carriage return inside the header's line: ``bare_cr`` tells it
        header = []
    errors = _row_errors(source, text.lines, separator, header) if header else []
    for _ in text.lines:  # to the end, for what is told before the rows' shape
        pass
    return CsvShape(separator, header, text.count, text.blank, text.bare_cr, errors)


def _row_errors(
    source: str, lines: Iterator[str], separator: str, header: list[str]
) -> list[InputError]:
    """Every row whose number of fields differs from the header's, and an unclosed quote
    (the reading stops there: after it, no row is where the file meant it)."""
    errors: list[InputError] = []
    row = 1  # the record being read: the header was the first
    for line in lines:
        row += 1
        if '"' in line:  # from here on a record may go on over lines: the CSV reader reads
            return errors + _quoted_rows(source, chain([line], lines), row, separator, header)
        n = line.count(separator) + 1  # no quoting: the line is the record
        if n != len(header) and line.strip("\r"):
            errors.append(_wrong_count(source, row, n, header, separator))
    return errors


def _quoted_rows(
    source: str, lines: Iterator[str], row: int, separator: str, header: list[str]
) -> list[InputError]:
    """The rows from ``row`` on, read by the CSV reader (``strict``: a misplaced quote is an
    error), each record's first line kept for the message."""
    first = [""]  # the first line of the record being read
    starts = True

    def marked() -> Iterator[str]:
        nonlocal starts
        for line in lines:
            if starts:
                first[0], starts = line, False
            yield line

    errors = []
    try:
        for fields in csv.reader(marked(), delimiter=separator, strict=True):
            if fields and len(fields) != len(header):
                errors.append(_wrong_count(source, row, len(fields), header, separator))
            row, starts = row + 1, True
    except csv.Error:
        errors.append(_misplaced_quote(source, row, first[0], separator, header))
    return errors


def _wrong_count(source: str, row: int, n: int, header: list[str], separator: str) -> InputError:
    expected = len(header)
    if n < expected:
        return InputError(
            source,
            row,
            header[n],
            f"faltan campos: la fila tiene {n} y el encabezado {expected} (separados por "
            f"'{separator}'); falta desde esta columna",
        )
    return InputError(
        source,
        row,
        None,
        f"sobran campos: la fila tiene {n} y el encabezado {expected} (separados por "
        f"'{separator}'); un texto que contiene '{separator}' va entre comillas dobles",
    )


def _misplaced_quote(
    source: str, row: int, line: str, separator: str, header: list[str]
) -> InputError:
    """A quote that opens a field and is never closed, or one in the middle of a field."""
    field = _open_quote_field(line, separator)
    column = header[field] if field is not None and field < len(header) else None
    return InputError(
        source,
        row,
        column,
        'una comilla doble (") abre un texto que no se cierra, o está en medio de un campo: '
        'cierre la comilla, o escriba "" para una comilla dentro de un texto',
    )


def _open_quote_field(line: str, separator: str) -> int | None:
    """The index of the field whose opening quote this line leaves open, if any."""
    field, opened, i, quoted = 0, 0, 0, False
    while i < len(line):
        char = line[i]
        if quoted:
            if char == '"' and line[i + 1 : i + 2] == '"':
                i += 1
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
            opened = field
        elif char == separator:
            field += 1
        i += 1
    return opened if quoted else None


def plain_shape(source: str, data: bytes) -> CsvShape | None:
    """``csv_shape`` of a whole file with no quote and no bare carriage return, counted over
    its bytes at once (numpy) instead of line by line; None for any other file, which
    ``csv_shape`` reads. Why: on a million rows the line-by-line pass was most of what the
    import spends checking a file, and most files have neither quotes nor bare CRs.

    Each record is a physical line: its fields are its separators plus one, and a blank
    line (or one of only a CR) is no record to count.
    """
    raw = np.frombuffer(data, dtype=np.uint8)
    if raw.size == 0 or (raw == QUOTE_BYTE).any():
        return None
    newlines = np.flatnonzero(raw == LF)
    returns = np.flatnonzero(raw == CR)
    if returns.size and not np.isin(returns + 1, newlines).all():
        return None  # a bare carriage return: the careful pass says where
    text_start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    first_end = int(newlines[0]) if newlines.size else len(data)
    first = data[text_start:first_end].decode("utf-8").rstrip("\r")
    if not first.strip():
        return None  # a blank file, or a blank header: the careful pass says which
    separator = header_separator(first)
    header = next(csv.reader([first], delimiter=separator), [])
    ends = newlines if data.endswith(b"\n") else np.append(newlines, len(data))
    starts = np.concatenate(([0], newlines + 1))[: ends.size]
    seps = np.flatnonzero(raw == ord(separator))
    # Lines follow each other and no separator is a line feed: a line's separators are
    # those before its end less those before the previous line's end.
    counts = np.diff(np.searchsorted(seps, ends), prepend=0)
    length = ends - starts - np.isin(ends - 1, returns)  # a line's bytes but its CR
    wrong = np.flatnonzero((counts != len(header) - 1) & (length > 0))
    errors = [
        _wrong_count(source, int(i) + 1, int(counts[i]) + 1, header, separator)
        for i in wrong
        if i > 0  # the header is no row
    ]
    return CsvShape(separator, header, int(ends.size), False, None, errors)


QUOTE_BYTE, LF, CR = ord('"'), ord("\n"), ord("\r")


@dataclass(frozen=True)
class CountedShape:
    """What ``counted_shape`` tells of a file without looking at its lines one by one."""

    shape: CsvShape  # its header and separator; ``errors`` empty (not yet looked for)
    exact: bool  # its separators are exactly the header's on every line, if none has more


def counted_shape(data: bytes) -> CountedShape | None:
    """The shape of a file with no quote, no bare carriage return and a header, from a few
    counts over its bytes (each a single C loop, no array the size of the file); None for
    any other file (``plain_shape`` or ``csv_shape`` reads it).

    Why enough: when no line has more fields than the header (the CSV reader refuses such a
    line) and the file holds as many separators as its lines times the header's, no line can
    have fewer either, nor be blank. Otherwise ``exact`` is false and ``plain_shape`` finds
    the rows and says what is wrong with them, as it always did.
    """
    return counted_blocks_shape([data], whole=True)


def counted_blocks_shape(blocks: Iterable[bytes], whole: bool = False) -> CountedShape | None:
    """``counted_shape`` of the file whose bytes come in these blocks (read as they come);
    ``whole``: the one block is the whole file (a header with no line feed ends the file)."""
    header: list[str] | None = None
    separator = b","
    lines = returns = pairs = separators = 0
    last = b""  # the previous block's last byte: a CRLF may be cut between two blocks
    for block in blocks:
        if not block:
            continue
        if b'"' in block:
            return None
        if header is None:
            found = _counted_header(block, whole)
            if found is None:
                return None
            header, separator = found[0], found[1].encode()
        counts = _counts(block, separator[0])
        returns += counts[0]
        pairs += counts[1] + (last == b"\r" and block.startswith(b"\n"))
        separators += counts[2]
        lines += counts[3]
        last = block[-1:]
    if header is None:
        return None
    if returns != pairs:
        return None  # a bare carriage return: the careful pass says where
    lines += last != b"\n"
    exact = separators == lines * (len(header) - 1)
    shape = CsvShape(separator.decode(), header, lines, False, None, [])
    return CountedShape(shape, exact)


COUNT_SCAN = 1 << 20  # bytes counted at a time: a part and its masks stay in the cache


def _counts(block: bytes, separator: int) -> tuple[int, int, int, int]:
    """The block's carriage returns, CRLF pairs, separators and line feeds.

    Why not ``bytes.count``: four counts over a large file took a third of the time Polars
    takes to read it; counted part by part with NumPy, each part in the cache, they take a
    fraction, counting with no array of positions; the carriage returns' positions (to
    pair each with a line feed) are found only in a file that has one.
    """
    everything = np.frombuffer(block, dtype=np.uint8)
    returns = pairs = separators = lines = 0
    carriage = b"\r" in block  # most files have none: then no part looks for them
    for start in range(0, everything.size, COUNT_SCAN):
        part = everything[start : start + COUNT_SCAN + 1]  # a byte more: a CRLF across parts
        own = part[:COUNT_SCAN]
        separators += int(np.count_nonzero(own == separator))
        lines += int(np.count_nonzero(own == LF))
        if carriage:
            at = np.flatnonzero(own == CR)
            returns += at.size
            pairs += int(np.count_nonzero(part[at[at + 1 < part.size] + 1] == LF))
    return returns, pairs, separators, lines


def _counted_header(block: bytes, whole: bool) -> tuple[list[str], str] | None:
    """The header and separator of a file's first block, or None if the careful pass must
    say what is wrong (a blank header, a byte that is not UTF-8) or read it (a first block
    that is not the whole file, with no line feed)."""
    text_start = 3 if block.startswith(b"\xef\xbb\xbf") else 0
    first_end = block.find(b"\n")
    if first_end == -1 and not whole:
        return None
    first = block[text_start : len(block) if first_end == -1 else first_end]
    try:
        header_text = first.decode("utf-8").rstrip("\r")
    except UnicodeDecodeError:
        return None  # the careful pass names the line
    if not header_text.strip() or "\r" in header_text:
        return None  # a blank file or header, a bare CR: the careful pass says which
    separator = header_separator(header_text)
    return next(csv.reader([header_text], delimiter=separator), []), separator
