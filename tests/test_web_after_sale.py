"""After the Primera Etapa over HTTP: payments, settlement, a Segunda Fase, holdings, fines, credit.

The same services as the command line; these tests follow the demo's story through the API
on SQLite and PostgreSQL.
"""

from __future__ import annotations

import csv
import io
from datetime import date

import polars as pl
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.adjudication.record import adjudicate
from democratiza.stages.lifecycle import load_stage
from democratiza.web.app import create_app
from democratiza.web.errors import INVALID_REQUEST
from tests.test_web_support import (
    BROKER_A,
    CODE,
    add_people,
    bearer,
    file_samples,
    log_in,
    move,
    open_offer,
)

TERMS = {
    "mecanismo": "subasta_holandesa",
    "fecha_aviso": "2018-04-02",
    "fecha_apertura": "2018-04-03",
    "fecha_cierre": "2018-04-16",
    "orden_minima": 1000,
    "lote": 100,
    "fuente": "aviso de prueba",
}
ORDERS = "\n".join(
    [
        "referencia,comisionista,fecha_ingreso,tipo_identificacion,numero_identificacion,nombre,"
        "tipo_persona,nacionalidad,capacidad_legal,precio,cantidad",
        "O-1,Casa de Bolsa,2018-04-05T10:00,NIT,900100,Inversora Uno,juridica,colombiana,si,"
        "1300,2000000",
        "O-2,Casa de Bolsa,2018-04-05T10:05,CC,1020,Ana,natural,colombiana,si,1200,100000000",
        "O-3,Casa de Bolsa,2018-04-05T10:10,CC,1021,Luis,natural,colombiana,si,990,5000",
        "",
    ]
)


def session(app: object, login: str) -> TestClient:
    client = TestClient(app)  # type: ignore[arg-type]
    client.headers["X-CSRF-Token"] = log_in(client, login)
    return client


def test_payments_settlement_and_a_segunda_fase_over_http(engine: Engine) -> None:
    add_people(engine)
    open_offer(engine)
    file_samples(engine)
    move(engine, "cerrada")
    awards = adjudicate(engine, CODE, "bolsa", "adjudicación", date(2018, 3, 1)).results
    paid = awards.filter(pl.col("adjudicada") > 0).sort("radicado").row(0, named=True)
    app = create_app(engine)
    office, auditor = session(app, "oficina"), session(app, "auditor")
    broker = TestClient(app, headers=bearer(engine, BROKER_A))

    amount = paid["adjudicada"] * 1000  # $ 1.000 a share, in pesos
    payments = f"radicado,fecha,monto,forma\n{paid['radicado']},2018-03-15,{amount},contado\n"
    sent = office.post(
        f"/api/ofertas/{CODE}/pagos/lotes",
        files={"archivo": ("pagos.csv", payments)},
        data={"lote": "P1"},
    )
    assert sent.status_code == 201 and sent.json()["filas"] == 1, sent.text
    bad = office.post(
        f"/api/ofertas/{CODE}/pagos/lotes",
        files={"archivo": ("pagos.csv", "radicado,fecha,monto,forma\nX-1,2018-03-15,10,contado\n")},
        data={"lote": "P2"},
    )
    assert bad.status_code == 422
    assert bad.json()["errores"][0] == {
        "archivo": "pagos.csv",
        "fila": 2,
        "columna": "radicado",
        "mensaje": "el radicado no tiene acciones adjudicadas",
    }
    settled = office.post(
        f"/api/ofertas/{CODE}/liquidacion", json={"fecha_enajenacion": "2018-03-20"}
    )
    assert settled.json()["acciones_pagadas"] == paid["adjudicada"]

    created = office.post(
        "/api/etapas", json={"codigo": "segunda", "oferta": CODE, "terminos": TERMS}
    )
    assert created.status_code == 201, created.text
    stage = created.json()
    assert stage["nombre"] == "Segunda Fase"
    assert stage["acciones_ofrecidas"] == 40_000_000 - paid["adjudicada"]
    assert stage["precio_minimo_texto"] == "$ 1.000"
    # A draft is the office's: to the public it does not exist until it opens.
    assert TestClient(app).get("/api/etapas/segunda").status_code == 404
    assert office.get("/api/etapas/segunda").json()["estado"] == "borrador"
    office.post("/api/etapas/segunda/abrir", json={"motivo": "apertura"})
    filed = broker.post(
        "/api/etapas/segunda/lotes", files={"archivo": ("o.csv", ORDERS)}, data={"lote": "B1"}
    )
    assert filed.status_code == 201, filed.text
    decisions = {r["referencia"]: r["decision"] for r in filed.json()["resultado"]}
    assert decisions == {"O-1": "valida", "O-2": "valida", "O-3": "rechazada"}
    office.post("/api/etapas/segunda/cerrar", json={"motivo": "cierre"})
    book = auditor.get("/api/etapas/segunda/libro").json()
    assert book == [
        {"precio": 130_000, "acciones_a_ese_precio_o_mas": 2_000_000},
        {"precio": 120_000, "acciones_a_ese_precio_o_mas": 102_000_000},
    ]
    done = office.post("/api/etapas/segunda/adjudicar", json={"motivo": "cierre del libro"})
    assert done.status_code == 200 and done.json()["precio"] == 120_000
    assert auditor.get("/api/etapas/segunda/adjudicacion").json() == done.json()
    rows = list(csv.DictReader(io.StringIO(broker.get("/api/etapas/segunda/asignacion.csv").text)))
    assert (rows[0]["precio_adjudicacion"], rows[0]["valor_a_pagar"]) == (
        "1200.00",
        "2400000000.00",  # 2.000.000 acciones × $ 1.200, in pesos with two decimals
    )
    assert [(r["referencia"], r["asignada"]) for r in rows] == [
        ("O-1", "2000000"),
        ("O-2", str(stage["acciones_ofrecidas"] - 2_000_000 - stage["acciones_ofrecidas"] % 100)),
        ("O-3", "0"),
    ]
    report = auditor.get("/api/etapas/segunda/informe.html")
    assert report.status_code == 200 and "Curva de demanda" in report.text
    assert auditor.get("/api/etapas/segunda/informe.pdf").content.startswith(b"%PDF")

    # The Segunda Fase price is now a base of the fines (Central: inciso «El incumplimiento…»).
    soon = "2018-04-10"  # six weeks after the adjudication (2018-03-01)
    event = office.post(
        f"/api/ofertas/{CODE}/tenencias/{paid['radicado']}/eventos",
        json={"tipo": "venta", "fecha": soon, "acciones": 10, "detalle": "venta en bolsa"},
    )
    assert event.status_code == 201, event.text
    assert event.json()["multa"]["base"] == "precio_segunda_etapa"
    assert event.json()["multa"]["base_por_accion"] == 120_000
    flagged = office.post(
        f"/api/ofertas/{CODE}/tenencias/{paid['radicado']}/ineficacia",
        json={"fecha": soon, "motivo": "actuó por cuenta de un tercero"},
    )
    assert flagged.status_code == 201, flagged.text
    holding = auditor.get(f"/api/ofertas/{CODE}/tenencias/{paid['radicado']}").json()
    assert holding["ineficaz"] is True and holding["en_registro"] == 0
    assert [e["tipo"] for e in holding["eventos"]] == ["venta", "ineficacia"]


