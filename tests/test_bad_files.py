"""Files that are broken in the ways files break: each is refused in Spanish, with its file,
row and column, the same on SQLite and on PostgreSQL, and nothing of it is written.

Each file is the sample batch's first row, spoiled in one way: lines ending in a bare
carriage return, a date in year 0, JSON nested 10.000 deep, a row with more or fewer fields
than the header, a quote never closed, a NUL byte, a field of 100.000 characters, a JSON
object where a name goes, an XLSX formula whose value was never computed.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from openpyxl import Workbook
from sqlalchemy import Engine, func, select

from democratiza.filing.batches import import_batch
from democratiza.offers.lifecycle import advance, create_offer
from democratiza.storage.schema import acceptances, batches
from democratiza.tables import readers
from democratiza.tables.errors import InputError, InputRejected
from democratiza.tables.parse import parse
from democratiza.tables.readers import read_table, read_table_chunks

SAMPLE = Path(__file__).parents[1] / "examples/primera-etapa"
LINES = (SAMPLE / "lote-1-casa-de-bolsa.csv").read_text(encoding="utf-8").splitlines()
HEADER, ROW = LINES[0], LINES[1]
NAMES = HEADER.split(",")
CELLS = ROW.split(",")
BROKER = "Casa de Bolsa"


def spoiled(column: str, value: str) -> str:
    """The sample row with one cell replaced."""
    cells = list(CELLS)
    cells[NAMES.index(column)] = value
    return ",".join(cells)


def csv_file(folder: Path, *rows: str, end: str = "\n") -> Path:
    """A CSV of the sample header and these rows, each line ending in ``end``."""
    path = folder / "lote.csv"
    path.write_bytes("".join(line + end for line in (HEADER, *rows)).encode())
    return path


def json_file(folder: Path, text: str) -> Path:
    path = folder / "lote.json"
    path.write_text(text, encoding="utf-8")
    return path


def one_object(**changes: object) -> str:
    item: dict[str, object] = {k: v for k, v in zip(NAMES, CELLS, strict=True) if v}
    return json.dumps([{**item, **changes}])


def xlsx_with_formula(folder: Path, cached: str | None) -> Path:
    """The sample row as a workbook whose 'cantidad' is the formula =1000+853, its computed
    value stored beside it as Excel does (``cached``) or missing, as a script leaves it."""
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(NAMES)
    sheet.append([int(c) if c.isdigit() else (c or None) for c in CELLS])
    sheet.cell(row=2, column=NAMES.index("cantidad") + 1, value="=1000+853")
    plain = folder / "sin-valor.xlsx"
    book.save(plain)
    if cached is None:
        return plain
    path = folder / "con-valor.xlsx"
    with zipfile.ZipFile(plain) as source, zipfile.ZipFile(path, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = data.replace(
                    b"<f>1000+853</f><v />", f"<f>1000+853</f><v>{cached}</v>".encode()
                )
            target.writestr(item, data)
    return path


BAD_FILES: dict[str, tuple[Callable[[Path], Path], InputError]] = {
    "líneas que terminan en un retorno de carro solo": (
        lambda d: csv_file(d, ROW, end="\r"),
        InputError(
            "lote.csv",
            1,
            None,
            "la fila termina en un retorno de carro (CR) sin salto de línea: guarde el archivo "
            "como «CSV UTF-8» (finales de línea LF o CRLF)",
        ),
    ),
    "una fecha del año 0": (
        lambda d: csv_file(d, spoiled("fecha_certificado", "0000-01-30")),
        InputError(
            "lote.csv",
            2,
            "fecha_certificado",
            "fecha fuera de todo rango plausible (años 1800 a 2199): '0000-01-30'",
        ),
    ),
    "una fecha y hora del año 0": (
        lambda d: csv_file(d, spoiled("fecha_radicacion", "0000-01-01T10:00")),
        InputError(
            "lote.csv",
            2,
            "fecha_radicacion",
            "fecha fuera de todo rango plausible (años 1800 a 2199): '0000-01-01T10:00'",
        ),
    ),
    "JSON anidado 10.000 niveles": (
        lambda d: json_file(d, "[" * 10_000 + "]" * 10_000),
        InputError(
            "lote.json",
            1,
            None,
            "JSON anidado a demasiada profundidad: se espera una lista de objetos planos "
            "(línea 1, columna 65)",
        ),
    ),
    "JSON anidado 10.000 niveles en la tercera aceptación": (
        lambda d: json_file(
            d, '[\n{"a": "[["},\n{"a": "2"},\n{"a": ' + "[" * 10_000 + "]" * 10_000 + "}\n]"
        ),
        InputError(
            "lote.json",
            4,
            None,
            "JSON anidado a demasiada profundidad: se espera una lista de objetos planos "
            "(línea 4, columna 69)",
        ),
    ),
    "una fila con dos campos de más": (
        lambda d: csv_file(d, ROW + ",extra,otro"),
        InputError(
            "lote.csv",
            2,
            None,
            "sobran campos: la fila tiene 37 y el encabezado 35 (separados por ','); un texto "
            "que contiene ',' va entre comillas dobles",
        ),
    ),
    "una fila con 10 de los 35 campos": (
        lambda d: csv_file(d, ",".join(CELLS[:10])),
        InputError(
            "lote.csv",
            2,
            "obligado_declarar",
            "faltan campos: la fila tiene 10 y el encabezado 35 (separados por ','); falta "
            "desde esta columna",
        ),
    ),
    "una comilla que no se cierra": (
        lambda d: csv_file(d, ROW, spoiled("nombre", '"Ana Pérez')),
        InputError(
            "lote.csv",
            3,
            "nombre",
            'una comilla doble (") abre un texto que no se cierra, o está en medio de un campo: '
            'cierre la comilla, o escriba "" para una comilla dentro de un texto',
        ),
    ),
    "un byte NUL en un nombre": (
        lambda d: csv_file(d, spoiled("nombre", "Ana\x00Pérez")),
        InputError(
            "lote.csv",
            2,
            "nombre",
            "contiene un carácter de control (código 0x00) que no es texto: quítelo del archivo",
        ),
    ),
    "un nombre de 100.000 caracteres": (
        lambda d: csv_file(d, spoiled("nombre", "A" * 100_000)),
        InputError("lote.csv", 2, "nombre", "el campo tiene 100000 caracteres; el máximo es 300"),
    ),
    "un objeto JSON donde va un nombre": (
        lambda d: json_file(d, one_object(nombre={"primer": "Ana"})),
        InputError(
            "lote.json",
            1,
            "nombre",
            "el valor es una lista u objeto JSON; se espera un texto, un número, una fecha o si/no",
        ),
    ),
    "una fórmula de XLSX sin su valor calculado": (
        lambda d: xlsx_with_formula(d, cached=None),
        InputError(
            "sin-valor.xlsx",
            2,
            "cantidad",
            "la celda tiene la fórmula =1000+853 sin su valor calculado: abra el libro en Excel "
            "y guárdelo (así se calcula), o escriba el valor",
        ),
    ),
}


def first_error(path: Path) -> InputError:
    with pytest.raises(InputRejected) as refused:
        import_or_read(path)
    error = refused.value.errors[0]
    return InputError(Path(error.file).name, error.row, error.column, error.message)


def import_or_read(path: Path, engine: Engine | None = None) -> None:
    if engine is None:
        parse(read_table(path))
    else:
        import_batch(engine, "central", path, BROKER, "L1", "prueba")


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_a_broken_file_is_refused_with_its_row_and_column(case: str, tmp_path: Path) -> None:
    make, expected = BAD_FILES[case]
    assert first_error(make(tmp_path)) == expected


@pytest.mark.parametrize(
    "case", [c for c, (make, e) in BAD_FILES.items() if e.file.endswith(".csv")]
)
def test_the_reader_in_pieces_refuses_a_broken_csv_as_the_whole_file_reader(
    case: str, tmp_path: Path
) -> None:
    # ``democratiza evaluar`` reads a file in pieces of a few rows: the same answer.
    make, expected = BAD_FILES[case]
    with pytest.raises(InputRejected) as refused:
        for piece in read_table_chunks(make(tmp_path), 1).pieces:
            parse(piece)
    error = refused.value.errors[0]
    assert InputError(Path(error.file).name, error.row, error.column, error.message) == expected


@pytest.mark.parametrize(
    "case", [c for c, (make, e) in BAD_FILES.items() if e.file.endswith(".csv")]
)
def test_a_broken_csv_read_while_its_shape_is_counted_is_refused_alike(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A large file is read by Polars while another thread counts its shape and looks at its
    # bytes: the same first error as reading one after the other (every file taken as large).
    make, expected = BAD_FILES[case]
    monkeypatch.setattr(readers, "BESIDE_BYTES", 0)
    assert first_error(make(tmp_path)) == expected


@pytest.mark.parametrize("quoted", [False, True])
def test_a_good_csv_read_while_its_shape_is_counted_is_the_same_table(
    quoted: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A file with quotes takes the careful path, which keeps the table Polars read meanwhile.
    text = (SAMPLE / "lote-1-casa-de-bolsa.csv").read_text(encoding="utf-8")
    path = tmp_path / "lote.csv"
    path.write_text(text.replace(",si,", ',"si",') if quoted else text, encoding="utf-8")
    assert ('"' in path.read_text(encoding="utf-8")) == quoted
    alone = read_table(path).frame
    monkeypatch.setattr(readers, "BESIDE_BYTES", 0)
    assert read_table(path).frame.equals(alone)


def test_a_ragged_row_far_after_the_first_piece_is_refused_before_any_piece(
    tmp_path: Path,
) -> None:
    rows = [ROW.replace("AC-0000001", f"AC-{i}") for i in range(50)]
    path = csv_file(tmp_path, *rows, ",".join(CELLS[:10]))
    with pytest.raises(InputRejected) as refused:
        read_table_chunks(path, 5)  # before the first piece is given to anyone
    assert [(e.row, e.column) for e in refused.value.errors] == [(52, "obligado_declarar")]


def test_a_quoted_line_break_counts_as_one_row_in_pieces_too(tmp_path: Path) -> None:
    path = csv_file(tmp_path, spoiled("nombre", '"Ana\nPérez"'), ROW.replace("AC-0000001", "AC-2"))
    chunks = read_table_chunks(path, 1)
    rows = [
        (n, name)
        for piece in chunks.pieces
        for n, name in piece.frame.select("fila", "nombre").iter_rows()
    ]
    assert rows == [(2, "Ana\nPérez"), (3, "Diana Salazar Rodríguez")]


@pytest.fixture
def offer(engine: Engine) -> Engine:
    params = yaml.safe_load((SAMPLE / "oferta.yaml").read_text(encoding="utf-8"))
    with engine.begin() as conn:
        stored = create_offer(conn, "central", "central-seguros-vida", params, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "apertura")
    return engine


def test_every_broken_file_gets_the_same_answer_on_both_databases_and_nothing_is_written(
    offer: Engine, tmp_path: Path
) -> None:
    for case, (make, expected) in BAD_FILES.items():
        folder = tmp_path / str(len(list(tmp_path.iterdir())))
        folder.mkdir()
        with pytest.raises(InputRejected) as refused:
            import_or_read(make(folder), offer)
        error = refused.value.errors[0]
        assert (Path(error.file).name, error.row, error.column, error.message) == (
            expected.file,
            expected.row,
            expected.column,
            expected.message,
        ), case
    with offer.connect() as conn:
        written = [
            conn.execute(select(func.count()).select_from(t)).scalar_one()
            for t in (batches, acceptances)
        ]
    assert written == [0, 0]


def test_a_formula_with_its_computed_value_is_read_as_that_value(tmp_path: Path) -> None:
    table = read_table(xlsx_with_formula(tmp_path, cached="1853"))
    assert table.frame["cantidad"].to_list() == ["1853"]


def test_a_line_break_inside_a_quoted_name_is_still_one_row(tmp_path: Path) -> None:
    path = csv_file(tmp_path, spoiled("nombre", '"Ana\nPérez"'), ROW.replace("AC-0000001", "AC-2"))
    assert read_table(path).frame["nombre"].to_list() == ["Ana\nPérez", "Diana Salazar Rodríguez"]


def test_a_reference_filed_twice_in_one_file_is_named_on_both_rows(tmp_path: Path) -> None:
    # Rows 2 and 4 carry the same reference; row 3 another. The cheap look at the
    # references' hashes finds the pair, and each row is told which reference repeats.
    path = csv_file(tmp_path, ROW, spoiled("referencia", "OTRA-1"), ROW)
    with pytest.raises(InputRejected) as refused:
        parse(read_table(path))
    reference = CELLS[NAMES.index("referencia")]
    said = f"referencia repetida en el archivo: '{reference}'"
    assert [(e.row, e.column, e.message) for e in refused.value.errors] == [
        (2, "referencia", said),
        (4, "referencia", said),
    ]


def test_yes_and_no_written_in_capitals_or_with_an_accent_are_read_as_si_and_no(
    tmp_path: Path,
) -> None:
    # 'Sí', 'SI', 'No' and 'x' are read as the plain 'si' and 'no' are; only 'tal vez' fails.
    column = next(n for n, c in zip(NAMES, CELLS, strict=True) if c in ("si", "no"))
    words = ["si", "Sí", "SI", "No", "x", "no"]
    rows = [spoiled(column, w).replace(ROW.split(",")[0], f"R-{i}", 1) for i, w in enumerate(words)]
    typed = parse(read_table(csv_file(tmp_path, *rows)))
    assert typed[column].to_list() == [True, True, True, False, True, False]
    with pytest.raises(InputRejected) as refused:
        parse(read_table(csv_file(tmp_path, *rows, spoiled(column, "tal vez"))))
    assert [(e.row, e.column, e.message) for e in refused.value.errors][-1] == (
        8,
        column,
        "se espera si o no: 'tal vez'",
    )
