"""A Primera Etapa through the API: the office, a broker's system, the public and an auditor."""

from __future__ import annotations

import csv
import io

from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.web.app import create_app
from tests.test_web_support import BROKER_A, CODE, PARAMS, SAMPLE, add_people, log_in


def session(app: object, login: str) -> TestClient:
    client = TestClient(app)  # type: ignore[arg-type]
    client.headers["X-CSRF-Token"] = log_in(client, login)
    return client


def test_a_primera_etapa_over_http(engine: Engine) -> None:
    add_people(engine)
    app = create_app(engine)
    office, auditor = session(app, "oficina"), session(app, "auditor")
    public = TestClient(app)

    created = office.post(
        "/api/ofertas",
        json={
            "codigo": CODE,
            "programa": "central-seguros-vida",
            "parametros": {k: str(v) for k, v in PARAMS.items()},
        },
    )
    assert created.status_code == 201 and created.json()["estado"] == "borrador"
    assert created.json()["parametros"]["precio"] == "$ 1.000"
    refused = office.post(f"/api/ofertas/{CODE}/cerrar", json={"motivo": "antes de abrir"})
    assert refused.status_code == 409 and "no puede pasar a cerrada" in refused.json()["detalle"]
    # The Primera Etapa opens only once credit lines finance 10 % of the shares' value
    # (Ley 226 art. 11 num. 3): $ 3.600.000.000 of $ 40.000.000.000 is 9 %, refused.
    line = {
        "entidad": "Banco Ejemplo",
        "monto_disponible": 3_600_000_000_00,
        "plazo_meses": 60,
        "gracia_meses": 12,
        "tasa_ea": "22.33",
        "fecha_otorgamiento": "2017-06-15",
    }
    registered = office.post(f"/api/ofertas/{CODE}/lineas-credito", json=line)
    assert registered.status_code == 201 and registered.json()["permite_abrir"] is False
    refused = office.post(f"/api/ofertas/{CODE}/abrir", json={"motivo": "inicio"})
    assert refused.status_code == 409 and "$ 3.600.000.000 < 10 %" in refused.json()["detalle"]
    second = {**line, "entidad": "Cooperativa Ejemplo", "monto_disponible": 400_000_000_00}
    registered = office.post(f"/api/ofertas/{CODE}/lineas-credito", json=second)
    assert registered.json()["permite_abrir"] is True
    assert len(auditor.get(f"/api/ofertas/{CODE}/lineas-credito").json()["lineas"]) == 2
    assert office.post(f"/api/ofertas/{CODE}/abrir", json={"motivo": "inicio"}).status_code == 200

    token = office.post("/api/tokens", json={"comisionista": BROKER_A, "descripcion": "sistema"})
    assert token.status_code == 201
    broker = TestClient(app, headers={"Authorization": f"Bearer {token.json()['token']}"})
    sample = (SAMPLE / "lote-1-casa-de-bolsa.csv").read_bytes()
    first = broker.post(
        f"/api/ofertas/{CODE}/lotes", files={"archivo": ("lote-1.csv", sample)}, data={"lote": "L1"}
    )
    assert first.status_code == 201
    batch = first.json()
    assert batch["creado"] and batch["filas"] == 750 == len(batch["resultado"])
    assert sum(batch["por_decision"].values()) == 750
    reduced = [r for r in batch["resultado"] if r["decision"] == "reducida"]
    assert reduced and all("Reducida de" in r["explicacion"] for r in reduced)
    rejected = [r for r in batch["resultado"] if r["decision"] == "rechazada"]
    assert rejected and all(r["explicacion"].startswith("Rechazada:") for r in rejected)
    assert all(r["explicacion"] is None for r in batch["resultado"] if r["decision"] == "aceptada")
    again = broker.post(
        f"/api/ofertas/{CODE}/lotes", files={"archivo": ("lote-1.csv", sample)}, data={"lote": "L1"}
    )
    assert again.json()["creado"] is False and "no se creó nada nuevo" in again.json()["detalle"]

    header, row = sample.decode().splitlines()[:2]
    one = dict(zip(header.split(","), row.split(","), strict=True))
    one = {k: v for k, v in one.items() if v} | {"referencia": "UNA-1"}
    single = broker.post(f"/api/ofertas/{CODE}/aceptaciones", json={"aceptacion": one})
    assert single.status_code == 201 and single.json()["creado"]
    twice = broker.post(f"/api/ofertas/{CODE}/aceptaciones", json={"aceptacion": one})
    assert twice.json()["creado"] is False
    radicado = batch["resultado"][0]["radicado"]
    gone = broker.post(
        f"/api/ofertas/{CODE}/aceptaciones/{radicado}/retiro", json={"motivo": "desistió"}
    )
    assert gone.status_code == 200
    versions = broker.get(f"/api/ofertas/{CODE}/aceptaciones/{radicado}").json()["versiones"]
    assert [(v["version"], v["estado"]) for v in versions] == [(2, "retirada"), (1, "radicada")]

    board = office.get(f"/api/ofertas/{CODE}/tablero").json()
    assert board["por_comisionista"] == [
        {
            "clave": BROKER_A,
            "aceptaciones": 751,
            "solicitadas": board["por_comisionista"][0]["solicitadas"],
            "permitidas": board["por_comisionista"][0]["permitidas"],
        }
    ]
    assert sum(r["aceptaciones"] for r in board["por_dia"]) == 751

    for step in ("cerrar", "adjudicar", "publicar"):
        assert office.post(f"/api/ofertas/{CODE}/{step}", json={"motivo": step}).status_code == 200
    record = auditor.get(f"/api/ofertas/{CODE}/adjudicacion").json()
    assert len(record["huella_entradas"]) == 64 and record["quien"] == "usuario:oficina"

    results = broker.get(f"/api/ofertas/{CODE}/resultados", params={"limite": 5000}).json()
    awarded = next(r for r in results if r["adjudicada"] > 0)
    mine = public.post(
        "/api/resultados/consulta",
        json={
            "oferta": CODE,
            "radicado": awarded["radicado"],
            "tipo_identificacion": awarded["tipo_identificacion"],
            "numero_identificacion": awarded["numero_identificacion"],
        },
    )
    assert mine.status_code == 200 and mine.json()["adjudicada"] == awarded["adjudicada"]
    wrong = public.post(
        "/api/resultados/consulta",
        json={**mine.json(), "tipo_identificacion": "CC", "numero_identificacion": "0"},
    )
    assert wrong.status_code == 404

    exported = broker.get(f"/api/ofertas/{CODE}/adjudicacion.csv")
    lines = list(csv.DictReader(io.StringIO(exported.text)))
    assert len(lines) == len(results) == 751 and "comisionista" not in lines[0]
    assert sum(int(r["adjudicada"]) for r in lines) == sum(r["adjudicada"] for r in results)
    pdf = auditor.get(f"/api/ofertas/{CODE}/informe.pdf")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    html = office.get(f"/api/ofertas/{CODE}/informe.html")
    assert record["huella_entradas"] in html.text
    registry = auditor.get(f"/api/ofertas/{CODE}/registro-adjudicatarios.csv").text
    assert registry.startswith(
        "tipo_identificacion,numero_identificacion,nombre,comisionista,acciones"
    )

    log = auditor.get("/api/auditoria", params={"limite": 1000}).json()
    who = {e["accion"]: e["quien"] for e in log}
    assert who["lote.recibir"] == f"token:1:{BROKER_A}"
    assert who["token.crear"] == who["oferta.adjudicar"] == "usuario:oficina"
    check = auditor.get("/api/auditoria/verificacion").json()
    assert check == {
        "integra": True,
        "entradas": len(log),
        "rota_en": None,
        "detalle": f"La cadena de auditoría está íntegra: {len(log)} entradas verificadas.",
    }
