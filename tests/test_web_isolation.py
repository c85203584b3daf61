"""A broker never reads or changes another broker's acceptances: route by route.

Broker A ("Casa de Bolsa") and broker B ("Acciones y Valores") file the sample batches;
B's acceptances have radicados ``000002-…``. Every route a broker may call, except the
public ones (tried in ``test_web_access``), has its own check below, and the first test
makes sure a new broker route cannot be added without one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import Engine, func, select

from democratiza.storage.radicados import broker_tag
from democratiza.storage.schema import acceptances, batches, orders
from democratiza.web.app import create_app
from democratiza.web.security.access import ACCESS, EVERYONE
from democratiza.web.security.auth import BROKER
from tests.test_web_support import (
    BROKER_A,
    BROKER_B,
    CODE,
    SAMPLE,
    add_people,
    bearer,
    count,
    file_samples,
    log_in,
    move,
    open_offer,
)

# Radicados start with the broker's tag (``storage.radicados``): B's never reach A.
B_TAG = broker_tag(BROKER_B)
B_MARKS = (BROKER_B, B_TAG + "-")
B_RADICADO = f"{B_TAG}-000001-0000001"
B_MISSING = f"{B_TAG}-000001-9999999"
A_FIRST = f"{broker_tag(BROKER_A)}-000001-0000001"
B_FILE = SAMPLE / "lote-2-acciones-y-valores.csv"


class Brokers:
    """Broker A by API token and by session; broker B's data as the thing to protect."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.app = create_app(engine)
        self.api = TestClient(self.app, headers=bearer(engine, BROKER_A))
        self.page = TestClient(self.app)
        self.csrf = log_in(self.page, "comisionista_a")
        b = TestClient(self.app)
        self.b_csrf = log_in(b, "comisionista_b")
        self.b = b

    def clean(self, text: str) -> None:
        for mark in B_MARKS:
            assert mark not in text

    def b_untouched(self) -> None:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(acceptances.c.version, acceptances.c.vigente, acceptances.c.estado).where(
                    acceptances.c.radicado == B_RADICADO
                )
            ).all()
        assert [tuple(r) for r in rows] == [(1, True, "radicada")]

    def wait(self, client: TestClient, location: str) -> str:
        job = location.rsplit("/", 1)[1]
        for _ in range(200):
            state = client.get(f"/api/trabajos/{job}").json()
            if state["estado"] in ("terminado", "fallido"):
                return str(state["mensaje"])
            time.sleep(0.05)
        raise AssertionError("el trabajo no terminó")


def nothing_written(engine: Engine, action: Callable[[], None]) -> None:
    before = (count(engine, acceptances), count(engine, batches))
    action()
    assert (count(engine, acceptances), count(engine, batches)) == before


def check_lotes(s: Brokers) -> None:
    answer = s.api.get(f"/api/ofertas/{CODE}/lotes")
    assert answer.status_code == 200 and {r["comisionista"] for r in answer.json()} == {BROKER_A}
    s.clean(answer.text)


def check_aceptaciones(s: Brokers) -> None:
    seen = s.api.get(f"/api/ofertas/{CODE}/aceptaciones", params={"limite": 5000})
    assert seen.status_code == 200 and len(seen.json()) == 750
    s.clean(seen.text)
    after = s.api.get(
        f"/api/ofertas/{CODE}/aceptaciones", params={"despues_de": A_FIRST[:-7] + "9999999"}
    )
    assert after.json() == []  # paging past A's last radicado reaches no one else's


def check_aceptaciones_archivo(s: Brokers) -> None:
    answer = s.api.get(f"/api/ofertas/{CODE}/aceptaciones.csv")
    assert answer.status_code == 200 and answer.text.count("\n") == 751
    s.clean(answer.text)


def check_aceptacion(s: Brokers) -> None:
    assert s.api.get(f"/api/ofertas/{CODE}/aceptaciones/{A_FIRST}").status_code == 200
    other = s.api.get(f"/api/ofertas/{CODE}/aceptaciones/{B_RADICADO}")
    missing = s.api.get(f"/api/ofertas/{CODE}/aceptaciones/{B_MISSING}")
    # B's acceptance answers exactly as one that does not exist: no oracle of existence.
    assert other.status_code == missing.status_code == 404
    assert other.text.replace(B_RADICADO, "?") == missing.text.replace(B_MISSING, "?")


