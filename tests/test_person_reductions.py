"""One person, two brokers, over the person's limit: the reduction is shown everywhere.

Central de Seguros de Vida, the sample offer. Diana Salazar Rodríguez (CC 10019032), an
extrabajadora, may buy at most 367.800 shares: the absolute cap per natural person
(A.2(iii)) is below two times her patrimonio líquido and five times her income. She asks
200.000 through Casa de Bolsa and 200.000 through Acciones y Valores; each filing alone is
within the cap (aceptada at intake), together they pass it by 32.200. The filing received
second is reduced to 167.800 at the adjudication, and every output says so: the broker's
file (CSV and XLSX), the office's file, the adjudication record, the public result lookup
(API and page) and the adjudication report (HTML and PDF).
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import polars as pl
import pytest
from fastapi.testclient import TestClient
from openpyxl import load_workbook
from sqlalchemy import Engine

from democratiza.adjudication.record import adjudicate, publish, stored_adjudication
from democratiza.compliance.ledger import acceptance_terms
from democratiza.filing.batches import import_batch
from democratiza.offers.lifecycle import load_offer
from democratiza.reports.adjudication_charts import charts
from democratiza.reports.adjudication_figures import build_figures, report_input
from democratiza.reports.adjudication_report import render_html, render_pdf
from democratiza.reports.exports import broker_files
from democratiza.web.app import create_app
from tests.test_receipt_order import one_row
from tests.test_web_pages import post, text
from tests.test_web_support import (
    BROKER_A,
    BROKER_B,
    CODE,
    add_people,
    bearer,
    move,
    open_offer,
)

PERSON = {"tipo_identificacion": "CC", "numero_identificacion": "10019032"}
LIMIT = 367_800  # Tope absoluto por persona natural (Central A.2(iii))
RULE = "central-a.2(iii)"


@pytest.fixture
def reduced(engine: Engine, tmp_path: Path) -> tuple[str, str]:
    """The two filings, adjudicated and published: (radicado received first, second)."""
    add_people(engine)
    open_offer(engine)
    first = one_row(tmp_path, "a.csv", cantidad="200000")
    second = one_row(tmp_path, "b.csv", comisionista=BROKER_B, referencia="AV-1", cantidad="200000")
    a = import_batch(engine, CODE, first, BROKER_A, "A1", "scb").decisions.row(0, named=True)
    b = import_batch(engine, CODE, second, BROKER_B, "B1", "ayv").decisions.row(0, named=True)
    assert (a["decision"], b["decision"]) == ("aceptada", "aceptada")  # each alone fits
    move(engine, "cerrada")
    adjudicate(engine, CODE, "oficina", "adjudicación")
    publish(engine, CODE, "oficina", "publicación")
    return a["radicado"], b["radicado"]


def test_the_adjudication_record_reduces_the_later_filing_by_the_persons_limit(
    engine: Engine, reduced: tuple[str, str]
) -> None:
    first, second = reduced
    done = stored_adjudication(engine, CODE)
    rows = {r["radicado"]: r for r in done.results.iter_rows(named=True)}
    assert (rows[first]["decision"], rows[first]["cantidad_persona"]) == ("aceptada", 200_000)
    later = rows[second]
    assert later["decision"] == "reducida"
    assert later["regla_limitante"] == RULE
    assert later["cantidad_persona"] == LIMIT - 200_000 == 167_800
    assert later["consumido_por"] == first
    # The stored record (its header) names the rule, its article and the radicado.
    [note] = [n for n in done.header["notas"] if "radicaciones anteriores" in n]  # type: ignore[attr-defined]
    assert "«Tope absoluto por persona natural»" in note and "A.2(iii)" in note
    assert note.endswith(f": {second}.")


def test_the_brokers_files_say_reducida_with_the_rule_and_the_filings(
    engine: Engine, reduced: tuple[str, str], tmp_path: Path
) -> None:
    first, second = reduced
    done = stored_adjudication(engine, CODE)
    with engine.connect() as conn:  # each acceptance's referencia and price, as exportar
        stored = load_offer(conn, CODE)
        terms = acceptance_terms(conn, stored)
    broker_files(done, tmp_path / "out", terms, program=stored.program)
    with (tmp_path / "out/adjudicacion-acciones-y-valores.csv").open(encoding="utf-8") as fh:
        [row] = list(csv.DictReader(fh))
    assert (row["radicado"], row["decision"], row["regla_limitante"]) == (second, "reducida", RULE)
    # The filing that used the limit is another broker's: named without locating it.
    assert (row["cantidad_persona"], row["consumido_por"]) == ("167800", "otro comisionista")
    assert first not in (tmp_path / "out/adjudicacion-acciones-y-valores.csv").read_text("utf-8")
    sheet = load_workbook(tmp_path / "out/adjudicacion-acciones-y-valores.xlsx").active
    assert sheet is not None
    header, values = (list(r) for r in sheet.iter_rows(values_only=True))
    shown = dict(zip(header, values, strict=True))
    # The workbook, for people, says the limit and the category in words; the CSV, codes.
    limit = "Tope absoluto por persona natural"
    assert (shown["Decisión"], shown["Límite que determinó la cantidad"]) == ("reducida", limit)
    assert (row["categoria"], shown["Categoría"]) == ("extrabajador", "Extrabajador")
    assert shown["Radicaciones anteriores que usaron el límite"] == "otro comisionista"
    # Through the web, broker B gets the very file ``oferta exportar`` writes for it.
    client = TestClient(create_app(engine))
    answer = client.get(f"/api/ofertas/{CODE}/adjudicacion.csv", headers=bearer(engine, BROKER_B))
    assert answer.content == (tmp_path / "out/adjudicacion-acciones-y-valores.csv").read_bytes()
    # The office's own record keeps the radicado: only what a broker gets is masked.
    assert stored_adjudication(engine, CODE).results.filter(pl.col("radicado") == second)[
        "consumido_por"
    ].to_list() == [first]


def test_the_public_lookup_says_reducida_with_the_rule_its_article_and_the_filings(
    engine: Engine, reduced: tuple[str, str]
) -> None:
    first, second = reduced
    public = TestClient(create_app(engine))
    query = {"oferta": CODE, "radicado": second, **PERSON}
    answer = public.post("/api/resultados/consulta", json=query).json()
    assert (answer["decision"], answer["regla_limitante"]) == ("reducida", RULE)
    assert "A.2(iii)" in answer["regla_limitante_cita"] and answer["consumido_por"] == first
    assert answer["cantidad_persona"] == 167_800
    page = text(post(public, "/resultados", query))
    assert "Decisión reducida" in page
    assert answer["regla_limitante_cita"] in page and first in page


def test_the_report_lists_the_reduction_with_its_rule_article_and_filings(
    engine: Engine, reduced: tuple[str, str], tmp_path: Path
) -> None:
    first, second = reduced
    done = stored_adjudication(engine, CODE)
    with engine.connect() as conn:
        inp = report_input(load_offer(conn, CODE), done)
    figures = build_figures(inp)
    assert figures.reducidas == 1
    html = text(render_html(inp, figures))
    assert "Reducidas por las radicaciones anteriores de la misma persona" in html
    cited = inp.citas_reglas[RULE]
    assert f"{second} {inp.nombres_reglas[RULE]} ({cited}) 200.000 167.800 {first}" in html
    render_pdf(inp, figures, tmp_path / "informe.pdf")
    pages = re.findall(rb"/Type /Page\b(?!s)", (tmp_path / "informe.pdf").read_bytes())
    assert len(pages) == len(charts(inp, figures)) + 2  # the figures, the charts, the list
