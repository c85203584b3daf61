"""After the adjudication the office acts on the value adjudicated, paid, still owed and, once
the period is settled, resolved: the same four on the offer's page, the API and
``oferta ver``, and the Primera Etapa's payments are loaded and settled from the page.

Worked example: Central's sample batch adjudicated at $ 1.000 a share; one award paid in
full, another with $ 1.000 only; what is owed is every other award's value plus the second's
rest; settled, the unpaid shares are resolved.
"""

from __future__ import annotations

import re
from datetime import date
from html import unescape

import polars as pl
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Connection, Engine
from typer.testing import CliRunner

import democratiza.compliance.settlement_figures as figures_module
from democratiza.cli.main import app as cli
from democratiza.compliance.ledger import Ledger, ledger_of
from democratiza.compliance.payment_batches import record_payment
from democratiza.compliance.settlement_figures import SettlementFigures, settlement_figures
from democratiza.money import group, pesos
from democratiza.offers.lifecycle import load_offer
from democratiza.web.app import create_app
from tests.storage_support import adjudicate_sample
from tests.test_web_support import add_people, csrf_of, log_in

CODE = "central"
PAGE = f"/oficina/ofertas/{CODE}"
PRICE = 100_000  # centavos: $ 1.000 a share


def tiles(page: str) -> dict[str, str]:
    """The page's headline figures: title → value as read."""
    found = re.findall(
        r'<li><span class="valor">([^<]*)</span><span class="nombre">([^<]*)</span>', page
    )
    return {unescape(name): unescape(value) for value, name in found}


def pay(office: TestClient, *rows: str) -> None:
    """The office uploads a payments file (radicado, fecha, monto in pesos, forma) from the page."""
    upload = "radicado,fecha,monto,forma\n" + "\n".join(rows) + "\n"
    sent = office.post(
        f"{PAGE}/pagos/lotes",
        data={"lote": "P-1", "csrf": csrf_of(office, PAGE)},
        files={"archivo": ("pagos.csv", upload.encode(), "text/csv")},
        follow_redirects=False,
    )
    assert sent.status_code == 303, sent.text


def test_the_settlement_figures_agree_on_the_page_the_api_and_the_cli(
    engine: Engine, db_url: str
) -> None:
    awarded = adjudicate_sample(engine, CODE).filter(pl.col("adjudicada") > 0)
    add_people(engine)
    office = TestClient(create_app(engine))
    log_in(office, "oficina")
    value = int(awarded["adjudicada"].sum()) * PRICE
    before = tiles(office.get(PAGE).text)
    assert before["valor adjudicado"] == pesos(value)
    assert before["pagado"] == "$ 0" and before["por pagar"] == pesos(value)

    first, second = awarded.head(2).rows(named=True)
    pay(
        office,
        f"{first['radicado']},2018-03-10,{first['adjudicada'] * 1000},contado",
        f"{second['radicado']},2018-03-10,1000,contado",
    )
    paid = first["adjudicada"] * PRICE + 100_000
    owed = value - paid
    shown = tiles(office.get(PAGE).text)
    assert (shown["pagado"], shown["por pagar"]) == (pesos(paid), pesos(owed))
    api = office.get(f"/api/ofertas/{CODE}/pagos").json()
    assert (api["valor_adjudicado"], api["pagado"], api["por_pagar"]) == (value, paid, owed)
    said = CliRunner().invoke(cli, ["oferta", "ver", CODE, "--db", db_url]).output
    assert f"Valor adjudicado: {pesos(value)}" in said
    assert f"Pagado: {pesos(paid)}" in said and f"Por pagar: {pesos(owed)}" in said

    refused = office.post(
        f"{PAGE}/liquidacion",
        data={"fecha_enajenacion": "2018-03-20", "csrf": csrf_of(office, PAGE)},
    )
    assert refused.status_code == 422
    assert 'id="error-liquidacion-confirmo">marque la casilla para confirmar<' in refused.text
    settled = office.post(
        f"{PAGE}/liquidacion",
        data={"fecha_enajenacion": "2018-03-20", "confirmo": "si", "csrf": csrf_of(office, PAGE)},
        follow_redirects=False,
    )
    assert settled.status_code == 303, settled.text
    resolved = int(awarded["adjudicada"].sum()) - first["adjudicada"] - 1  # 1 share paid
    shown = tiles(office.get(PAGE).text)
    assert shown["acciones resueltas por falta de pago"] == group(resolved)
    assert shown["valor resuelto por falta de pago"] == pesos(resolved * PRICE)
    assert "por pagar" not in shown  # settled: what was not paid is resolved, not owed
    said = CliRunner().invoke(cli, ["oferta", "ver", CODE, "--db", db_url]).output
    assert f"Acciones resueltas por falta de pago: {group(resolved)}" in said