def check_retirar(s: Brokers) -> None:
    other = s.api.post(
        f"/api/ofertas/{CODE}/aceptaciones/{B_RADICADO}/retiro", json={"motivo": "x"}
    )
    assert other.status_code == 404
    s.b_untouched()


def check_pag_retirar(s: Brokers) -> None:
    other = s.page.post(
        f"/ofertas/{CODE}/aceptaciones/{B_RADICADO}/retiro", data={"motivo": "x", "csrf": s.csrf}
    )
    assert other.status_code == 404
    s.b_untouched()


def check_subir(s: Brokers) -> None:
    def send() -> None:
        with B_FILE.open("rb") as fh:
            answer = s.api.post(
                f"/api/ofertas/{CODE}/lotes", files={"archivo": ("b.csv", fh)}, data={"lote": "X"}
            )
        assert answer.status_code == 422
        assert answer.json()["errores"][0]["mensaje"].startswith("la fila es de otro comisionista")

    nothing_written(s.engine, send)


def check_radicar(s: Brokers) -> None:
    def send() -> None:
        row = {"referencia": "Z-1", "comisionista": BROKER_B}
        answer = s.api.post(f"/api/ofertas/{CODE}/aceptaciones", json={"aceptacion": row})
        assert answer.status_code == 422

    nothing_written(s.engine, send)


def check_pag_subir(s: Brokers) -> None:
    def send() -> None:
        with B_FILE.open("rb") as fh:
            answer = s.page.post(
                f"/comisionista/ofertas/{CODE}/lotes",
                files={"archivo": ("b.csv", fh)},
                data={"lote": "X", "csrf": s.csrf},
                follow_redirects=False,
            )
        assert answer.status_code == 303
        assert s.wait(s.page, answer.headers["location"]).endswith("no se guardó nada.")
        job = s.page.get(answer.headers["location"]).text
        assert "la fila es de otro comisionista" in job

    nothing_written(s.engine, send)


def b_job(s: Brokers) -> str:
    with B_FILE.open("rb") as fh:
        answer = s.b.post(
            f"/comisionista/ofertas/{CODE}/lotes",
            files={"archivo": ("b.csv", fh)},
            data={"lote": "L1", "csrf": s.b_csrf},
            follow_redirects=False,
        )
    s.wait(s.b, answer.headers["location"])
    return str(answer.headers["location"]).rsplit("/", 1)[1]


def check_trabajo(s: Brokers) -> None:
    assert s.api.get(f"/api/trabajos/{b_job(s)}").status_code == 404


def check_pag_trabajo(s: Brokers) -> None:
    answer = s.page.get(f"/trabajos/{b_job(s)}")
    assert answer.status_code == 404
    s.clean(answer.text)


def check_pag_aceptaciones(s: Brokers) -> None:
    answer = s.page.get(f"/ofertas/{CODE}/aceptaciones")
    assert answer.status_code == 200 and A_FIRST in answer.text
    s.clean(answer.text)


def check_pag_comisionista(s: Brokers) -> None:
    answer = s.page.get("/comisionista")
    assert answer.status_code == 200 and BROKER_A in answer.text
    s.clean(answer.text)


def check_resultados(s: Brokers) -> None:
    rows = s.api.get(f"/api/ofertas/{CODE}/resultados", params={"limite": 5000})
    assert rows.status_code == 200 and len(rows.json()) == 750
    assert {r["comisionista"] for r in rows.json()} == {BROKER_A}
    # The same person filed with B first: the limit B's filing used is named, not located.
    assert any("otro comisionista" in (r["consumido_por"] or "") for r in rows.json())
    s.clean(rows.text)


def check_archivo(s: Brokers) -> None:
    answer = s.api.get(f"/api/ofertas/{CODE}/adjudicacion.csv")
    assert answer.status_code == 200 and answer.text.count("\n") == 751
    s.clean(answer.text)


def check_resultado_publico(s: Brokers) -> None:
    query = {"oferta": CODE, "radicado": B_RADICADO, "tipo_identificacion": "CC"}
    answer = s.api.post("/api/resultados/consulta", json={**query, "numero_identificacion": "1"})
    assert answer.status_code == 404
    s.clean(answer.text)


