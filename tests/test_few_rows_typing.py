"""A few rows (single acceptances filed at once) are typed with every unread cell read in one
select (``tables.parse._read_the_rest_at_once``); a file, column by column. Both give the
same typed rows and the same errors, word for word: worked on the sample batch spoiled in
the ways cells are written, and on every broken file of ``test_bad_files``.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from democratiza.tables import parse as typing
from democratiza.tables.errors import InputError, InputRejected
from democratiza.tables.parse import parse_rows
from democratiza.tables.readers import RawTable, read_table
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
    assert raw.frame.height <= typing.FEW_ROWS
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
