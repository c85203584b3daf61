"""Workbooks that are small on disk and huge once padded: read cell by cell, never padded.

A few kilobytes of XLSX declaring ``A1:XFD1000000`` with one cell in row 1.000.000 used to
ask for a thousand million cells (gigabytes, then a MemoryError or a 500). Each workbook
here is crafted from a real one by editing its sheet's XML; each is read in well under a
second with a few megabytes, or refused in Spanish.
"""

from __future__ import annotations

import time
import tracemalloc
import zipfile
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.storage.database import make_engine, migrate
from democratiza.storage.schema import batches
from democratiza.tables.limits import ReadLimits
from democratiza.tables.readers import read_xlsx
from democratiza.web.app import create_app
from tests.test_web_security_files import refusal, workbook
from tests.test_web_support import BROKER_A, CODE, bearer, open_offer
from tests.test_web_support import count as rows_in

FAR_ROW = b'<row r="1000000"><c r="B1000000" t="inlineStr"><is><t>x</t></is></c></row>'


SHARED_STRINGS = (
    b'<Override PartName="/xl/sharedStrings.xml" ContentType="application/'
    b'vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
)


def edited(path: Path, edit: dict[bytes, bytes], strings: bytes | None = None) -> Path:
    """The sample workbook with its sheet's XML edited (``edit``: text → replacement)."""
    plain = workbook(path.with_name("base.xlsx"))
    with zipfile.ZipFile(plain) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for part in source.infolist():
            data = source.read(part)
            if part.filename == "xl/worksheets/sheet1.xml":
                for old, new in edit.items():
                    assert old in data, old
                    data = data.replace(old, new)
            if part.filename == "[Content_Types].xml" and strings is not None:
                data = data.replace(b"</Types>", SHARED_STRINGS + b"</Types>")
            out.writestr(part, data, zipfile.ZIP_DEFLATED)
        if strings is not None:
            out.writestr("xl/sharedStrings.xml", strings, zipfile.ZIP_DEFLATED)
    return path


def padded_bomb(path: Path, row: bytes = FAR_ROW) -> Path:
    """Declares A1:XFD1000000 and holds one cell in row 1.000.000: a few kilobytes."""
    return edited(
        path,
        {
            b'<dimension ref="A1:AI6" />': b'<dimension ref="A1:XFD1000000"/>',
            b"</sheetData>": row + b"</sheetData>",
        },
    )


def test_a_cell_in_row_a_million_is_read_without_padding_the_rows_between(
    tmp_path: Path,
) -> None:
    path = padded_bomb(tmp_path / "lejana.xlsx")
    assert path.stat().st_size < 10_000
    tracemalloc.start()
    started = time.monotonic()
    table = read_xlsx(path)
    seconds = time.monotonic() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # The five sample rows, then the far one with its own number (the blank rows between
    # hold no acceptance); only the header's 35 columns, not XFD's 16.384.
    assert table.frame["fila"].to_list() == [2, 3, 4, 5, 6, 1_000_000]
    assert table.frame.width == 36
    assert seconds < 2 and peak < 20 * 2**20


def test_a_row_number_past_the_rows_a_file_may_have_is_refused_when_it_appears(
    tmp_path: Path,
) -> None:
    far = FAR_ROW.replace(b"1000000", b"1000002")
    message = refusal(lambda: read_xlsx(padded_bomb(tmp_path / "lejana.xlsx", far)))
    assert message == "el archivo tiene más de 1.000.000 filas de datos; divídalo en varios lotes"


def test_cells_right_of_the_header_are_not_read(tmp_path: Path) -> None:
    wide = b'<c r="XFD2" t="inlineStr"><is><t>' + b"y" * 1000 + b"</t></is></c></row>"
    path = edited(tmp_path / "ancha.xlsx", {b'</row><row r="3">': wide + b'<row r="3">'})
    table = read_xlsx(path)
    assert table.frame.width == 36 and table.frame.height == 5


def test_a_row_of_cells_past_excels_last_column_is_refused(tmp_path: Path) -> None:
    endless = b"<row>" + b"<c><v>1</v></c>" * 16_385 + b"</row></sheetData>"
    path = edited(tmp_path / "infinita.xlsx", {b"</sheetData>": endless})
    assert refusal(lambda: read_xlsx(path)) == (
        "el libro tiene celdas más allá de la columna 16384"
    )


def test_one_shared_text_repeated_past_the_budget_is_refused_while_reading(
    tmp_path: Path,
) -> None:
    """A 100 kB text stored once and named by 2.000 cells would be 200 MB of cells."""
    strings = (
        b'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="1" '
        b'uniqueCount="1"><si><t>' + b"z" * 100_000 + b"</t></si></sst>"
    )
    cells = b"".join(
        b'<row r="%d"><c r="B%d" t="s"><v>0</v></c></row>' % (n, n) for n in range(7, 2007)
    )
    path = edited(tmp_path / "repetida.xlsx", {b"</sheetData>": cells + b"</sheetData>"}, strings)
    message = refusal(lambda: read_xlsx(path, ReadLimits(xlsx_expanded=16 * 2**20)))
    assert message.startswith("las celdas del libro suman más de 16 MiB de texto al leerlas")
    assert message.endswith("; envíe el lote como CSV")


@pytest.fixture
def lite(tmp_path: Path) -> Engine:
    engine = make_engine(f"sqlite:///{tmp_path / 'libros.db'}")
    migrate(engine)
    open_offer(engine)
    return engine


def test_a_broker_uploading_the_padded_workbook_gets_422_naming_the_far_row(
    lite: Engine, tmp_path: Path
) -> None:
    client = TestClient(create_app(lite), headers=bearer(lite, BROKER_A))
    answer = client.post(
        f"/api/ofertas/{CODE}/lotes",
        files={"archivo": ("lejana.xlsx", padded_bomb(tmp_path / "lejana.xlsx").read_bytes())},
        data={"lote": "B1"},
    )
    assert answer.status_code == 422
    assert {e["fila"] for e in answer.json()["errores"]} == {1_000_000}
    assert rows_in(lite, batches) == 0
