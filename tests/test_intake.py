"""Bad input gets a Spanish error naming file, row and column; good input parses exactly."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openpyxl import Workbook

from democratiza.tables.acceptances import ACCEPTANCES, COLUMNS
from democratiza.tables.errors import InputError, InputRejected
from democratiza.tables.format import MAX_DOLLARS, MAX_PESOS, MAX_SHARES
from democratiza.tables.parse import _plan, _typed, parse
from democratiza.tables.readers import read_records, read_table

HEADER = [c.name for c in COLUMNS if c.required] + ["obligado_declarar", "patrimonio_liquido"]
GOOD = [
    "A1",
    "SCB",
    "2018-01-15T10:30",
    "CC",
    "79",
    "Ana",
    "trabajador_activo",
    "1000",
    "contado",
    "si",
    "48000000.50",
]


def write_csv(
    tmp_path: Path, rows: list[list[str]], header: list[str] = HEADER, name: str = "lote.csv"
) -> Path:
    path = tmp_path / name
    path.write_text("\n".join(",".join(r) for r in [header, *rows]) + "\n", encoding="utf-8")
    return path


def errors_of(path: Path) -> list[InputError]:
    with pytest.raises(InputRejected) as exc:
        parse(read_table(path))
    return exc.value.errors


def with_cell(column: str, value: str, reference: str = "A2") -> list[str]:
    row = list(GOOD)
    row[0] = reference
    row[HEADER.index(column)] = value
    return row


def test_a_good_row_parses_money_to_exact_centavos(tmp_path: Path) -> None:
    frame = parse(read_table(write_csv(tmp_path, [GOOD])))
    row = frame.row(0, named=True)
    assert row["patrimonio_liquido"] == 4_800_000_050
    assert row["fila"] == 2  # the header is row 1, as in a spreadsheet
    assert row["obligado_declarar"] is True


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("categoria", "gerente", "valor desconocido 'gerente'"),
        ("patrimonio_liquido", "cuarenta", "no es un monto en pesos: 'cuarenta'"),
        ("patrimonio_liquido", "48.00.000", "no es un monto en pesos: '48.00.000'"),
        ("patrimonio_liquido", "-5", "monto negativo"),
        ("patrimonio_liquido", "99999999999999999", "fuera de todo rango plausible"),
        ("patrimonio_liquido", "1012.345", "más de dos decimales"),
        ("cantidad", "mil", "la cantidad no es un número"),
        ("cantidad", "-3", "cantidad negativa"),
        ("fecha_radicacion", "2018-13-01", "fecha y hora no válida"),
        ("obligado_declarar", "tal vez", "se espera si o no"),
        ("nombre", "", "campo obligatorio vacío"),
        ("nombre", "   ", "campo obligatorio vacío"),  # only spaces: blank
        ("fecha_radicacion", "", "campo obligatorio vacío"),  # required, of any kind
        ("cantidad", "", "falta la cantidad"),
    ],
)
def test_bad_cell_names_file_row_and_column(
    tmp_path: Path, column: str, value: str, message: str
) -> None:
    path = write_csv(tmp_path, [GOOD, with_cell(column, value)])
    [error] = errors_of(path)
    assert (error.file, error.row, error.column) == (str(path), 3, column)
    assert message in error.message
    assert f"fila 3, columna '{column}'" in str(error)


def test_amounts_as_people_write_them(tmp_path: Path) -> None:
    """The grammar of ``money.parse_pesos``, in a file (``;``-separated: commas are decimals):
    thousands grouped by dots in threes, at most two decimals after a comma, or after a dot
    when no dot groups thousands; a "$" in front is allowed."""
    written = [
        ("48000000", 4_800_000_000),
        ("2075.31", 207_531),
        ("2075,31", 207_531),
        ("48.000.000", 4_800_000_000),
        ("48.000.000,50", 4_800_000_050),
        ("$ 1.500", 150_000),
        ("1.50", 150),
    ]
    header = ";".join(HEADER)
    lines = [header]
    for i, (text, _) in enumerate(written):
        lines.append(";".join(with_cell("patrimonio_liquido", text, f"A{i}")))
    path = tmp_path / "montos.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    frame = parse(read_table(path))
    assert frame["patrimonio_liquido"].to_list() == [cents for _, cents in written]


def test_share_quantities_as_people_write_them(tmp_path: Path) -> None:
    """Shares by the rule of the pesos: a dot before exactly three digits groups thousands
    ('40.000.000', '1.500'); any other dot or comma starts a fraction, kept so the rules can
    refuse a fractional quantity."""
    written = [
        ("40000000", 40_000_000, False),
        ("40.000.000", 40_000_000, False),
        ("1.500", 1_500, False),
        ("1.500,5", 1_500, True),
        ("10.5", 10, True),
        ("10,25", 10, True),
        ("10.0", 10, False),
    ]
    lines = [";".join(HEADER)]
    for i, (text, _, _) in enumerate(written):
        lines.append(";".join(with_cell("cantidad", text, f"A{i}")))
    path = tmp_path / "cantidades.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    frame = parse(read_table(path))
    assert frame["cantidad"].to_list() == [n for _, n, _ in written]
    assert frame["cantidad_fraccionaria"].to_list() == [f for _, _, f in written]
    lines = [";".join(HEADER), ";".join(with_cell("cantidad", "40.00.000"))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    [error] = errors_of(path)
    assert (error.column, error.message) == ("cantidad", "la cantidad no es un número: '40.00.000'")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("48,000,000", "no es un monto en pesos: '48,000,000'"),  # commas never group thousands
        ("10,123", "más de dos decimales: '10,123'"),
        ("1.5000", "más de dos decimales"),
    ],
)
def test_amounts_not_in_the_grammar_are_refused(tmp_path: Path, text: str, message: str) -> None:
    lines = [";".join(HEADER), ";".join(with_cell("patrimonio_liquido", text))]
    path = tmp_path / "montos.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    [error] = errors_of(path)
    assert (error.row, error.column) == (2, "patrimonio_liquido")
    assert message in error.message


def test_date_times_and_yes_no_in_every_accepted_spelling(tmp_path: Path) -> None:
    """One file mixing every accepted date-time format and yes/no word: each cell reads as
    the first format that fits it, whatever its neighbours use."""
    written = [
        ("2018-01-15T10:30:59", "Sí", datetime(2018, 1, 15, 10, 30, 59), True),
        ("2018-01-15T10:30", "VERDADERO", datetime(2018, 1, 15, 10, 30), True),
        ("2018-01-15 10:30:07", "x", datetime(2018, 1, 15, 10, 30, 7), True),
        ("2018-01-15", "N", datetime(2018, 1, 15), False),
        ("2018-02-26T23:59:59", "falso", datetime(2018, 2, 26, 23, 59, 59), False),
        ("2018-02-26T23:59", "", datetime(2018, 2, 26, 23, 59), None),
    ]
    rows = []
    for i, (when, flag, _, _) in enumerate(written):
        row = with_cell("fecha_radicacion", when, f"A{i}")
        row[HEADER.index("obligado_declarar")] = flag
        rows.append(row)
    frame = parse(read_table(write_csv(tmp_path, rows)))
    assert frame["fecha_radicacion"].to_list() == [w[2] for w in written]
    assert frame["obligado_declarar"].to_list() == [w[3] for w in written]


@pytest.mark.parametrize(
    ("when", "flag"),
    [
        ("2018-01-15 10:30", "si"),
        ("15/01/2018", "si"),
        ("2018-01-15T25:00", "si"),
        ("2018-01-15", "talvez"),
        ("2018-01-15", "sii"),
    ],
)
def test_other_spellings_are_errors_beside_good_rows(tmp_path: Path, when: str, flag: str) -> None:
    bad = with_cell("fecha_radicacion", when, "A2")
    bad[HEADER.index("obligado_declarar")] = flag
    [error] = errors_of(write_csv(tmp_path, [GOOD, bad]))
    assert error.row == 3
    assert error.column == ("obligado_declarar" if flag != "si" else "fecha_radicacion")


def test_spaces_around_a_value_are_not_part_of_it(tmp_path: Path) -> None:
    padded = with_cell("patrimonio_liquido", "  48000000.50 ", "A2")
    padded[HEADER.index("categoria")] = " trabajador_activo\t"
    row = parse(read_table(write_csv(tmp_path, [padded]))).row(0, named=True)
    assert row["patrimonio_liquido"] == 4_800_000_050
    assert row["categoria"] == "trabajador_activo"


def test_every_bad_row_is_reported_not_only_the_first(tmp_path: Path) -> None:
    rows = [
        GOOD,
        with_cell("cantidad", "x", "A2"),
        with_cell("categoria", "y", "A3"),
        with_cell("patrimonio_liquido", "-1", "A4"),
    ]
    assert [(e.row, e.column) for e in errors_of(write_csv(tmp_path, rows))] == [
        (3, "cantidad"),
        (4, "categoria"),
        (5, "patrimonio_liquido"),
    ]


def test_missing_and_unknown_columns(tmp_path: Path) -> None:
    header = [h for h in HEADER if h != "cantidad"] + ["patrimonio"]
    row = [v for h, v in zip(HEADER, GOOD, strict=True) if h != "cantidad"] + ["1"]
    found = {(e.column, e.message) for e in errors_of(write_csv(tmp_path, [row], header))}
    assert found == {
        ("cantidad", "falta esta columna obligatoria"),
        ("patrimonio", "columna desconocida"),
    }


def test_duplicate_column(tmp_path: Path) -> None:
    [error] = errors_of(write_csv(tmp_path, [[*GOOD, "1"]], [*HEADER, "cantidad"]))
    assert (error.row, error.column, error.message) == (1, "cantidad", "columna duplicada")


def test_duplicate_reference_in_one_file(tmp_path: Path) -> None:
    errors = errors_of(write_csv(tmp_path, [GOOD, GOOD]))
    assert {(e.row, e.column) for e in errors} == {(2, "referencia"), (3, "referencia")}


def test_wrong_encoding_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.csv"
    text = ",".join(HEADER) + "\n" + ",".join(with_cell("nombre", "Muñoz")) + "\n"
    path.write_bytes(text.encode("latin-1"))
    [error] = errors_of(path)
    assert error.row == 2
    assert "UTF-8" in error.message


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "vacio.csv"
    path.write_text("", encoding="utf-8")
    assert errors_of(path)[0].message == "el archivo está vacío"
    header_only = write_csv(tmp_path, [], name="solo-encabezado.csv")
    assert "no tiene filas" in errors_of(header_only)[0].message


def test_semicolon_csv_from_spanish_excel(tmp_path: Path) -> None:
    path = tmp_path / "excel.csv"
    path.write_text(";".join(HEADER) + "\n" + ";".join(GOOD) + "\n", encoding="utf-8-sig")
    assert parse(read_table(path)).height == 1


def test_xlsx_rows_are_numbered_as_excel_shows_them(tmp_path: Path) -> None:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(HEADER)
    sheet.append([*GOOD[:7], 1000, *GOOD[8:10], 48000000.5])
    sheet.append([*with_cell("categoria", "otra")[:7], 10, *GOOD[8:]])
    path = tmp_path / "lote.xlsx"
    book.save(path)
    [error] = errors_of(path)
    assert (error.row, error.column) == (3, "categoria")
    sheet.delete_rows(3)
    book.save(path)
    assert parse(read_table(path))["patrimonio_liquido"].to_list() == [4_800_000_050]


def test_json_numbers_keep_their_exact_value(tmp_path: Path) -> None:
    item: dict[str, object] = dict(zip(HEADER, GOOD, strict=True))
    item["patrimonio_liquido"] = 2075.31
    path = tmp_path / "lote.json"
    path.write_text(json.dumps({"aceptaciones": [item]}), encoding="utf-8")
    assert parse(read_table(path))["patrimonio_liquido"].to_list() == [207_531]


def test_malformed_json(tmp_path: Path) -> None:
    path = tmp_path / "malo.json"
    path.write_text('[{"referencia": "A1",}]', encoding="utf-8")
    # Where, and why in Spanish: never the reader's "Expecting property name enclosed…".
    assert errors_of(path)[0].message == (
        "JSON mal formado en la línea 1, columna 22: se esperaba el nombre de un campo entre "
        "comillas dobles"
    )


def test_a_file_that_is_not_a_workbook_is_refused_in_spanish(tmp_path: Path) -> None:
    path = tmp_path / "lote.xlsx"
    path.write_text("referencia,cantidad\nA1,10\n", encoding="utf-8")
    assert errors_of(path)[0].message == (
        "no es un libro XLSX legible: el archivo está dañado o no es un .xlsx"
    )


def test_unsupported_extension(tmp_path: Path) -> None:
    path = tmp_path / "lote.txt"
    path.write_text("x", encoding="utf-8")
    assert "formato no admitido" in errors_of(path)[0].message


# Cells that sit on the edges of each kind: signs, decimals, digits, maxima, dates, codes.
EDGE_CELLS = [
    None,
    "",
    " ",
    "0",
    "1",
    "-1",
    "- 1",
    "+1",
    "12.5",
    "12.50",
    "12.505",
    "1.",
    ".5",
    "1e5",
    "1,000",
    "abc",
    "007",
    "999999999",
    "1000000000",
    "9999999999999999",
    "99999999999999999",
    f"{MAX_PESOS}",
    f"{MAX_PESOS}.00",
    f"{MAX_PESOS}.01",
    f"{MAX_DOLLARS}.00",
    f"{MAX_DOLLARS}.01",
    f"{MAX_SHARES}",
    f"{MAX_SHARES + 1}",
    f"{MAX_SHARES}.0",
    "si",
    "Sí",
    "NO",
    "x",
    "verdadero",
    "talvez",
    "2018-01-15",
    "2018-02-30",
    "2018-1-5",
    "2018-01-15T10:30",
    "2018-01-15T10:30:59",
    "2018-01-15 10:30:00",
    "2018-01-15 10:30",
    "15/01/2018",
    "CC",
    "NIT",
    "trabajador_activo",
    "contado",
    "cesantias",
    "activo",
    "ñandú",
]


CELLS_PER_ROW = len(ACCEPTANCES.columns)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(EDGE_CELLS), min_size=CELLS_PER_ROW, max_size=CELLS_PER_ROW),
        min_size=1,
        max_size=20,
    )
)
def test_a_cell_is_flagged_exactly_when_its_column_has_a_message(
    rows: list[list[str | None]],
) -> None:
    """The cheap checks that decide which rows fail (``_is_wrong``, on the typed values)
    and the Spanish messages that explain them must agree cell by cell: a flag without a
    message would drop a row unexplained, a message without a flag would let it through."""
    names = [c.name for c in ACCEPTANCES.columns]
    items = [
        {n: v for n, v in zip(names, row, strict=True) if v is not None} | {"referencia": f"R{i}"}
        for i, row in enumerate(rows)
    ]
    frame = read_records("prueba", items).frame
    frame = frame.with_columns(
        pl.lit(None, dtype=pl.String).alias(n) for n in names if n not in frame.columns
    )
    plan = _plan(ACCEPTANCES)
    frame = frame.with_columns(plan.prepared)
    messages = frame.select(m.is_not_null() for m in plan.messages)
    typed = _typed(frame, plan, ACCEPTANCES)
    flags = typed.select(plan.flags[:-1])  # the last flag is the repeated reference
    for name, flag, message in zip(
        names, flags.iter_columns(), messages.iter_columns(), strict=True
    ):
        assert flag.to_list() == message.to_list(), name