WHILE_OPEN = {
    "api.lotes": check_lotes,
    "api.aceptaciones": check_aceptaciones,
    "api.aceptaciones.archivo": check_aceptaciones_archivo,
    "api.aceptacion": check_aceptacion,
    "api.aceptacion.retirar": check_retirar,
    "pag.aceptacion.retirar": check_pag_retirar,
    "api.lote.subir": check_subir,
    "api.aceptacion.radicar": check_radicar,
    "pag.lote.subir": check_pag_subir,
    "api.trabajo": check_trabajo,
    "pag.trabajo": check_pag_trabajo,
    "pag.aceptaciones": check_pag_aceptaciones,
    "pag.comisionista": check_pag_comisionista,
}
AFTER_ADJUDICATION = {
    "api.resultados": check_resultados,
    "api.adjudicacion.archivo": check_archivo,
}
PUBLIC_WITH_DATA = {"api.resultado": check_resultado_publico}

# ------------------------------------------------------------ a later stage: orders

STAGE = "segunda"
STAGE_TERMS = {
    "mecanismo": "subasta_holandesa",
    "fecha_aviso": "2018-04-02",
    "fecha_apertura": "2018-04-03",
    "fecha_cierre": "2018-04-16",
    "orden_minima": 100,
    "fuente": "aviso de prueba",
}
ORDER_HEADER = (
    "referencia,comisionista,fecha_ingreso,tipo_identificacion,numero_identificacion,nombre,"
    "tipo_persona,nacionalidad,capacidad_legal,precio,cantidad"
)


def orders_file(folder: Path, broker: str, reference: str) -> Path:
    path = folder / f"{reference}.csv"
    row = f"{reference},{broker},2018-04-05T10:00,NIT,900{len(broker)},Inversora,juridica,"
    path.write_text(f"{ORDER_HEADER}\n{row}colombiana,si,1100,1000\n", encoding="utf-8")
    return path


def b_order(s: Brokers) -> str:
    with s.engine.connect() as conn:
        return str(
            conn.execute(
                select(orders.c.radicado).where(orders.c.comisionista == BROKER_B)
            ).scalar_one()
        )


def b_order_untouched(s: Brokers) -> None:
    with s.engine.connect() as conn:
        rows = conn.execute(
            select(orders.c.version, orders.c.estado).where(orders.c.comisionista == BROKER_B)
        ).all()
    assert [tuple(r) for r in rows] == [(1, "radicada")]


def clean_orders(s: Brokers, text: str) -> None:
    assert BROKER_B not in text and b_order(s) not in text


def check_etapa_ordenes(s: Brokers) -> None:
    answer = s.api.get(f"/api/etapas/{STAGE}/ordenes")
    assert answer.status_code == 200 and [o["comisionista"] for o in answer.json()] == [BROKER_A]
    clean_orders(s, answer.text)


def check_etapa_retirar(s: Brokers) -> None:
    other = s.api.post(f"/api/etapas/{STAGE}/ordenes/{b_order(s)}/retiro", json={"motivo": "x"})
    missing = s.api.post(f"/api/etapas/{STAGE}/ordenes/O999999-000001/retiro", json={"motivo": "x"})
    assert other.status_code == missing.status_code == 404
    b_order_untouched(s)


def check_etapa_subir(s: Brokers, folder: Path) -> None:
    before = count(s.engine, orders)
    with orders_file(folder, BROKER_B, "B-2").open("rb") as fh:
        answer = s.api.post(
            f"/api/etapas/{STAGE}/lotes", files={"archivo": ("b.csv", fh)}, data={"lote": "X"}
        )
    assert answer.status_code == 422
    assert answer.json()["errores"][0]["mensaje"].startswith("la fila es de otro comisionista")
    assert count(s.engine, orders) == before


def check_etapa_asignacion(s: Brokers) -> None:
    answer = s.api.get(f"/api/etapas/{STAGE}/asignacion.csv")
    assert answer.status_code == 200 and answer.text.count("\n") == 2  # header and A's order
    clean_orders(s, answer.text)


def check_pag_etapa(s: Brokers) -> None:
    answer = s.page.get(f"/comisionista/etapas/{STAGE}")
    assert answer.status_code == 200 and "A-1" in answer.text
    clean_orders(s, answer.text)


