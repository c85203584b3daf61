"""A CSV downloaded from the web for a Colombian Excel: ``?separador=%3B`` gives the very
file ``oferta exportar --separador ";"`` writes (semicolons, comma decimal), from the same
writer; without it, commas and a dot decimal as before."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.adjudication.record import stored_adjudication
from democratiza.compliance.ledger import acceptance_terms
from democratiza.offers.lifecycle import load_offer
from democratiza.reports.exports import broker_files
from democratiza.reports.stage_report import registry_file
from democratiza.stages.allocate import stored_allocation
from democratiza.tables.cells import csv_style
from democratiza.web.app import create_app
from tests.test_person_reductions import reduced
from tests.test_stage_payments import allocated
from tests.test_web_after_sale import session
from tests.test_web_support import BROKER_B, CODE, add_people, bearer, log_in

# The fixtures: two filings of one person, adjudicated and published; a Segunda Fase
# allocated (O1 8.000, O2 7.200 and O3 4.700 shares at $ 1.200, all through Casa de Bolsa).
__all__ = ["allocated", "reduced"]


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


def test_a_broker_with_no_acceptant_downloads_the_header_alone(
    engine: Engine, reduced: tuple[str, str]
) -> None:
    client = TestClient(create_app(engine))
    url = f"/api/ofertas/{CODE}/adjudicacion.csv"
    full = client.get(url, params={"separador": ";"}, headers=bearer(engine, BROKER_B)).text
    answer = client.get(url, params={"separador": ";"}, headers=bearer(engine, "Sin Clientes"))
    assert answer.status_code == 200
    assert answer.headers["content-disposition"].endswith('"adjudicacion-sin-clientes.csv"')
    assert answer.text == full.splitlines()[0] + "\n"  # the broker file's header, no row


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


def test_a_stage_s_files_for_excel_are_the_cli_s_with_semicolons_and_comma_decimals(
    engine: Engine, allocated: dict[str, str], tmp_path: Path
) -> None:
    add_people(engine)
    office = session(create_app(engine), "oficina")
    # The registry for the depository: the very file ``etapa exportar --separador ";"``
    # writes (the shares summed by buyer: whole numbers, so only the separator changes).
    done = stored_allocation(engine, "segunda")
    written = registry_file(done, tmp_path / "out", None, csv_style(";")).read_bytes()
    excel = office.get("/api/etapas/segunda/registro.csv", params={"separador": ";"})
    assert excel.status_code == 200 and excel.content == written
    assert excel.text.splitlines()[0] == (
        "tipo_identificacion;numero_identificacion;nombre;comisionista;acciones"
    )
    # The allocation: each order's sum to pay with a comma decimal, 8.000 × $ 1.200 for O1.
    url = "/api/etapas/segunda/asignacion.csv"
    [header, *rows] = office.get(url, params={"separador": ";"}).text.splitlines()
    assert header.startswith("comisionista;") and len(rows) == 3
    assert any(row.endswith(";9600000,00") or ";9600000,00;" in row for row in rows)
    plain = office.get(url).text.splitlines()
    assert plain[0].startswith("comisionista,") and any("9600000.00" in r for r in plain[1:])
    assert office.get(url, params={"separador": "|"}).status_code == 422


def test_every_link_for_excel_names_its_file_as_the_docs_quote_it() -> None:
    """Each page's link to a file for Excel is its file's name and «(CSV para Excel, ;)»,
    beside the same name and «(CSV)»; docs/web.md quotes both."""
    root = Path(__file__).parents[1]
    docs = (root / "docs" / "web.md").read_text(encoding="utf-8")
    assert "«(CSV)» y «(CSV para Excel, ;)» tras su nombre" in docs
    templates = root / "src" / "democratiza" / "web" / "templates"
    links = [
        re.findall(r'\.csv(\?separador=%3B)?">([^<]*)</a>', path.read_text(encoding="utf-8"))
        for path in sorted(templates.glob("*.html"))
    ]
    for_excel = [name for found in links for semicolon, name in found if semicolon]
    plain = {name for found in links for semicolon, name in found if not semicolon}
    assert len(for_excel) == 6
    for name in for_excel:
        assert name.endswith(" (CSV para Excel, ;)")
        assert name.replace(" (CSV para Excel, ;)", " (CSV)") in plain
