"""A few rows (single acceptances filed at once) have their unread amounts read in Python by
the grammar (``tables.parse._read_the_rest``); a file's, column by column. Both give the
same typed rows and the same errors, word for word: worked on the sample batch spoiled in
the ways cells are written, and on every broken file of ``test_bad_files``. Before that,
a few records (single acceptances, ``readers.read_records``) are stripped, numbered and
checked in plain Python; a file's, by columns: the same tables and errors, on the same cases.
"""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal
from pathlib import Path

import polars as pl
import pytest

from democratiza.tables import parse as typing
from democratiza.tables import readers
from democratiza.tables.errors import InputError, InputRejected
from democratiza.tables.parse import parse_rows
from democratiza.tables.readers import RawTable, read_records, read_table
from tests.test_bad_files import BAD_FILES, CELLS, HEADER, NAMES

# (column, cell as written): amounts and quantities with dots, commas and signs, yes and no
# in other words, dates out of range; the good and the bad of each.
WRITTEN = [
    ("cantidad", "40.000"),
    ("cantidad", "10.5"),
    ("cantidad", "10,50"),
    ("cantidad", "1.853,0"),
    ("cantidad", "mil"),
    ("cantidad", "-3"),
    ("cantidad", "+5"),
    ("cantidad", "40.00.000"),
    ("cantidad", "99999999999999999999"),
    ("cantidad", ""),
    ("patrimonio_liquido", "503.939.485"),
    ("patrimonio_liquido", "2075,31"),
    ("patrimonio_liquido", "1.5"),
    ("patrimonio_liquido", "$ 2.018"),
    ("patrimonio_liquido", "1.234,567"),
    ("patrimonio_liquido", "-5"),
    ("patrimonio_liquido", "abc"),
    ("patrimonio_liquido", "9" * 25),
    ("patrimonio_liquido", "9" * 16 + ",5"),
    ("patrimonio_liquido", "9" * 17 + ",5"),
    ("patrimonio_liquido", "1e6"),
    ("patrimonio_liquido", "48,000,000"),
    ("patrimonio_liquido", "10,123"),
    ("patrimonio_liquido", "$\u00a01.500,05"),
    ("patrimonio_liquido", "1.50"),
    ("ingresos_declaracion", "٣"),
    ("ingresos_usd", "1.000,5"),
    ("extranjero", "Sí"),
    ("extranjero", "NO"),
    ("extranjero", "S"),
    ("extranjero", "x"),
    ("extranjero", "quizá"),
    ("fecha_certificado", "2018-13-01"),
    ("fecha_certificado", "0000-01-01"),
]


def spoiled_file(folder: Path) -> Path:
    """The sample row once per spoiled cell, each with its own reference."""
    lines = [HEADER]
    for n, (column, text) in enumerate(WRITTEN):
        cells = list(CELLS)
        cells[NAMES.index("referencia")] = f"R-{n}"
        cells[NAMES.index(column)] = f'"{text}"' if "," in text else text
        lines.append(",".join(cells))
    path = folder / "lote.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def both_ways(
    raw: RawTable, monkeypatch: pytest.MonkeyPatch
) -> tuple[tuple[pl.DataFrame, list[InputError]], tuple[pl.DataFrame, list[InputError]]]:
    """(typed as a few rows, typed as a file's columns)."""
    assert raw.frame.height <= readers.FEW_ROWS
    few = parse_rows(raw)
    with monkeypatch.context() as patched:
        patched.setattr(typing, "FEW_ROWS", 0)
        columns = parse_rows(raw)
    return few, columns


def test_spoiled_cells_are_typed_and_refused_alike_as_few_rows_and_as_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (few, few_errors), (columns, column_errors) = both_ways(
        read_table(spoiled_file(tmp_path)), monkeypatch
    )
    assert few.equals(columns)
    assert few.schema == columns.schema
    assert few_errors == column_errors
    # Worked: '40.000' is forty thousand shares, '10.5' has a decimal part, '503.939.485'
    # pesos are read in centavos, 'Sí' is yes; 'mil' is refused with the cell as written.
    typed = {WRITTEN[int(r["referencia"][2:])]: r for r in few.iter_rows(named=True)}
    assert typed["cantidad", "40.000"]["cantidad"] == 40_000
    assert typed["cantidad", "10.5"]["cantidad_fraccionaria"] is True
    assert typed["patrimonio_liquido", "503.939.485"]["patrimonio_liquido"] == 50_393_948_500
    assert typed["patrimonio_liquido", "$\u00a01.500,05"]["patrimonio_liquido"] == 150_005
    assert typed["extranjero", "Sí"]["extranjero"] is True
    assert InputError("lote.csv", 6, "cantidad", "la cantidad no es un número: 'mil'") in [
        InputError(Path(e.file).name, e.row, e.column, e.message) for e in few_errors
    ]


