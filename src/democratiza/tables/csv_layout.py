"""The shape of a CSV file: every row as many fields as the header, every quote closed.

A row with fewer fields than the header would be read with its last cells blank, and one
with more would not read at all; either way the broker is told the row, the column and why,
instead of a table that silently differs from the file. Rows are counted as ``readers`` counts
them: the header is row 1 and each record (even a blank line) is the next row.
"""

from __future__ import annotations

import csv
import io
import re

from democratiza.tables.errors import InputError

BARE_CR = re.compile(rb"\r(?!\n)")


def bare_carriage_return(source: str, body: bytes) -> InputError | None:
    """A line that ends in a carriage return alone (old Mac files): the reader sees one line."""
    found = BARE_CR.search(body)
    if found is None:
        return None
    row = body.count(b"\n", 0, found.start()) + 1  # every CR before the first bare one is a CRLF
    return InputError(
        source,
        row,
        None,
        "la fila termina en un retorno de carro (CR) sin salto de línea: guarde el archivo "
        "como «CSV UTF-8» (finales de línea LF o CRLF)",
    )


def layout_errors(source: str, text: str, separator: str, header: list[str]) -> list[InputError]:
    """Every row whose number of fields differs from the header's, and an unclosed quote."""
    if '"' not in text:  # no quoting: each line is a record, counted without a CSV reader
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        counts = ((i, line.count(separator) + 1) for i, line in enumerate(lines, start=1))
        return [
            _wrong_count(source, row, n, header, separator)
            for row, n in counts
            if n != len(header) and lines[row - 1].strip("\r")
        ]
    errors = []
    records = csv.reader(io.StringIO(text, newline=""), delimiter=separator, strict=True)
    row, first_line = 0, 1  # the record being read, and the line it starts on
    try:
        for fields in records:
            row += 1
            if fields and len(fields) != len(header):
                errors.append(_wrong_count(source, row, len(fields), header, separator))
            first_line = records.line_num + 1
    except csv.Error:
        line = text.split("\n")[first_line - 1]
        errors.append(_misplaced_quote(source, row + 1, line, separator, header))
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
