"""A population the program office uploads to the designer's page: acceptances in the
format of a batch (read and checked as a batch is) or a population parameter file; the
comparison is the command's on the same file, a refused file is shown row by row, and the
upload is bounded before it is read and never kept."""

from __future__ import annotations

import csv
import json
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from typer.testing import CliRunner

from democratiza.cli.main import app as cli
from democratiza.design.sources import from_file
from democratiza.tables.errors import InputRejected
from democratiza.web.api.uploads import save_upload
from democratiza.web.app import create_app
from democratiza.web.pages import designer, designer_input
from democratiza.web.server.scratch import PREFIX, service_folder
from tests.test_web_designer import DESIGNS, PAGE, text
from tests.test_web_support import SAMPLE, add_people, log_in

MIB = 1024 * 1024
BATCH = SAMPLE / "lote-1-casa-de-bolsa.csv"
BAD_BATCH = SAMPLE / "lote-4-credicorp-capital-con-errores.csv"
SPEC = DESIGNS / "poblacion-geb.yaml"


@pytest.fixture
def office(engine: Engine) -> Iterator[tuple[TestClient, str]]:
    """The office logged in, on SQLite and on PostgreSQL; no offer is needed."""
    add_people(engine)
    client = TestClient(create_app(engine, max_upload=MIB))
    yield client, log_in(client, "oficina")


def post(
    client: TestClient, csrf: str, designs: Path, population: tuple[str, bytes, str]
) -> tuple[int, str]:
    answer = client.post(
        PAGE,
        data={"fuente": "archivo", "csrf": csrf},
        files={
            "disenos": (designs.name, designs.read_bytes(), "text/yaml"),
            "poblacion": population,
        },
    )
    return answer.status_code, answer.text


def scratch() -> set[Path]:
    """This process's private folders for uploads (each request removes its own); not the
    service's own folder, which keeps the downloads for an hour."""
    mine = set(Path(tempfile.gettempdir()).glob(f"{PREFIX}{os.getpid()}-*"))
    return mine - {service_folder()}


def squeezed(words: str) -> str:
    """Without spaces: the page marks identifiers in a message as code."""
    return re.sub(r"\s+", "", words)


def command_csv(tmp_path: Path, designs: Path, *population: str) -> bytes:
    out = tmp_path / "simular"
    result = CliRunner().invoke(cli, ["simular", str(designs), *population, "-o", str(out)])
    assert result.exit_code == 0, result.output
    return (out / "comparacion-disenos.csv").read_bytes()


def page_csv(client: TestClient, page: str) -> bytes:
    run_id = re.search(r"/oficina/disenador/([0-9a-f]{32})\.csv", page)
    assert run_id is not None, text(page)
    return bytes(client.get(f"{PAGE}/{run_id.group(1)}.csv").content)


def test_an_uploaded_batch_gives_the_command_s_comparison(
    office: tuple[TestClient, str], tmp_path: Path
) -> None:
    client, csrf = office
    assert 'name="poblacion"' in client.get(PAGE).text
    before = scratch()
    designs = DESIGNS / "disenos-central.yaml"
    status, page = post(client, csrf, designs, (BATCH.name, BATCH.read_bytes(), "text/csv"))
    assert status == 200
    assert "sobre 750 aceptantes" in text(page)
    assert page_csv(client, page) == command_csv(tmp_path, designs, "--aceptaciones", str(BATCH))
    assert scratch() == before  # the uploaded file is removed with the request


def test_an_uploaded_json_batch_gives_the_command_s_comparison(
    office: tuple[TestClient, str], tmp_path: Path
) -> None:
    """The same acceptances as JSON: the reader chosen by the name's ending, as for a batch."""
    client, csrf = office
    with BATCH.open(encoding="utf-8", newline="") as rows:
        records = [{k: v for k, v in row.items() if v} for row in csv.DictReader(rows)]
    batch = tmp_path / "aceptaciones.json"
    batch.write_text(json.dumps({"aceptaciones": records}, ensure_ascii=False), encoding="utf-8")
    designs = DESIGNS / "disenos-central.yaml"
    status, page = post(client, csrf, designs, (batch.name, batch.read_bytes(), ""))
    assert status == 200 and "sobre 750 aceptantes" in text(page)
    assert page_csv(client, page) == command_csv(tmp_path, designs, "--aceptaciones", str(batch))