def test_every_broken_file_gets_the_same_errors_as_few_rows_and_as_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    typed = 0
    for n, (make, _) in enumerate(BAD_FILES.values()):
        folder = tmp_path / str(n)
        folder.mkdir()
        try:
            raw = read_table(make(folder))
        except InputRejected:
            continue  # refused while reading, before any typing
        (few, few_errors), (columns, column_errors) = both_ways(raw, monkeypatch)
        assert few.equals(columns)
        assert few_errors == column_errors
        typed += 1
    assert typed >= 2  # a year 0, a bare carriage return: refused by the typing


# Records as they arrive over HTTP: the read of a few (``readers._few_records``) against the
# read of a file's columns, on cells padded with every kind of white space, a control
# character (U+001F, which Python's own strip would take for a space), a cell too long, a
# blank, a number, a yes, a date; and every broken file, read as records.
PADDED = {
    "nombre": "\u00a0Ana\u3000",
    "tipo_identificacion": "\tCC\r\n",
    "referencia": " ",
    "cantidad": 1853,
    "extranjero": False,
}


def records_both_ways(
    items: list[dict[str, object]], monkeypatch: pytest.MonkeyPatch
) -> tuple[RawTable | list[InputError], RawTable | list[InputError]]:
    """(read as a few records, read as a file's columns): the table, or the errors."""
    assert len(items) <= readers.FEW_ROWS

    def read() -> RawTable | list[InputError]:
        try:
            return read_records("aceptaciones", items)
        except InputRejected as refused:
            return refused.errors

    few = read()
    with monkeypatch.context() as patched:
        patched.setattr(readers, "FEW_ROWS", 0)
        columns = read()
    return few, columns


def assert_same(few: RawTable | list[InputError], columns: RawTable | list[InputError]) -> None:
    if isinstance(few, RawTable) and isinstance(columns, RawTable):
        assert few.frame.equals(columns.frame)
        assert few.frame.schema == columns.frame.schema
        (typed, errors), (typed_as_columns, errors_as_columns) = map(parse_rows, (few, columns))
        assert typed.equals(typed_as_columns)
        assert errors == errors_as_columns
    else:
        assert few == columns


def sample_item(**changes: object) -> dict[str, object]:
    return {**{k: v for k, v in zip(NAMES, CELLS, strict=True) if v}, **changes}


def test_records_padded_or_refused_cell_by_cell_are_read_alike_as_few_rows_and_as_columns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    items: list[dict[str, object]] = [sample_item(referencia=f"R-{n}") for n in range(3)]
    items[1] |= PADDED
    few, columns = records_both_ways(items, monkeypatch)
    assert_same(few, columns)
    # Worked: the padding is gone, a blank is missing, the number and the "no" are text.
    assert isinstance(few, RawTable)
    second = few.frame.row(1, named=True)
    assert second["fila"] == 2
    assert (second["nombre"], second["tipo_identificacion"]) == ("Ana", "CC")
    assert second["referencia"] is None
    assert (second["cantidad"], second["extranjero"]) == ("1853", "no")

    items[0]["nombre"] = "Ana\x1f"
    items[2] |= {"categoria": "x" * 301, "nombre": "\x00"}
    few, columns = records_both_ways(items, monkeypatch)
    assert_same(few, columns)
    assert isinstance(few, list)
    # (Refusals come by row, then by the column's name.)
    assert [(e.row, e.column) for e in few] == [(1, "nombre"), (3, "categoria"), (3, "nombre")]
    assert few[0].message == (
        "contiene un carácter de control (código 0x1f) que no es texto: quítelo del archivo"
    )
    assert few[1].message == "el campo tiene 301 caracteres; el máximo es 300"


def test_spoiled_cells_and_every_broken_file_as_records_are_read_alike_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spoiled = [
        sample_item(referencia=f"R-{n}", **{column: text})
        for n, (column, text) in enumerate(WRITTEN)
    ]
    assert_same(*records_both_ways(spoiled, monkeypatch))
    compared = 0
    for n, (make, _) in enumerate(BAD_FILES.values()):
        folder = tmp_path / str(n)
        folder.mkdir()
        for items in file_as_records(make(folder)):
            assert_same(*records_both_ways(items, monkeypatch))
            compared += 1
    assert compared >= 8  # every CSV and JSON file whose rows can be told apart


def file_as_records(path: Path) -> list[list[dict[str, object]]]:
    """The file's rows as records (the header's names to each row's cells), if it has rows
    Python can tell apart; JSON's own objects as they are."""
    data = path.read_bytes()
    if path.suffix == ".json":
        try:
            loaded = json.loads(data, parse_float=Decimal)
        except (ValueError, RecursionError):
            return []
        ok = isinstance(loaded, list) and all(isinstance(i, dict) for i in loaded)
        return [loaded] if ok else []
    if path.suffix == ".csv":
        text = data.decode("utf-8", errors="replace")
        rows = list(csv.reader(io.StringIO(text, newline="")))
        header, body = rows[0], rows[1:]
        return [[dict(zip(header, row, strict=False)) for row in body]] if body else []
    return []
