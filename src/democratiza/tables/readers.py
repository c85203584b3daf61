"""Read an acceptance file (CSV, XLSX or JSON) into text columns, one row per acceptance.

Everything is read as text here; ``tables.parse`` gives each column its type, so that a bad
cell is reported with its row and column instead of failing the whole read.
"""

from __future__ import annotations

import codecs
import io
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import polars as pl

from democratiza.tables.cell_checks import (
    ByteFacts,
    any_suspect,
    byte_facts,
    cell_errors,
    rows_errors,
)
from democratiza.tables.csv_blocks import (
    Readable,
    first_record_end,
    record_blocks,
    unquoted_blocks,
)
from democratiza.tables.csv_layout import (
    CountedShape,
    CsvShape,
    counted_blocks_shape,
    counted_shape,
    csv_shape,
    header_separator,
    plain_shape,
)
from democratiza.tables.errors import InputError, InputRejected
from democratiza.tables.limits import LIMITS, ReadLimits, check_rows, check_workbook
from democratiza.tables.xlsx_sheet import Formula, SheetRow, sheet_rows

# The readers' own messages are English; a broker reads these instead.
CSV_UNREADABLE = (
    "no se pudo leer como CSV: revise que todas las filas tengan las mismas columnas y que "
    "cada comilla se cierre"
)
JSON_TOO_DEEP = "JSON anidado a demasiada profundidad: se espera una lista de objetos planos"
NESTED_VALUE = (
    "el valor es una lista u objeto JSON; se espera un texto, un número, una fecha o si/no"
)
XLSX_UNREADABLE = "no es un libro XLSX legible: el archivo está dañado o no es un .xlsx"
JSON_PROBLEMS = {
    "Expecting property name enclosed in double quotes": (
        "se esperaba el nombre de un campo entre comillas dobles"
    ),
    "Expecting value": "se esperaba un valor",
    "Expecting ',' delimiter": "falta una coma",
    "Expecting ':' delimiter": "faltan los dos puntos después del nombre del campo",
    "Unterminated string": "un texto sin comilla de cierre",
    "Extra data": "sobra texto después del final",
    "Invalid control character": "un carácter de control dentro de un texto",
    "Invalid \\escape": "una secuencia de escape no válida",
}


@dataclass(frozen=True)
class RawTable:
    source: str
    frame: pl.DataFrame  # all columns String; "fila" holds the row as a person sees it


def _header_errors(source: str, names: list[str]) -> list[InputError]:
    errors = []
    seen: set[str] = set()
    for i, name in enumerate(names, start=1):
        if not name.strip():
            errors.append(InputError(source, 1, None, f"la columna {i} no tiene nombre"))
        elif name in seen:
            errors.append(InputError(source, 1, name, "columna duplicada"))
        seen.add(name)
    return errors


# Nothing known of the cells' bytes: every cell is stripped and looked at for controls.
UNKNOWN = ByteFacts(controls=True, padded=True)


def _with_rows(
    source: str, frame: pl.DataFrame, first_row: int, facts: ByteFacts = UNKNOWN
) -> RawTable:
    numbers = range(first_row, first_row + frame.height)
    return _with_numbered_rows(source, frame, numbers, facts)


def _with_numbered_rows(
    source: str, frame: pl.DataFrame, numbers: Sequence[int], facts: ByteFacts = UNKNOWN
) -> RawTable:
    """The frame, its cells stripped and blank as missing, "fila" its rows' ``numbers``.

    ``facts``: what the bytes every cell came from tell (``byte_facts``); cells that begin
    and end with no white space are not stripped (Polars reads an empty cell as missing).
    """
    if facts.padded:
        # Blank cells are missing values: strip spaces, then treat "" as null.
        # One expression for every column: built once here, not once per column per file.
        frame = frame.select(pl.all().cast(pl.String).str.strip_chars().replace("", None))
    if isinstance(numbers, range):
        frame = frame.with_row_index("fila", offset=numbers.start)
    else:
        frame = frame.with_columns(pl.Series("fila", numbers, pl.Int64)).select(
            "fila", pl.exclude("fila")
        )
    frame = frame.with_columns(pl.col("fila").cast(pl.Int64))
    errors = cell_errors(source, frame, facts.controls)
    if errors:
        raise InputRejected(errors)
    return RawTable(source, frame)