def test_settling_an_offer_that_awarded_nothing_is_refused_not_a_server_error(
    engine: Engine,
) -> None:
    # A published offer no broker filed in: nothing was awarded, so nothing is paid or sold.
    add_people(engine)
    open_offer(engine)
    move(engine, "cerrada")
    adjudicate(engine, CODE, "bolsa", "adjudicación sin aceptaciones")
    move(engine, "publicada")
    office = session(create_app(engine), "oficina")

    settled = office.post(
        f"/api/ofertas/{CODE}/liquidacion", json={"fecha_enajenacion": "2018-03-20"}
    )

    assert settled.status_code == 409
    assert settled.json()["detalle"] == (
        f"La oferta '{CODE}' no tiene acciones adjudicadas; no hay nada que liquidar."
    )


def test_fine_statement_and_credit_over_http(engine: Engine) -> None:
    add_people(engine)
    app = create_app(engine)
    auditor = session(app, "auditor")
    fine = {
        "programa": "geb-2017",
        "fecha_referencia": "2018-04-02",
        "fecha_incumplimiento": "2019-01-15",
        "acciones": 10_000,
        "hasta": "2019-02-20",
        "precio_adquisicion": 201_800,
        "contraprestacion": 250_000,
        "pagos": [{"fecha": "2019-02-10", "monto": 100_000_000}],
    }
    as_json = auditor.post("/api/multas/estado.json", json=fine)
    assert as_json.status_code == 200, as_json.text
    text = as_json.json()["estado_de_cuenta"]
    assert "Se toma $ 2.500" in text and "75 %" in text  # 6 months and a day to 12
    as_csv = auditor.post("/api/multas/estado.csv", json=fine)
    assert as_csv.status_code == 200 and "75" in as_csv.text and "2500" in as_csv.text
    assert auditor.post("/api/multas/estado.pdf", json=fine).content.startswith(b"%PDF")
    late = auditor.post(
        "/api/multas/estado.json", json={**fine, "fecha_incumplimiento": "2021-01-15"}
    )
    assert late.status_code == 422 and late.json()["detalle"].startswith("No hay multa")

    line = {
        "programa": "geb-2017",
        "entidad": "Banco",
        "monto_disponible": 400_000_000_000 * 100,  # over 10 % of the shares offered
        "plazo_meses": 48,
        "gracia_meses": 12,
        "tasa_ea": "20.48",
        "fecha_otorgamiento": "2018-04-10",
    }
    checked = auditor.post("/api/credito/verificacion", json=line).json()
    assert checked["cumple"] is False
    failing = [c["regla"] for c in checked["condiciones"] if not c["cumple"]]
    assert failing == ["plazo_minimo"]
    # A line that cannot be (no lender, a grace as long as the term): one row per field, in
    # the words ``CreditLine`` refuses with, under the shared title.
    wrong = {**line, "entidad": "  ", "gracia_meses": 48}
    answer = auditor.post("/api/credito/verificacion", json=wrong)
    assert answer.status_code == 422 and answer.json()["detalle"] == INVALID_REQUEST
    assert [(e["columna"], e["mensaje"]) for e in answer.json()["errores"]] == [
        ("entidad", "falta el nombre de la entidad otorgante"),
        (
            "gracia_meses",
            "la gracia (48 meses) no deja meses para amortizar dentro del plazo (48 meses)",
        ),
    ]
    loan = {
        "monto": 1_000_000_000,
        "tasa_ea": "18",
        "plazo_meses": 60,
        "gracia_meses": 12,
        "desembolso": "2018-03-15",
        "acciones": 5000,
        "precio": 201_800,
    }
    schedule = auditor.post("/api/credito/cuadro.csv", json=loan)
    assert schedule.status_code == 200 and schedule.text.strip().splitlines()[-1].startswith(
        "Total"
    )
    notes = auditor.post("/api/credito/cuadro.json", json=loan).json()
    assert notes["cobertura"].startswith("5.000 acciones")
    # A rate as a person writes it, with a decimal comma and the sign, is the same rate.
    written = auditor.post("/api/credito/cuadro.csv", json={**loan, "tasa_ea": "18,0 %"})
    assert written.text == schedule.text