def check_pag_etapa_subir(s: Brokers, folder: Path) -> None:
    before = count(s.engine, orders)
    with orders_file(folder, BROKER_B, "B-3").open("rb") as fh:
        answer = s.page.post(
            f"/comisionista/etapas/{STAGE}/lotes",
            files={"archivo": ("b.csv", fh)},
            data={"lote": "Y", "csrf": s.csrf},
        )
    assert answer.status_code == 422 and "la fila es de otro comisionista" in answer.text
    assert count(s.engine, orders) == before


STAGE_WHILE_OPEN = {
    "api.etapa.ordenes": check_etapa_ordenes,
    "api.etapa.orden.retirar": check_etapa_retirar,
    "pag.etapa.comisionista": check_pag_etapa,
}
STAGE_AFTER_ALLOCATION = {"api.etapa.asignacion": check_etapa_asignacion}
STAGE_UPLOADS = {
    "api.etapa.lote.subir": check_etapa_subir,
    "pag.etapa.lote.subir": check_pag_etapa_subir,
}


def test_every_broker_route_has_an_isolation_check() -> None:
    broker_routes = {n for n, roles in ACCESS.items() if BROKER in roles and roles != EVERYONE}
    checked = set(WHILE_OPEN) | set(AFTER_ADJUDICATION)
    checked |= {*STAGE_WHILE_OPEN, *STAGE_AFTER_ALLOCATION, *STAGE_UPLOADS}
    assert checked == broker_routes


def test_broker_a_never_reaches_broker_b(engine: Engine) -> None:
    add_people(engine)
    open_offer(engine)
    file_samples(engine)
    s = Brokers(engine)
    for check in WHILE_OPEN.values():
        check(s)
    move(engine, "cerrada")
    from democratiza.adjudication.record import adjudicate, publish

    adjudicate(engine, CODE, "bolsa", "adjudicación", date(2018, 3, 1))
    publish(engine, CODE, "oficina", "publicación")
    for check in [*AFTER_ADJUDICATION.values(), *PUBLIC_WITH_DATA.values()]:
        check(s)
    with engine.connect() as conn:
        mine = conn.execute(
            select(func.count()).where(acceptances.c.comisionista == BROKER_A)
        ).scalar_one()
    assert mine == 750  # A's own acceptances were untouched by all of the above


def test_broker_a_never_reaches_broker_b_in_a_later_stage(engine: Engine, tmp_path: Path) -> None:
    add_people(engine)
    open_offer(engine)
    file_samples(engine)
    move(engine, "cerrada")
    from democratiza.adjudication.record import adjudicate
    from democratiza.compliance.holdings import settle

    adjudicate(engine, CODE, "bolsa", "adjudicación", date(2018, 3, 1))
    settle(engine, CODE, date(2018, 3, 20), "oficina")  # nothing paid: every share returns
    s = Brokers(engine)
    office = TestClient(s.app)
    csrf = log_in(office, "oficina")
    created = office.post(
        "/api/etapas",
        json={"codigo": STAGE, "oferta": CODE, "terminos": STAGE_TERMS},
        headers={"X-CSRF-Token": csrf},
    )
    assert created.status_code == 201, created.text
    opened = office.post(
        f"/api/etapas/{STAGE}/abrir", json={"motivo": "apertura"}, headers={"X-CSRF-Token": csrf}
    )
    assert opened.json()["estado"] == "abierta"
    b_token = bearer(engine, BROKER_B)
    with orders_file(tmp_path, BROKER_B, "B-1").open("rb") as fh:
        filed = s.api.post(
            f"/api/etapas/{STAGE}/lotes",
            files={"archivo": ("b.csv", fh)},
            data={"lote": "L1"},
            headers=b_token,
        )
    assert filed.status_code == 201, filed.text
    with orders_file(tmp_path, BROKER_A, "A-1").open("rb") as fh:
        mine = s.api.post(
            f"/api/etapas/{STAGE}/lotes", files={"archivo": ("a.csv", fh)}, data={"lote": "L1"}
        )
    assert mine.status_code == 201 and mine.json()["creado"] is True
    for check in STAGE_WHILE_OPEN.values():
        check(s)
    for upload in STAGE_UPLOADS.values():
        upload(s, tmp_path)
    for step in ("cerrar", "adjudicar"):
        done = office.post(
            f"/api/etapas/{STAGE}/{step}", json={"motivo": step}, headers={"X-CSRF-Token": csrf}
        )
        assert done.status_code == 200, done.text
    for check in STAGE_AFTER_ALLOCATION.values():
        check(s)