def read_csv(path: Path, limits: ReadLimits = LIMITS) -> RawTable:
    """The file read once by Polars, its shape counted over the bytes (``csv_layout``).

    Most files have no quote and no bare CR: Polars reads them first (refusing any byte that
    is not UTF-8, as Python's decoder does), and their rows are looked at one by one only if
    the counts do not add up. Any other file, or one Polars refuses, takes the careful path
    (decode, shape line by line, then read), whose errors come in the order they always had:
    the encoding, a blank file, a bare CR, the header, the rows, the reader's.

    A large file is read by Polars with the separator its first line uses while another
    thread counts its shape and looks at its bytes (``_counted_and_facts``): both let go of
    the interpreter, and on two processors the reading took a third less. Nothing is told
    before both are done, so the errors are the same, in the same order.
    """
    source = str(path)
    data = path.read_bytes()
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    # The separator of the first line: the one ``counted_shape`` and the careful path find.
    separator = _first_line_separator(body)
    counted = facts = frame = None
    if separator is not None:
        (counted, facts), frame = _counted_and_read(data, body, separator)
    if counted is not None and frame is not None:  # UTF-8, and no row has more fields
        _checked_shape(source, [], counted.shape)  # the header's errors
        if not counted.exact:
            _checked_shape(source, [], plain_shape(source, data))  # the rows that differ
        return _whole(source, data, frame, limits, separator, facts)
    try:
        text = data.decode("utf-8")  # Polars reads the bytes; the shape check, this text
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputRejected([InputError(source, line, None, NOT_UTF8)]) from None
    _checked_shape(source, [text], plain_shape(source, data))
    if frame is None:
        raise InputRejected([InputError(source, None, None, CSV_UNREADABLE)])
    return _whole(source, data, frame, limits)


BESIDE_BYTES = 1 << 20  # a file this large is read by Polars while its shape is counted


def _first_line_separator(body: bytes) -> str | None:
    """The separator the first line uses (``csv_layout.header_separator``), or None if it
    is not UTF-8 (the careful path says where)."""
    end = body.find(b"\n")
    try:
        first = body[: len(body) if end == -1 else end].decode("utf-8")
    except UnicodeDecodeError:
        return None
    return header_separator(first.rstrip("\r"))


def _counted_and_read(
    data: bytes, body: bytes, separator: str
) -> tuple[tuple[CountedShape | None, ByteFacts | None], pl.DataFrame | None]:
    """(``counted_shape`` of the bytes and, for a file with no quote, what they tell of its
    cells), and the table Polars reads with ``separator``: at once for a large file."""
    if len(data) < BESIDE_BYTES:
        return _counted_and_facts(data, separator), _polars_csv(body, separator)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="forma-csv") as beside:
        looked = beside.submit(_counted_and_facts, data, separator)
        frame = _polars_csv(body, separator)
        return looked.result(), frame


def _counted_and_facts(data: bytes, separator: str) -> tuple[CountedShape | None, ByteFacts | None]:
    """``counted_shape`` of the bytes, and ``byte_facts`` if it has one (no quote)."""
    counted = counted_shape(data)
    return counted, None if counted is None else byte_facts(data, separator)


def _polars_csv(body: bytes, separator: str) -> pl.DataFrame | None:
    """The bytes as Polars reads them (every cell text), or None if it cannot."""
    try:
        # Polars reads the bytes directly (much faster than a Python str).
        return pl.read_csv(
            body, separator=separator, infer_schema=False, truncate_ragged_lines=False
        )
    except pl.exceptions.PolarsError:
        return None


def _whole(
    source: str,
    data: bytes,
    frame: pl.DataFrame,
    limits: ReadLimits,
    unquoted: str | None = None,
    facts: ByteFacts | None = None,
) -> RawTable:
    """The frame read from ``data``; ``unquoted``: the separator of a file with no quote,
    whose cells are exactly the bytes between separators and line ends (``byte_facts``,
    unless ``facts`` already says it)."""
    if frame.height == 0:
        raise InputRejected([InputError(source, None, None, NO_ROWS)])
    check_rows(source, frame.height, limits)
    # Every cell came from these bytes: none holds a control character if they hold none.
    found = facts if facts is not None else byte_facts(data, unquoted)
    return _with_rows(source, frame, first_row=2, facts=found)


NOT_UTF8 = (
    "codificación no válida: el archivo debe estar en UTF-8 (¿se guardó como ANSI/Latin-1 "
    "desde Excel? use «CSV UTF-8»)"
)
NO_ROWS = "el archivo no tiene filas de datos"


