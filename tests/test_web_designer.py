"""The program designer's page, as the program office uses it: a population and a designs
file in, the comparison table (methods in words), its charts and the command's files out;
the work bounded, and the page the office's alone."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.design.designs import load_designs
from democratiza.design.simulate import simulate
from democratiza.design.sources import example_populations, from_offer, from_spec
from democratiza.reports import design_report
from democratiza.reports.design_comparison import comparison_csv, design_figures
from democratiza.reports.render.charts import responsive_svg
from democratiza.storage.database import make_engine, migrate
from democratiza.web.app import create_app
from democratiza.web.pages import designer_input
from tests.test_web_support import CODE, add_people, file_samples, log_in, open_offer

DESIGNS = Path(__file__).parents[1] / "examples" / "simulacion"
PAGE = "/oficina/disenador"


@pytest.fixture
def sqlite(tmp_path: Path) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{tmp_path / 'democratiza.db'}")
    migrate(engine)
    add_people(engine)
    open_offer(engine)
    file_samples(engine)
    yield engine
    engine.dispose()


def text(page: str) -> str:
    shown = re.sub(r"<(script|style|svg)\b.*?</\1>", " ", page, flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", shown)))


def office(engine: Engine) -> tuple[TestClient, str]:
    client = TestClient(create_app(engine))
    return client, log_in(client, "oficina")


def run(client: TestClient, csrf: str, fields: dict[str, str], designs: bytes, name: str) -> str:
    answer = client.post(
        PAGE, data={**fields, "csrf": csrf}, files={"disenos": (name, designs, "text/yaml")}
    )
    return str(answer.text)


def test_the_office_compares_designs_on_an_offer_s_acceptances(sqlite: Engine) -> None:
    client, csrf = office(sqlite)
    form = client.get(PAGE).text
    assert 'name="disenos"' in form and f'<option value="{CODE}"' in form
    file = DESIGNS / "disenos-central.yaml"
    page = run(client, csrf, {"fuente": "oferta", "oferta": CODE}, file.read_bytes(), file.name)
    shown = text(page)
    designs = load_designs(file)
    expected = [design_figures(o) for o in simulate(from_offer(sqlite, CODE), designs)]
    people = f"{expected[0].figures.aceptaciones:,}".replace(",", ".")
    assert f"3 diseños de {designs[0].offer.program.name} sobre {people} aceptantes" in shown
    for d in designs:
        assert d.name in shown
    # The methods in words, never their identifiers.
    assert "Igualitario con redistribución; remanente: al primero en radicar" in shown
    assert "Método de adjudicación: Proporcional a lo permitido" in shown
    assert "igualitario_redistribucion" not in shown and "primero_radicado" not in shown
    assert "adjudicacion.metodo" not in shown and "limites.central" not in shown  # key paths
    # The Lorenz curves and the placement, each for a wide screen and for a phone.
    assert page.count('<svg class="grafica-ancha"') == 2
    assert page.count('<svg class="grafica-estrecha"') == 2
    # The downloads are the command's files for the same designs on the same population.
    run_id = re.search(r"/oficina/disenador/([0-9a-f]{32})\.csv", page)
    assert run_id is not None
    csv = client.get(f"{PAGE}/{run_id.group(1)}.csv")
    assert csv.status_code == 200 and csv.content == comparison_csv(expected)
    assert client.get(f"{PAGE}/{run_id.group(1)}.pdf").content.startswith(b"%PDF")
    assert "Curvas de Lorenz" in client.get(f"{PAGE}/{run_id.group(1)}.html").text


def test_each_chart_is_drawn_once_per_comparison(
    sqlite: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page and the report to download show the same charts: drawn once for both."""
    drawn: list[str] = []

    def counted(*args: Any, **kwargs: Any) -> str:
        drawn.append(str(args[3]))  # the chart's title
        return responsive_svg(*args, **kwargs)

    monkeypatch.setattr("democratiza.reports.design_report.responsive_svg", counted)
    client, csrf = office(sqlite)
    file = DESIGNS / "disenos-central.yaml"
    page = run(client, csrf, {"fuente": "oferta", "oferta": CODE}, file.read_bytes(), file.name)
    assert drawn == [title for _, title, *_ in design_report.CHARTS]
    run_id = re.search(r"/oficina/disenador/([0-9a-f]{32})\.csv", page)
    assert run_id is not None
    report = client.get(f"{PAGE}/{run_id.group(1)}.html").text
    assert report.count('<svg class="grafica-ancha"') == page.count('<svg class="grafica-ancha"')


def test_a_shipped_synthetic_population_is_a_choice(sqlite: Engine) -> None:
    assert "poblacion-geb" in example_populations()
    client, csrf = office(sqlite)
    assert '<option value="poblacion-geb"' in client.get(PAGE).text
    file = DESIGNS / "disenos-geb.yaml"
    fields = {"fuente": "ejemplo", "ejemplo": "poblacion-geb"}
    shown = text(run(client, csrf, fields, file.read_bytes(), file.name))
    designs = load_designs(file)
    rows = from_spec(example_populations()["poblacion-geb"], designs[0])
    [base, *_] = [design_figures(o) for o in simulate(rows, designs)]
    placed = f"{base.figures.acciones_adjudicadas:,}".replace(",", ".")
    assert f"Acciones adjudicadas {placed}" in shown


def test_the_work_is_bounded_and_bad_files_are_refused_in_spanish(
    sqlite: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, csrf = office(sqlite)
    good = (DESIGNS / "disenos-central.yaml").read_bytes()
    offer = {"fuente": "oferta", "oferta": CODE}
    monkeypatch.setattr(designer_input, "MAX_POPULATION", 100)
    page = run(client, csrf, offer, good, "d.yaml")
    assert "aquí se simulan a lo sumo 100" in text(page) and 'id="error-oferta"' in page
    monkeypatch.setattr(designer_input, "MAX_POPULATION", 600_000)
    eleven = b"programa: central-seguros-vida\ndisenos:\n" + b"  - nombre: D\n" * 11
    assert "a lo sumo 10" in text(run(client, csrf, offer, eleven, "d.yaml"))
    server_file = b"programa: /etc/programa.yaml\ndisenos:\n  - nombre: D\n"
    assert "aquí el programa es uno de los incluidos" in text(
        run(client, csrf, offer, server_file, "d.yaml")
    )
    broken = run(client, csrf, offer, b"disenos: [nombre: {", "d.yaml")
    assert "d.yaml: no es YAML válido" in text(broken)
    no_list = text(run(client, csrf, offer, b"programa: central-seguros-vida\n", "d.yaml"))
    assert "disenos: falta este campo" in no_list
    assert "Field required" not in no_list
    assert "no está en UTF-8" in text(run(client, csrf, offer, "año".encode("latin-1"), "d.yaml"))
    monkeypatch.setattr(designer_input, "MAX_DESIGNS_FILE", 10)
    assert "el archivo pasa del límite de 10 bytes" in text(
        run(client, csrf, offer, good, "d.yaml")
    )


def test_the_designer_is_the_office_s_alone(sqlite: Engine) -> None:
    public = TestClient(create_app(sqlite))
    assert public.get(PAGE, follow_redirects=False).headers["location"].startswith("/entrar")
    for login in ("auditor", "comisionista_a"):
        client = TestClient(create_app(sqlite))
        log_in(client, login)
        assert client.get(PAGE).status_code == 403
