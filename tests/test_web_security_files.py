"""Files that ask too much of the reader: zip bombs, too many rows, a workbook too slow.

A workbook is refused from its zip directory, before any XML is parsed, when it would
expand too far; rows are counted while a file is read and time is watched while a workbook
is (a clock that the test moves, never a real wait). The command line reads files the same
way as the service.
"""

from __future__ import annotations

import csv
import threading
import zipfile
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from openpyxl import Workbook
from sqlalchemy import Engine
from typer.testing import CliRunner

from democratiza.cli.main import app as cli
from democratiza.filing import batches as batches_module
from democratiza.storage.database import make_engine, migrate
from democratiza.storage.schema import batches
from democratiza.tables.brokers import read_broker_file
from democratiza.tables.errors import InputRejected
from democratiza.tables.limits import ReadLimits
from democratiza.tables.readers import read_csv, read_json, read_xlsx
from democratiza.web.app import create_app
from tests.test_web_support import BROKER_A, BROKER_B, CODE, SAMPLE, bearer, open_offer
from tests.test_web_support import count as rows_in

BATCH = SAMPLE / "lote-1-casa-de-bolsa.csv"


def workbook(path: Path, rows: int = 5) -> Path:
    lines = list(csv.reader(BATCH.open(encoding="utf-8")))
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(lines[0])
    for n in range(rows):  # the sample's rows, again from the top when there are more
        sheet.append(lines[1 + n % (len(lines) - 1)])
    book.save(path)
    return path


def bomb(path: Path) -> Path:
    """A real workbook whose sheet carries 20 MiB of blank space: about 20 kB on disk."""
    plain = workbook(path.with_name("base.xlsx"))
    with zipfile.ZipFile(plain) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for part in source.infolist():
            data = source.read(part)
            if part.filename == "xl/worksheets/sheet1.xml":
                data = data.replace(b"</worksheet>", b" " * (20 << 20) + b"</worksheet>")
            out.writestr(part, data, zipfile.ZIP_DEFLATED)
    return path


def refusal(read: object) -> str:
    with pytest.raises(InputRejected) as refused:
        read()  # type: ignore[operator]
    [error] = refused.value.errors
    return error.message


def test_a_zip_bomb_is_refused_from_its_directory_without_parsing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = bomb(tmp_path / "bomba.xlsx")
    assert path.stat().st_size < 200_000

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("el libro se abrió")

    monkeypatch.setattr("openpyxl.load_workbook", never)
    message = refusal(lambda: read_xlsx(path))
    assert message.startswith("la parte 'xl/worksheets/sheet1.xml' del libro se expande")
    assert "más que el límite de 100" in message


def test_a_workbook_that_expands_past_the_limit_is_refused(tmp_path: Path) -> None:
    path = workbook(tmp_path / "lote.xlsx")
    small = ReadLimits(xlsx_expanded=1024)
    assert "más que el límite de 0 MiB" in refusal(lambda: read_xlsx(path, small))
    assert read_xlsx(path).frame.height == 5  # within the real limits it reads


def test_a_file_past_the_row_limit_is_refused_in_every_format(tmp_path: Path) -> None:
    few = ReadLimits(rows=3)
    expected = "el archivo tiene más de 3 filas de datos; divídalo en varios lotes"
    assert refusal(lambda: read_csv(BATCH, few)) == expected
    assert refusal(lambda: read_xlsx(workbook(tmp_path / "lote.xlsx"), few)) == expected
    json_batch = tmp_path / "lote.json"
    json_batch.write_text('[{"a": "1"}, {"a": "2"}, {"a": "3"}, {"a": "4"}]', encoding="utf-8")
    assert refusal(lambda: read_json(json_batch, few)) == expected


def test_a_workbook_slower_than_its_time_is_stopped(tmp_path: Path) -> None:
    # The clock is looked at once when reading starts and once at every row: the first
    # eleven looks find no time gone, the twelfth (row 11) a hundred seconds.
    ticks = iter([0.0] * 11 + [100.0] * 10_000)
    slow = ReadLimits(xlsx_seconds=60, clock=lambda: next(ticks))
    path = workbook(tmp_path / "lote.xlsx", rows=1_500)
    message = refusal(lambda: read_xlsx(path, slow))
    assert message == (
        "el libro tardó más de 60 segundos en leerse (llevaba 11 filas); envíe el lote como CSV"
    )


@pytest.fixture
def lite(tmp_path: Path) -> Engine:
    engine = make_engine(f"sqlite:///{tmp_path / 'archivos.db'}")
    migrate(engine)
    open_offer(engine)
    return engine


def test_a_broker_uploading_a_bomb_gets_422_and_nothing_is_stored(
    lite: Engine, tmp_path: Path
) -> None:
    client = TestClient(create_app(lite), headers=bearer(lite, BROKER_A))
    answer = client.post(
        f"/api/ofertas/{CODE}/lotes",
        files={"archivo": ("bomba.xlsx", bomb(tmp_path / "bomba.xlsx").read_bytes())},
        data={"lote": "B1"},
    )
    assert answer.status_code == 422
    [error] = answer.json()["errores"]
    assert error["archivo"] == "bomba.xlsx" and "se expande" in error["mensaje"]
    assert rows_in(lite, batches) == 0


def test_the_command_line_refuses_a_bomb_as_the_service_does(lite: Engine, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "lote",
            "importar",
            CODE,
            str(bomb(tmp_path / "bomba.xlsx")),
            "--comisionista",
            BROKER_A,
            "--lote",
            "B1",
            "--db",
            str(lite.url),
        ],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code != 0
    assert "se expande" in result.output and "Traceback" not in result.output
    assert rows_in(lite, batches) == 0


def test_one_brokers_slow_file_does_not_hold_another_brokers_batch(
    lite: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Broker A's file is still being read (held here by the test) when broker B files its
    batch: B is answered first; the batches are evaluated and stored one at a time."""
    app = create_app(lite)
    reading, release = threading.Event(), threading.Event()
    real = read_broker_file

    def held_for_a(*args: Any) -> Any:
        if args[2] == BROKER_A:
            reading.set()
            release.wait(60)
        return real(*args)

    monkeypatch.setattr(batches_module, "read_broker_file", held_for_a)
    answers: dict[str, int] = {}

    def send(broker: str, name: str) -> None:
        client = TestClient(app, headers=bearer(lite, broker))
        answer = client.post(
            f"/api/ofertas/{CODE}/lotes",
            files={"archivo": (name, (SAMPLE / name).read_bytes())},
            data={"lote": "L1"},
        )
        answers[broker] = answer.status_code

    slow = threading.Thread(target=send, args=(BROKER_A, "lote-1-casa-de-bolsa.csv"))
    slow.start()
    assert reading.wait(30)
    other = threading.Thread(target=send, args=(BROKER_B, "lote-2-acciones-y-valores.csv"))
    other.start()
    other.join(30)  # a guard, not a measure: B never waits for A's file
    b_answered_first = not other.is_alive() and slow.is_alive()
    release.set()
    slow.join(60)
    other.join(60)
    assert b_answered_first
    assert answers == {BROKER_A: 201, BROKER_B: 201}
    assert rows_in(lite, batches) == 2