def test_the_office_runs_a_stage_and_a_broker_files_orders_from_their_pages(
    engine: Engine,
) -> None:
    add_people(engine)
    open_offer(engine)
    file_samples(engine)
    move(engine, "cerrada")
    adjudicate(engine, CODE, "bolsa", "adjudicación", date(2018, 3, 1))
    app = create_app(engine)
    office, broker = TestClient(app), TestClient(app)
    csrf, broker_csrf = log_in(office, "oficina"), log_in(broker, "comisionista_a")
    office.post(
        f"/api/ofertas/{CODE}/liquidacion",
        json={"fecha_enajenacion": "2018-03-20"},
        headers={"X-CSRF-Token": csrf},
    )
    form = {
        "csrf": csrf,
        "codigo": "segunda",
        "oferta": CODE,
        "fecha_aviso": "2018-04-02",
        "fecha_apertura": "2018-04-03",
        "fecha_cierre": "2018-04-16",
        "orden_minima": "1.000",  # with a thousands dot, as every share count
        "lote": "100",
        "mecanismo": "construccion_libro",
        "fuente": "aviso de prueba",
    }
    created = office.post("/oficina/etapas", data=form, follow_redirects=True)
    assert created.status_code == 200 and "Segunda Fase: segunda" in created.text
    assert "El aviso no fija otro: el mínimo es el de la Primera Etapa" in created.text
    with engine.connect() as conn:
        assert load_stage(conn, "segunda").terms.minimum_order == 1_000
    office.post(
        "/oficina/etapas/segunda/acciones",
        data={"csrf": csrf, "accion": "abrir", "motivo": "apertura"},
    )
    page = broker.get("/comisionista/etapas/segunda")
    assert page.status_code == 200 and 'id="subir-ordenes"' in page.text
    sent = broker.post(
        "/comisionista/etapas/segunda/lotes",
        files={"archivo": ("o.csv", ORDERS)},
        data={"lote": "B1", "csrf": broker_csrf},
        follow_redirects=True,
    )
    assert sent.status_code == 200 and "precio por debajo del precio mínimo" in sent.text
    office.post(
        "/oficina/etapas/segunda/acciones",
        data={"csrf": csrf, "accion": "cerrar", "motivo": "cierre"},
    )
    step = {"csrf": csrf, "accion": "adjudicar", "motivo": "corte", "precio_corte": "1.250"}
    unconfirmed = office.post("/oficina/etapas/segunda/acciones", data=step)
    # Allocating cannot be undone: without the confirmation box the page asks, allocates nothing.
    assert unconfirmed.status_code == 422 and "marque la casilla" in unconfirmed.text
    assert 'value="1.250"' in unconfirmed.text and "registro-etapa" not in unconfirmed.text
    allocated = office.post(
        "/oficina/etapas/segunda/acciones",
        data={**step, "confirmo": "si"},
        follow_redirects=True,
    )
    assert allocated.status_code == 200
    assert "precio $ 1.250 por acción; 2.000.000 acciones" in allocated.text
    assert 'aria-label="Curva de demanda y punto de corte"' in allocated.text

    fine = {
        "csrf": csrf,
        "programa": "geb-2017",
        "fecha_referencia": "2018-04-02",
        "fecha_incumplimiento": "2019-01-15",
        "acciones": "10000",
        "hasta": "2019-02-20",
        "precio_adquisicion": "2018",
        "contraprestacion": "2500",
    }
    shown = office.post("/oficina/multas", data={**fine, "formato": "pagina"})
    assert shown.status_code == 200 and "Se toma $ 2.500" in shown.text
    pdf = office.post("/oficina/multas", data={**fine, "formato": "pdf"})
    assert pdf.headers["content-type"] == "application/pdf" and pdf.content.startswith(b"%PDF")
