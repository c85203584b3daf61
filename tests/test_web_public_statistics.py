"""A published offer's public statistics, read by anyone without logging in: the headline
figures the adjudication report computes, its charts, and the package to verify it; no name,
identification number or peso of anyone."""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.adjudication.record import adjudicate, publish, stored_adjudication
from democratiza.labels import label
from democratiza.offers.lifecycle import load_offer
from democratiza.reports.adjudication_figures import build_figures, report_input
from democratiza.stages.allocate import allocate_stage
from democratiza.stages.lifecycle import advance_stage, load_stage
from democratiza.stages.orders import import_orders
from democratiza.storage.database import make_engine, migrate
from democratiza.verification.package import HEAD, MANIFEST, PARAMETERS
from democratiza.verification.verify import verify
from democratiza.web.app import create_app
from tests.test_stages import FIRST, book, close, new_stage, order, settle_sample
from tests.test_web_support import CODE, add_people, file_samples, move, open_offer

PAGE = f"/ofertas/{CODE}/estadisticas"


@pytest.fixture
def sqlite(tmp_path: Path) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{tmp_path / 'democratiza.db'}")
    migrate(engine)
    add_people(engine)
    open_offer(engine)
    file_samples(engine)
    move(engine, "cerrada")
    adjudicate(engine, CODE, "oficina", "adjudicación")
    yield engine
    engine.dispose()


def text(page: str) -> str:
    shown = re.sub(r"<(script|style|svg)\b.*?</\1>", " ", page, flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", shown)))


def dotted(n: int) -> str:
    return f"{n:,}".replace(",", ".")


def test_before_publication_there_are_no_statistics_and_no_package(sqlite: Engine) -> None:
    public = TestClient(create_app(sqlite))
    page = public.get(PAGE)
    assert page.status_code == 409
    assert "se publican con los resultados" in text(page.text)
    # The public reads the program's name, not the office's code for the offer.
    assert "La Primera Etapa del programa de enajenación de acciones de Fogafín" in text(page.text)
    assert f"'{CODE}'" not in text(page.text)
    assert public.get(f"/ofertas/{CODE}/paquete.zip").status_code == 409


def test_anyone_reads_the_figures_and_charts_of_a_published_offer(sqlite: Engine) -> None:
    publish(sqlite, CODE, "oficina", "publicación de resultados")
    with sqlite.connect() as conn:
        stored = load_offer(conn, CODE)
    done = stored_adjudication(sqlite, CODE)
    figures = build_figures(report_input(stored, done))
    page = TestClient(create_app(sqlite)).get(PAGE)  # no login
    assert page.status_code == 200
    shown = text(page.text)
    # The figures, as the adjudication report computes them on its own.
    for value, name in [
        ("40.000.000", "acciones ofrecidas"),
        (dotted(figures.aceptaciones), "aceptaciones recibidas"),
        (dotted(figures.acciones_adjudicadas), "acciones adjudicadas"),
        (dotted(figures.nuevos_accionistas), "nuevos accionistas"),
    ]:
        assert f"{value} {name}" in shown, (value, name)
    assert "100,00 % de la oferta colocado" in shown
    # Placement, awards by category, their distribution and concentration: four charts.
    for key in ("colocacion", "categorias", "histograma", "concentracion"):
        assert f'id="grafico-{key}"' in page.text
    # The placement drawn by the page; the report's three, each for a wide screen and a phone.
    assert page.text.count('<svg class="grafica"') == 1
    assert page.text.count('<svg class="grafica-ancha"') == 3
    assert page.text.count('<svg class="grafica-estrecha"') == 3
    # Categories and the method in words, never their identifiers.
    category = stored.program.categories[0]
    method = stored.program.allocation.method
    assert category.name in shown and label("metodo", method) in shown
    assert category.id not in shown and method not in shown
    # No one named, no number of identification, no figure in pesos.
    results = done.results
    for number in results["numero_identificacion"].head(200):
        assert re.search(rf"\b{number}\b", shown) is None
    for radicado in results["radicado"].head(50):
        assert radicado not in page.text
    assert results["nombre"][0] not in shown
    assert "$" not in shown


def test_the_package_downloads_from_the_page_and_verifies(sqlite: Engine, tmp_path: Path) -> None:
    publish(sqlite, CODE, "oficina", "publicación de resultados")
    public = TestClient(create_app(sqlite))
    page = public.get(PAGE).text
    answer = public.get(f"/ofertas/{CODE}/paquete.zip")
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/zip"
    assert "attachment" in answer.headers["content-disposition"]
    path = tmp_path / "paquete.zip"
    path.write_bytes(answer.content)
    verdict = verify(path)
    assert verdict.matches, verdict.message
    # The page names the manifest's hash and the program file's: the package's own.
    with zipfile.ZipFile(io.BytesIO(answer.content)) as archive:
        manifest = archive.read(MANIFEST)
        parameters = archive.read(PARAMETERS).decode()
    digest = hashlib.sha256(manifest).hexdigest()
    assert f'id="huella-manifiesto">{digest}<' in page
    with sqlite.connect() as conn:
        program = load_offer(conn, CODE).program_sha256
    assert f'id="huella-programa">{program}<' in page and program in parameters
    # And the audit chain's head the package carries, for an auditor to check.
    head = json.loads(manifest)[HEAD]
    assert f'id="cabeza-cadena">entrada {head["entrada"]}: {head["huella"]}<' in page
    assert public.get(f"/ofertas/{CODE}/paquete.zip").content == answer.content


def test_a_published_later_stage_s_package_is_offered_too(engine: Engine, tmp_path: Path) -> None:
    settle_sample(engine, "central-seguros-vida")
    publish(engine, FIRST, "oficina", "publicación de resultados")
    new_stage(engine)
    rows = [order("O1", "1300", "8000"), order("O2", "1200", "9000")]
    import_orders(engine, "segunda", book(tmp_path / "o.csv", rows), "Casa de Bolsa", "B1", "s")
    close(engine)
    allocate_stage(engine, "segunda", "bolsa", "cierre del libro")
    public = TestClient(create_app(engine))
    assert public.get("/etapas/segunda/paquete.zip").status_code == 409  # not yet published
    assert public.get("/etapas/otra/paquete.zip").status_code == 404
    with engine.begin() as conn:
        advance_stage(conn, load_stage(conn, "segunda"), "publicada", "oficina", "publicación")
    page = public.get(f"/ofertas/{FIRST}/estadisticas").text
    assert 'href="/etapas/segunda/paquete.zip"' in page
    answer = public.get("/etapas/segunda/paquete.zip")
    path = tmp_path / "etapa.zip"
    path.write_bytes(answer.content)
    verdict = verify(path)
    assert verdict.matches, verdict.message
    assert verdict.head is not None
    stage_page = public.get("/etapas/segunda/estadisticas").text
    assert f'id="cabeza-cadena">entrada {verdict.head.entries}: {verdict.head.last_hash}<' in (
        stage_page
    )