def test_an_uploaded_population_file_gives_the_command_s_comparison(
    office: tuple[TestClient, str], tmp_path: Path
) -> None:
    client, csrf = office
    designs = DESIGNS / "disenos-geb.yaml"
    status, page = post(client, csrf, designs, (SPEC.name, SPEC.read_bytes(), "text/yaml"))
    assert status == 200
    assert page_csv(client, page) == command_csv(tmp_path, designs, "--poblacion", str(SPEC))


def test_a_refused_batch_shows_its_rows_and_columns_in_spanish(
    office: tuple[TestClient, str],
) -> None:
    client, csrf = office
    before = scratch()
    designs = DESIGNS / "disenos-central.yaml"
    status, page = post(client, csrf, designs, (BAD_BATCH.name, BAD_BATCH.read_bytes(), "text/csv"))
    assert status == 422
    with pytest.raises(InputRejected) as refused:
        from_file(BAD_BATCH)
    errors = refused.value.errors
    shown = text(page)
    assert f"El archivo de aceptaciones tiene {len(errors)} errores" in shown
    assert 'id="error-poblacion"' in page and '<table id="errores">' in page
    table = page.split('<table id="errores">')[1].split("</table>")[0]
    for error in errors:  # the reader's own words, under the office's name for the file
        row = f'<td class="num">{error.row or ""}</td>'
        assert row in table and squeezed(error.message) in squeezed(text(table))
        if error.column:
            assert f"<code>{error.column}</code>" in table
    assert BAD_BATCH.name in table and tempfile.gettempdir() not in page
    assert scratch() == before


def test_a_population_file_names_the_key_it_refuses(
    office: tuple[TestClient, str], tmp_path: Path
) -> None:
    client, csrf = office
    designs = DESIGNS / "disenos-geb.yaml"
    wrong = SPEC.read_text(encoding="utf-8").replace("semilla:", "semila:")
    wrong = wrong.replace("pensionado: ", "pensionado: muchos #", 1)
    status, page = post(client, csrf, designs, ("mia.yaml", wrong.encode(), "text/yaml"))
    shown = text(page)
    assert status == 422 and 'id="error-poblacion"' in page
    assert "mia.yaml: " in shown and "semila: clave desconocida" in shown
    assert "semilla: falta este campo" in shown
    assert "aceptantes.pensionado: se espera un número entero" in shown
    assert "Field required" not in shown and "Extra inputs" not in shown
    mine = tmp_path / "mia.yaml"  # the command says the same, with the file's path
    mine.write_text(wrong, encoding="utf-8")
    said = CliRunner().invoke(cli, ["simular", str(designs), "--poblacion", str(mine)])
    assert said.exit_code != 0 and "semila:clavedesconocida" in squeezed(said.output)
    broken = post(client, csrf, designs, ("mia.yaml", b"semilla: [", "text/yaml"))[1]
    assert "mia.yaml: no es YAML válido" in text(broken)


