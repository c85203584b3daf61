"""A CSV downloaded from the web for a Colombian Excel: ``?separador=%3B`` gives the very
file ``oferta exportar --separador ";"`` writes (semicolons, comma decimal), from the same
writer; without it, commas and a dot decimal as before."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.adjudication.record import stored_adjudication
from democratiza.compliance.ledger import acceptance_terms
from democratiza.offers.lifecycle import load_offer
from democratiza.reports.exports import broker_files
from democratiza.tables.cells import csv_style
from democratiza.web.app import create_app
from tests.test_person_reductions import reduced
from tests.test_web_support import BROKER_B, CODE, bearer, log_in

__all__ = ["reduced"]  # the fixture: two filings of one person, adjudicated and published


def test_a_broker_downloads_its_file_for_excel_as_the_cli_writes_it(
    engine: Engine, reduced: tuple[str, str], tmp_path: Path
) -> None:
    done = stored_adjudication(engine, CODE)
    with engine.connect() as conn:
        terms = acceptance_terms(conn, load_offer(conn, CODE))
    broker_files(done, tmp_path / "out", terms, csv_style(";"))
    written = (tmp_path / "out/adjudicacion-acciones-y-valores.csv").read_bytes()
    client = TestClient(create_app(engine))
    url = f"/api/ofertas/{CODE}/adjudicacion.csv"
    excel = client.get(url, params={"separador": ";"}, headers=bearer(engine, BROKER_B))
    assert excel.status_code == 200 and excel.content == written
    header, first = excel.text.splitlines()[:2]
    assert header.startswith("radicado;") and ",00" in first  # 200.000 × $ 1.000 = 200000000,00
    plain = client.get(url, headers=bearer(engine, BROKER_B)).text
    assert plain.splitlines()[0].startswith("radicado,") and ".00" in plain.splitlines()[1]


def test_the_office_page_links_each_file_for_excel(engine: Engine, reduced: object) -> None:
    client = TestClient(create_app(engine))
    log_in(client, "oficina")
    page = client.get(f"/oficina/ofertas/{CODE}").text
    assert f"/api/ofertas/{CODE}/registro-adjudicatarios.csv?separador=%3B" in page
    assert "CSV para Excel" in page
    registry = client.get(f"/api/ofertas/{CODE}/registro-adjudicatarios.csv?separador=%3B")
    assert registry.status_code == 200 and ";" in registry.text.splitlines()[0]
    refused = client.get(f"/api/ofertas/{CODE}/registro-adjudicatarios.csv?separador=|")
    assert refused.status_code == 422
