"""A fine's default interest runs at the usura the program office loaded, not at the shipped
points: the page, the API and ``multa calcular --db`` read it in one place
(``official_series.max_rate_in_force``), as the credit-line checks read the IBC.

Worked example (GEB, Decreto 706/2017 art. 11.1): the page's example fine of $ 18.753.750,
breached on 2019-01-15 and stated at 2019-02-20, with the office's usura of 40 % EA for
December 2018 to March 2019 instead of the certified rates the package ships.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from typer.testing import CliRunner

from democratiza.cli.main import app
from democratiza.compliance.fines.account import Payment
from democratiza.compliance.fines.case import compute_fine
from democratiza.compliance.official_series import max_rate_in_force, save_official_rates
from democratiza.compliance.series import MaxLegalRate, parse_rates, shipped_max_rate
from democratiza.money import pesos
from democratiza.programs.loader import load_program
from democratiza.web.app import create_app
from tests.test_web_after_sale import session
from tests.test_web_fine_page import FORM
from tests.test_web_pages import post, text
from tests.test_web_support import add_people, log_in

USURA = "desde,hasta,tasa_ea,fuente\n2018-12-01,2019-03-31,40.00,Superfinanciera (ejemplo)\n"
VALUES = {"precio_adquisicion": 201_800, "contraprestacion": 250_050, "precio_segunda_etapa": None}


def due_with(rates: MaxLegalRate) -> int:
    statement = compute_fine(
        load_program("geb-2017"),
        date(2018, 4, 2),
        date(2019, 1, 15),
        10_000,
        date(2019, 2, 20),
        VALUES,  # type: ignore[arg-type]
        [Payment(date(2019, 2, 1), 500_000_000)],
        rates=rates,
    ).statement
    assert statement is not None
    return statement.due


def test_the_page_and_the_api_use_the_usura_the_office_loaded(engine: Engine) -> None:
    add_people(engine)
    with engine.begin() as conn:
        save_official_rates(conn, "usura", USURA, "usura-oficina.csv", "oficina")
    office = MaxLegalRate(
        parse_rates(USURA, "usura-oficina.csv", "usura", complete=True), shipped_max_rate().ibc
    )
    with engine.connect() as conn:
        assert max_rate_in_force(conn).usura == office.usura
    loaded, shipped = due_with(office), due_with(shipped_max_rate())
    assert loaded > shipped  # 40 % EA runs above the certified rates of those months

    client = TestClient(create_app(engine))
    log_in(client, "oficina")
    shown = text(post(client, "/oficina/multas", FORM))
    assert f"{pesos(loaded)} saldo a pagar el 2019-02-20" in shown
    body = {
        "programa": "geb-2017",
        "fecha_referencia": "2018-04-02",
        "fecha_incumplimiento": "2019-01-15",
        "acciones": 10_000,
        "hasta": "2019-02-20",
        "precio_adquisicion": 201_800,
        "contraprestacion": 250_050,
        "pagos": [{"fecha": "2019-02-01", "monto": 500_000_000}],
    }
    answer = session(create_app(engine), "oficina").post("/api/multas/estado.json", json=body)
    assert answer.status_code == 200, answer.text
    assert pesos(loaded) in answer.json()["estado_de_cuenta"]


def test_multa_calcular_reads_the_offices_series_from_its_database(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with engine.begin() as conn:
        save_official_rates(conn, "usura", USURA, "usura-oficina.csv", "oficina")
    office = MaxLegalRate(
        parse_rates(USURA, "usura-oficina.csv", "usura", complete=True), shipped_max_rate().ibc
    )
    args = ["multa", "calcular", "-p", "geb-2017", "--fecha-referencia", "2018-04-02"]
    args += ["--fecha-incumplimiento", "2019-01-15", "--acciones", "10000"]
    args += ["--hasta", "2019-02-20", "--precio-adquisicion", "2018"]
    args += ["--contraprestacion", "2500,50", "--pago", "2019-02-01=5000000"]
    url = engine.url.render_as_string(hide_password=False)
    result = CliRunner().invoke(app, [*args, "--db", url], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert pesos(due_with(office)) in result.output
    # As every command: without --db, the database DEMOCRATIZA_DB names.
    named = CliRunner().invoke(app, args, env={"COLUMNS": "300", "DEMOCRATIZA_DB": url})
    assert named.exit_code == 0 and pesos(due_with(office)) in named.output
    # Neither, and no sqlite:///democratiza.db here: the shipped points, and no file made.
    elsewhere = tmp_path / "sin-base"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    without = CliRunner().invoke(app, args, env={"COLUMNS": "300", "DEMOCRATIZA_DB": None})
    assert without.exit_code == 0, without.output
    assert pesos(due_with(shipped_max_rate())) in without.output
    assert not (elsewhere / "democratiza.db").exists()