def test_an_uploaded_population_is_bounded_before_it_is_read(
    office: tuple[TestClient, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, csrf = office
    designs = DESIGNS / "disenos-central.yaml"
    saved: list[object] = []

    def save(*args: Any) -> tuple[Path, str]:
        saved.append(args)
        return save_upload(*args)

    monkeypatch.setattr("democratiza.web.pages.designer_input.save_upload", save)
    # A file over the limit, in a body the service reads: refused by its size, never saved.
    big = b"x" * (MIB + 1)
    status, page = post(client, csrf, designs, ("grande.csv", big, "text/csv"))
    assert status == 413 and "el archivo pasa del límite de 1 MiB" in text(page)
    assert 'id="error-poblacion"' in page and saved == []
    # A body past the page's own limit: 413 from its declared length, the page never runs.
    ran: list[object] = []
    monkeypatch.setattr(designer, "population_upload", lambda *a: ran.append(a))
    status, answer = post(client, csrf, designs, ("enorme.csv", b"x" * (2 * MIB + 1), "text/csv"))
    assert status == 413 and "La solicitud pasa del límite de 2 MiB." in answer and ran == []
    monkeypatch.undo()
    # More acceptants than a simulation here takes: counted once read, before any is typed.
    monkeypatch.setattr(designer_input, "MAX_POPULATION", 100)
    status, page = post(client, csrf, designs, (BATCH.name, BATCH.read_bytes(), "text/csv"))
    assert status == 422
    assert "la población tiene 750 aceptantes y aquí se simulan a lo sumo 100" in text(page)
    small = SPEC.read_text(encoding="utf-8")
    status, page = post(client, csrf, DESIGNS / "disenos-geb.yaml", ("p.yaml", small.encode(), ""))
    assert "aquí se simulan a lo sumo 100" in text(page)


def test_what_the_page_cannot_read_is_refused_in_spanish(office: tuple[TestClient, str]) -> None:
    client, csrf = office
    designs = DESIGNS / "disenos-central.yaml"
    status, page = post(client, csrf, designs, ("notas.txt", b"hola", "text/plain"))
    assert status == 422 and "formato no admitido ('notas.txt')" in text(page)
    answer = client.post(
        PAGE,
        data={"fuente": "archivo", "csrf": csrf},
        files={"disenos": (designs.name, designs.read_bytes(), "text/yaml")},
    )
    assert answer.status_code == 422 and "falta el archivo de la población" in text(answer.text)


def test_only_the_office_uploads_a_population(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_people(engine)
    read: list[object] = []
    monkeypatch.setattr(designer, "population_upload", lambda *a: read.append(a))
    for login in ("auditor", "comisionista_a"):
        client = TestClient(create_app(engine))
        csrf = log_in(client, login)
        status, _ = post(client, csrf, DESIGNS / "disenos-central.yaml", (BATCH.name, b"x", ""))
        assert status == 403
    assert read == []  # refused before the body is read


def alias_bomb() -> bytes:
    """A designs file whose one change is nine levels of YAML aliases, each naming the
    previous level nine times: under 600 bytes that stand for 9^9 (387 millions of) values
    once walked (before it was refused, validating it kept a core busy for hours)."""
    levels = ["&a [x, x, x, x, x, x, x, x, x]"]
    for level, previous in zip("bcdefghi", "abcdefgh", strict=True):
        levels.append(f"&{level} [{', '.join([f'*{previous}'] * 9)}]")
    return (
        "programa: central-seguros-vida\n"
        'oferta: {precio: "1000.00", acciones_ofrecidas: 40000000, '
        "fecha_aviso: 2017-12-22, fecha_cierre: 2018-02-26}\n"
        "disenos:\n"
        "  - nombre: bomba\n"
        "    cambios:\n"
        f"      adjudicacion.metodo: [{', '.join(levels)}]\n"
    ).encode()


def test_yaml_aliases_are_refused_in_every_uploaded_yaml(office: tuple[TestClient, str]) -> None:
    client, csrf = office
    bomb = alias_bomb()
    assert len(bomb) < 700
    refusal = "no se admiten anclas ni alias de YAML (&amp;nombre, *nombre)"
    # As the designs file: refused at once, in words, before anything walks the values (a
    # bomb walked would never answer: pytest-timeout fails it; the test client has no timeout).
    answer = client.post(
        PAGE,
        data={"fuente": "archivo", "csrf": csrf},
        files={
            "disenos": ("disenos.yaml", bomb, "text/yaml"),
            "poblacion": (BATCH.name, BATCH.read_bytes(), "text/csv"),
        },
    )
    assert answer.status_code == 422 and refusal in answer.text
    # As a population file.
    designs = DESIGNS / "disenos-geb.yaml"
    status, page = post(client, csrf, designs, ("poblacion.yaml", bomb, "text/yaml"))
    assert status == 422 and refusal in page
    # One anchor used once more is refused the same way: no file here needs them.
    small = b"semilla: &s 7\notra: *s\n"
    assert refusal in post(client, csrf, designs, ("p.yaml", small, "text/yaml"))[1]