def test_a_payment_file_refused_is_shown_on_the_page_row_by_row(engine: Engine) -> None:
    adjudicate_sample(engine, CODE)
    add_people(engine)
    office = TestClient(create_app(engine))
    log_in(office, "oficina")
    upload = "radicado,fecha,monto,forma\nCLYF-999999-0000001,2018-03-10,1000,contado\n"
    refused = office.post(
        f"{PAGE}/pagos/lotes",
        data={"lote": "P-1", "csrf": csrf_of(office, PAGE)},
        files={"archivo": ("pagos.csv", upload.encode(), "text/csv")},
    )
    assert refused.status_code == 422
    error = re.search(r'id="error-pagos-archivo">([^<]*)<', refused.text)
    assert error and unescape(error.group(1)).startswith("fila 2, columna 'radicado': ")
    assert re.search(r'id="campo-pagos-lote" name="lote" value="P-1"', refused.text)


def test_an_award_paid_in_excess_is_its_own_figure_so_the_three_add_up(engine: Engine) -> None:
    """One award paid $ 1.000 more than its value: it does not pay another's, so «pagado»
    exceeds what it settles; «pagado de más» says by how much, and
    adjudicado = pagado − pagado de más + por pagar."""
    awarded = adjudicate_sample(engine, CODE).filter(pl.col("adjudicada") > 0)
    add_people(engine)
    office = TestClient(create_app(engine))
    log_in(office, "oficina")
    value = int(awarded["adjudicada"].sum()) * PRICE
    assert "pagado de más (por encima del valor de su adjudicación)" not in tiles(
        office.get(PAGE).text
    )  # none yet: not shown
    first = awarded.row(0, named=True)
    pay(office, f"{first['radicado']},2018-03-10,{(first['adjudicada'] + 1) * 1000},contado")
    paid = (first["adjudicada"] + 1) * PRICE
    owed = value - first["adjudicada"] * PRICE
    shown = tiles(office.get(PAGE).text)
    assert shown["pagado"] == pesos(paid)
    assert shown["pagado de más (por encima del valor de su adjudicación)"] == pesos(PRICE)
    assert shown["por pagar"] == pesos(owed)
    assert value == paid - PRICE + owed
    api = office.get(f"/api/ofertas/{CODE}/pagos").json()
    assert (api["pagado"], api["pagado_de_mas"], api["por_pagar"]) == (paid, PRICE, owed)


def test_the_figures_are_counted_once_until_the_audit_log_says_something_changed(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two views with nothing recorded between them count the awards once; a payment (and
    its audit entry) makes the next view count them again, with the payment in."""
    awarded = adjudicate_sample(engine, CODE).filter(pl.col("adjudicada") > 0)
    counts: list[int] = []
    counted = figures_module._counted

    def counting(conn: Connection, ledger: Ledger) -> SettlementFigures:
        counts.append(1)
        return counted(conn, ledger)

    monkeypatch.setattr(figures_module, "_counted", counting)

    def seen() -> SettlementFigures | None:
        with engine.connect() as conn:
            return settlement_figures(conn, ledger_of(load_offer(conn, CODE)))

    first, again = seen(), seen()
    assert first is not None and first == again and len(counts) == 1
    radicado = awarded["radicado"][0]
    record_payment(engine, CODE, radicado, date(2018, 3, 10), 100_000, "contado", "oficina")
    after = seen()
    assert len(counts) == 2
    assert after is not None and after.pagado == first.pagado + 100_000