def _checked_shape(source: str, blocks: Iterable[str], shape: CsvShape | None = None) -> CsvShape:
    """The file's shape (``csv_layout``; ``shape`` if already known), once nothing in it is
    refused: a blank file, a bare carriage return, the header's errors, then every row's
    (in this order)."""
    shape = shape or csv_shape(source, blocks)
    if shape.blank:
        raise InputRejected([InputError(source, None, None, "el archivo está vacío")])
    if shape.bare_cr is not None:
        raise InputRejected([shape.bare_cr])
    errors = _header_errors(source, shape.header) or shape.errors
    if errors:
        raise InputRejected(errors)
    return shape


@dataclass(frozen=True)
class TableChunks:
    """A file in pieces (``RawTable``), and about how many rows it has (for a progress bar:
    exact unless a quoted cell spans lines)."""

    pieces: Iterator[RawTable]
    rows: int


def read_csv_chunks(path: Path, rows: int) -> TableChunks:
    """A CSV file in pieces of about ``rows`` rows, each as ``read_csv`` gives the whole
    (rows numbered as in the file), so a file larger than memory is read as it goes.

    The file is first checked as ``read_csv`` checks it (its encoding and its shape),
    reading it once in blocks; a piece Polars cannot read stops the reading with the same
    error as ``read_csv``.
    """
    source = str(path)
    # Most files have no quote and no bare CR: their shape is counted over the bytes; the
    # careful pass (decoding, line by line) reads the others, and a file whose counts do not
    # add up or a piece the reader refuses (which then says which row, or the encoding).
    counted = counted_blocks_shape(_byte_blocks(path))
    # (The header's errors too: the careful pass tells a byte that is not UTF-8 before them.)
    if counted is None or not counted.exact or _header_errors(source, counted.shape.header):
        shape = _checked_shape(source, _utf8_blocks(source, path))
    else:
        shape = _checked_shape(source, [], counted.shape)
    columns = dict.fromkeys(shape.header, pl.String())

    def blocks(fh: io.BufferedReader) -> Iterator[bytes]:
        """The file's records in blocks read as they are needed (``csv_blocks``): never
        more than a block and its piece in memory, whatever the file's size."""
        if counted is not None and counted.exact:  # no quote: a newline ends a record
            yield from unquoted_blocks(fh, PIECE_BYTES)
            return
        start = fh.read(PIECE_BYTES).removeprefix(b"\xef\xbb\xbf")
        header_end = first_record_end(start)
        ahead = io.BytesIO(b"" if header_end is None else start[header_end:])
        yield from record_blocks(_Joined(ahead, fh), PIECE_BYTES)

    def pieces() -> Iterator[RawTable]:
        first = 2
        with path.open("rb") as fh:
            for block in blocks(fh):
                try:
                    frame = pl.read_csv(
                        block,
                        has_header=False,
                        schema=columns,
                        separator=shape.separator,
                        truncate_ragged_lines=False,
                    )
                except pl.exceptions.PolarsError:
                    if counted is not None and counted.exact:  # what the careful pass says
                        _checked_shape(source, _utf8_blocks(source, path))
                    raise InputRejected([InputError(source, None, None, CSV_UNREADABLE)]) from None
                # Each cell of the piece is in the block; a file with no quote has its cells
                # between separators and line ends (``counted``: it has none).
                unquoted = shape.separator if counted is not None and counted.exact else None
                facts = byte_facts(block, unquoted)
                for offset in range(0, frame.height, rows):
                    piece = frame.slice(offset, rows)
                    yield _with_rows(source, piece, first_row=first, facts=facts)
                    first += piece.height
        if first == 2:
            raise InputRejected([InputError(source, None, None, NO_ROWS)])

    return TableChunks(pieces(), max(shape.lines - 1, 0))


class _Joined:
    """The bytes already read past the header, then the rest of the file, as one stream."""

    def __init__(self, head: io.BytesIO, rest: Readable) -> None:
        self._head, self._rest = head, rest

    def read(self, size: int, /) -> bytes:
        return self._head.read(size) or self._rest.read(size)


def _byte_blocks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as fh:
        while block := fh.read(BLOCK):
            yield block


def _utf8_blocks(source: str, path: Path) -> Iterator[str]:
    """The file's text in blocks, refusing the first byte that is not UTF-8 (by its line)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    lines = 1
    with path.open("rb") as fh:
        while block := fh.read(BLOCK):
            try:
                text = decoder.decode(block)
            except UnicodeDecodeError as exc:
                line = lines + block.count(b"\n", 0, exc.start)
                raise InputRejected([InputError(source, line, None, NOT_UTF8)]) from None
            lines += block.count(b"\n")
            yield text
        try:
            yield decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            raise InputRejected([InputError(source, lines, None, NOT_UTF8)]) from None


BLOCK = 64 * 2**20  # bytes decoded at a time to check a file's encoding and shape
PIECE_BYTES = 16 * 2**20  # bytes of records read at a time into a piece (about 100.000 rows)


def _cell_text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "si" if value else "no"
    if isinstance(value, datetime):
        return value.isoformat() if value.time() != datetime.min.time() else f"{value:%Y-%m-%d}"
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, float):
        # Excel stores numbers as binary floats; the shortest repr is the number typed.
        return format(Decimal(repr(value)), "f")
    return str(value)


def read_xlsx(path: Path, limits: ReadLimits = LIMITS) -> RawTable:
    """The first sheet as text, streamed (``xlsx_sheet``): only the cells it holds, up to the
    header's last column; a blank row holds no acceptance and is skipped, and every other
    row keeps the number the workbook shows."""
    from openpyxl import load_workbook

    source = str(path)
    check_workbook(path, limits, XLSX_UNREADABLE)  # before parsing: what it expands to
    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except Exception:  # openpyxl raises many types (in English) for a damaged file
        raise InputRejected([InputError(source, None, None, XLSX_UNREADABLE)]) from None
    formulas: list[Formula] = []
    try:
        rows = iter(sheet_rows(book, source, limits, formulas))
        first = next(rows)
        header = [_cell_text(first.values.get(c)) or "" for c in range(1, _width(first) + 1)]
        numbers: list[int] = []
        columns: list[list[str | None]] = [[] for _ in header]
        for row in rows:
            texts = [_cell_text(row.values.get(c)) for c in range(1, len(header) + 1)]
            if all(t is None or not t.strip() for t in texts):
                continue
            numbers.append(row.number)
            for column, text in zip(columns, texts, strict=True):
                column.append(text)
    except SyntaxError:  # the sheet's XML is not well formed (ParseError)
        raise InputRejected([InputError(source, None, None, XLSX_UNREADABLE)]) from None
    finally:
        book.close()
    if not header and not numbers:
        raise InputRejected([InputError(source, None, None, "el libro está vacío")])
    errors = _header_errors(source, header) or [
        InputError(
            source,
            f.row,
            header[f.column - 1] if f.row > 1 else None,
            f"la celda tiene la fórmula {f.text[:60]} sin su valor calculado: abra el libro en "
            "Excel y guárdelo (así se calcula), o escriba el valor",
        )
        for f in formulas
    ]
    if errors:
        raise InputRejected(errors)
    if not numbers:
        raise InputRejected([InputError(source, None, None, "el libro no tiene filas de datos")])
    frame = pl.DataFrame(
        {
            name: pl.Series(name, column, pl.String)
            for name, column in zip(header, columns, strict=True)
        }
    )
    return _with_numbered_rows(source, frame, numbers)


def _width(header: SheetRow) -> int:
    return max((c for c, v in header.values.items() if _cell_text(v)), default=0)


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
DEEPEST = 64  # levels of lists and objects: an acceptance file has three at most


def _too_deep(source: str, text: str) -> InputError:
    """The error for a JSON nested too deep, at the line and column where it passes
    ``DEEPEST`` levels (the line as its row, as for any JSON that cannot be read)."""
    depth = 0
    for token in _JSON_TOKEN.finditer(text):  # texts skipped whole: a '[' in a name is text
        mark = token.group()
        depth += 1 if mark in "[{" else -1 if mark in "]}" else 0
        if depth > DEEPEST:
            line = text.count("\n", 0, token.start()) + 1
            column = token.start() - (text.rfind("\n", 0, token.start()) + 1) + 1
            return InputError(
                source, line, None, f"{JSON_TOO_DEEP} (línea {line}, columna {column})"
            )
    return InputError(source, None, None, JSON_TOO_DEEP)


def read_json(path: Path, limits: ReadLimits = LIMITS) -> RawTable:
    source = str(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"), parse_float=Decimal)
    except UnicodeDecodeError:
        raise InputRejected(
            [InputError(source, None, None, "codificación no válida: debe ser UTF-8")]
        ) from None
    except RecursionError:  # nesting deeper than Python's stack: no acceptance is so deep
        raise InputRejected([_too_deep(source, path.read_text(encoding="utf-8"))]) from None
    except json.JSONDecodeError as exc:
        why = next((es for en, es in JSON_PROBLEMS.items() if exc.msg.startswith(en)), None)
        where = f"línea {exc.lineno}, columna {exc.colno}"
        message = f"JSON mal formado en la {where}" + (f": {why}" if why else "")
        raise InputRejected([InputError(source, exc.lineno, None, message)]) from None
    if isinstance(data, dict) and isinstance(data.get("aceptaciones"), list):
        data = data["aceptaciones"]
    if not isinstance(data, list) or not data:
        raise InputRejected(
            [InputError(source, None, None, "se espera una lista no vacía de aceptaciones")]
        )
    errors = [
        InputError(source, i, None, "cada aceptación debe ser un objeto")
        for i, item in enumerate(data, start=1)
        if not isinstance(item, dict)
    ]
    if errors:
        raise InputRejected(errors)
    check_rows(source, len(data), limits)
    return read_records(source, data)


def read_records(source: str, items: Sequence[Mapping[str, object]]) -> RawTable:
    """Acceptances already decoded from JSON (objects), as the text table ``parse`` reads.

    Why separate from ``read_json``: single acceptances filed over HTTP arrive decoded; they
    go through this very conversion without a round trip through a file.
    """
    names = list(dict.fromkeys(k for item in items for k in item))
    nested = [
        InputError(source, row, k, NESTED_VALUE)
        for row, item in enumerate(items, start=1)
        for k, v in item.items()
        if isinstance(v, (dict, list))
    ]
    if nested:
        raise InputRejected(nested)
    rows = [[_cell_text(item.get(k)) for k in names] for item in items]
    if len(rows) <= FEW_ROWS and names and "fila" not in names:
        return _few_records(source, names, rows)
    frame = pl.DataFrame(rows, schema=dict.fromkeys(names, pl.String), orient="row")
    return _with_rows(source, frame, first_row=1)


# Up to this many rows (a group of single acceptances filed at once), records are stripped,
# numbered and checked in plain Python, and ``tables.parse`` reads their unread cells in one
# select: building and running the column expressions costs more than a few rows do.
FEW_ROWS = 64
# What Polars's ``str.strip_chars()`` strips: Unicode's White_Space. (Python's ``str.strip()``
# also strips U+001C to U+001F, control characters that must be refused, not stripped.)
WHITE_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B)))
WHITE_SPACE += "\u2028\u2029\u202f\u205f\u3000"


def _few_records(source: str, names: list[str], rows: list[list[str | None]]) -> RawTable:
    """``_with_rows(source, frame of rows, 1)`` in plain Python, for a few rows: the same
    cells (stripped, blank as missing), the same "fila", the same errors in the same order
    (row by row, column by column)."""
    columns = [[_stripped(text) for text in column] for column in zip(*rows, strict=True)]
    if any_suspect(cell for column in columns for cell in column if cell is not None):
        numbered = ((n + 1, [column[n] for column in columns]) for n in range(len(rows)))
        errors = rows_errors(source, names, numbered)
        if errors:
            raise InputRejected(errors)
    frame = pl.DataFrame(
        [pl.Series("fila", range(1, len(rows) + 1), pl.Int64)]
        + [pl.Series(name, column, pl.String) for name, column in zip(names, columns, strict=True)]
    )
    return RawTable(source, frame)


def cell_key(value: object) -> str | None:
    """A cell as ``read_records`` leaves it (text, stripped, blank as missing), for grouping:
    stripped of exactly what Polars strips (``WHITE_SPACE``), so two cells are read as equal
    if and only if their keys are."""
    return _stripped(_cell_text(value))


def _stripped(text: str | None) -> str | None:
    """A cell stripped as Polars's ``str.strip_chars()`` strips it, blank as missing."""
    return (text.strip(WHITE_SPACE) or None) if text is not None else None


READERS = {".csv": read_csv, ".xlsx": read_xlsx, ".json": read_json}


def read_table(path: Path) -> RawTable:
    _check_readable(path)
    return READERS[path.suffix.lower()](path)


def read_table_chunks(path: Path, rows: int) -> TableChunks:
    """The file in pieces of about ``rows`` rows: a CSV as it is read; a workbook or a JSON
    file, which are read whole anyway, as one piece."""
    _check_readable(path)
    if path.suffix.lower() == ".csv":
        return read_csv_chunks(path, rows)
    whole = READERS[path.suffix.lower()](path)
    return TableChunks(iter([whole]), whole.frame.height)


def _check_readable(path: Path) -> None:
    reader = READERS.get(path.suffix.lower())
    if reader is None:
        raise InputRejected(
            [InputError(str(path), None, None, "formato no admitido: use .csv, .xlsx o .json")]
        )
    if not path.exists():
        raise InputRejected([InputError(str(path), None, None, "el archivo no existe")])
