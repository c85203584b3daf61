"""What the public sees of a later stage once its allocation is published: a buyer's own
order by radicado plus identification (the same lookup, page and API, as the Primera
Etapa's, with the same throttle and the same answer for what is not there), and the stage's
statistics page with its demand curve, the table of the curve and its package."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import Engine, select

from democratiza.adjudication.record import publish
from democratiza.stages.allocate import allocate_stage
from democratiza.stages.lifecycle import advance_stage, load_stage
from democratiza.stages.orders import import_orders, withdraw_order
from democratiza.storage.schema import orders
from democratiza.verification.package import AWARDS
from democratiza.web.api.views import ORDER_WITHDRAWN
from democratiza.web.app import create_app
from tests.test_stages import FIRST, book, close, new_stage, order, settle_sample
from tests.test_web_support import csrf_of

STAGE = "segunda"
PAGE = f"/etapas/{STAGE}/estadisticas"
NOT_FOUND = "No hay un resultado publicado con ese radicado e identificación. Verifique los datos."


def text(page: str) -> str:
    shown = re.sub(r"<(script|style|svg)\b.*?</\1>", " ", page, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", shown)).replace("&#39;", "'")


def allocated_stage(engine: Engine, tmp_path: Path) -> dict[str, dict[str, Any]]:
    """A Segunda Fase allocated (not yet published): two valid orders, one refused (below
    the minimum price) and one withdrawn; each order's current row by its reference."""
    settle_sample(engine, "central-seguros-vida")
    publish(engine, FIRST, "oficina", "publicación de resultados")
    new_stage(engine)
    rows = [
        order("O1", "1300", "8000"),
        order("O2", "1200", "9000"),
        order("O3", "900", "6000"),  # below the $ 1.000 minimum: refused at intake
    ]
    rows.append(order("O4", "1100", "5000"))  # withdrawn by its broker while open
    import_orders(engine, STAGE, book(tmp_path / "o.csv", rows), "Casa de Bolsa", "B1", "scb")
    with engine.connect() as conn:
        withdrawn = conn.execute(
            select(orders.c.radicado).where(orders.c.referencia == "O4")
        ).scalar_one()
    withdraw_order(engine, STAGE, withdrawn, "usuario:scb", "el cliente desistió")
    close(engine)
    allocate_stage(engine, STAGE, "oficina", "cierre del libro")
    with engine.connect() as conn:
        stored = conn.execute(
            select(
                orders.c.referencia,
                orders.c.radicado,
                orders.c.tipo_identificacion,
                orders.c.numero_identificacion,
                orders.c.nombre,
                orders.c.decision,
                orders.c.motivo,
            ).where(orders.c.vigente)
        ).mappings()
        return {str(r["referencia"]): dict(r) for r in stored}


def publish_stage(engine: Engine) -> None:
    with engine.begin() as conn:
        advance_stage(conn, load_stage(conn, STAGE), "publicada", "oficina", "publicación")


def query(row: dict[str, Any], **changes: str) -> dict[str, str]:
    return {
        "oferta": STAGE,
        "radicado": row["radicado"],
        "tipo_identificacion": row["tipo_identificacion"],
        "numero_identificacion": row["numero_identificacion"],
        **changes,
    }


def test_a_buyer_finds_their_order_once_the_stage_is_published(
    engine: Engine, tmp_path: Path
) -> None:
    rows = allocated_stage(engine, tmp_path)
    assert all(r["radicado"].startswith("O-") for r in rows.values())
    public = TestClient(create_app(engine))  # no login, no broker
    early = public.post("/api/resultados/consulta", json=query(rows["O1"]))
    assert early.status_code == 404
    assert early.json()["detalle"] == "Los resultados de esta etapa aún no se han publicado."
    publish_stage(engine)
    mine = public.post("/api/resultados/consulta", json=query(rows["O1"]))
    assert mine.status_code == 200, mine.text
    answer = mine.json()
    # Demand below the offer: every valid order is filled at the minimum price.
    assert answer | {"seudonimo": ""} == {
        "etapa": STAGE,
        "etapa_nombre": "Segunda Fase",
        "oferta": FIRST,
        "radicado": rows["O1"]["radicado"],
        "decision": "valida",
        "motivo": None,
        "cantidad": 8000,
        "precio": 130_000,
        "precio_adjudicacion": 100_000,
        "asignada": 8000,
        "valor_a_pagar": 8000 * 100_000,
        "seudonimo": "",
    }
    refused = public.post("/api/resultados/consulta", json=query(rows["O3"])).json()
    assert refused["decision"] == "rechazada" and refused["asignada"] == 0
    assert refused["motivo"] == rows["O3"]["motivo"] and "mínimo" in refused["motivo"]
    gone = public.post("/api/resultados/consulta", json=query(rows["O4"])).json()
    assert gone["decision"] == "rechazada" and gone["motivo"] == ORDER_WITHDRAWN  # no user named
    assert "usuario:scb" in rows["O4"]["motivo"]
    # The pseudonym is the one the stage's package names the order by.
    package = public.get(f"/etapas/{STAGE}/paquete.zip")
    with zipfile.ZipFile(io.BytesIO(package.content)) as archive:
        awards = list(csv.DictReader(io.StringIO(archive.read(AWARDS).decode())))
    row = next(r for r in awards if r["seudonimo"] == answer["seudonimo"])
    assert int(row["asignada"]) == 8000 and int(row["cantidad"]) == 8000


def test_an_unknown_order_and_a_wrong_id_get_the_same_answer(
    engine: Engine, tmp_path: Path
) -> None:
    rows = allocated_stage(engine, tmp_path)
    publish_stage(engine)
    public = TestClient(create_app(engine))
    wrong_id = public.post(
        "/api/resultados/consulta", json=query(rows["O1"], numero_identificacion="1")
    )
    unknown = public.post(
        "/api/resultados/consulta", json=query(rows["O1"], radicado="O-ZZZZ-000009-0000001")
    )
    no_stage = public.post("/api/resultados/consulta", json=query(rows["O1"], oferta="otra"))
    other_person = public.post(  # O2's radicado with O1's identification
        "/api/resultados/consulta", json=query(rows["O1"], radicado=rows["O2"]["radicado"])
    )
    answers = [wrong_id, unknown, no_stage, other_person]
    assert {a.status_code for a in answers} == {404}
    assert {a.text for a in answers} == {wrong_id.text}
    assert wrong_id.json()["detalle"] == NOT_FOUND
    # An order's radicado never reaches the Primera Etapa's acceptances, nor the other way.
    assert public.post("/api/resultados/consulta", json=query(rows["O1"], oferta=FIRST)).text == (
        wrong_id.text
    )


def test_the_order_lookup_is_throttled_with_the_primera_etapa_s(
    engine: Engine, tmp_path: Path
) -> None:
    rows = allocated_stage(engine, tmp_path)
    publish_stage(engine)
    public = TestClient(create_app(engine))
    first = {"oferta": FIRST, "radicado": "X", "tipo_identificacion": "CC"}
    for _ in range(10):  # Primera Etapa lookups count in the same door
        public.post("/api/resultados/consulta", json={**first, "numero_identificacion": "1"})
    wrong = query(rows["O1"], numero_identificacion="1")
    answers = [public.post("/api/resultados/consulta", json=wrong).status_code for _ in range(11)]
    assert answers == [404] * 10 + [429]


def test_the_result_page_answers_an_order_in_words(engine: Engine, tmp_path: Path) -> None:
    rows = allocated_stage(engine, tmp_path)
    public = TestClient(create_app(engine))

    def look_up(data: dict[str, str]) -> tuple[int, str]:
        answer = public.post("/resultados", data={**data, "csrf": csrf_of(public, "/resultados")})
        return answer.status_code, answer.text

    status, page = look_up(query(rows["O1"]))
    assert status == 404 and "Los resultados de esta etapa aún no se han publicado." in text(page)
    assert f'<option value="{STAGE}"' not in page  # not listed before publication
    publish_stage(engine)
    form = public.get("/resultados").text
    # The stage by the name of the offer it follows and its own; its code is the office's.
    with engine.connect() as conn:
        name = load_stage(conn, STAGE).first.program.name
    assert f'<option value="{STAGE}">{name} · Segunda Fase</option>' in form
    # A radicado in any case and a number with the dots of its thousands, as for acceptances.
    typed = query(
        rows["O1"],
        radicado=rows["O1"]["radicado"].lower(),
        numero_identificacion=f"{int(rows['O1']['numero_identificacion']):,}".replace(",", "."),
    )
    status, page = look_up(typed)
    shown = text(page)
    assert status == 200
    assert f"Etapa {name} · Segunda Fase" in shown and f"{STAGE}" not in shown
    assert "8.000 acciones asignadas" in shown
    assert "$ 1.000 precio único por acción" in shown
    assert "$ 8.000.000 valor a pagar" in shown
    assert "Precio por acción que ofreció $ 1.300" in shown
    assert 'id="decision">válida<' in page and "valida" not in shown
    assert f'href="/etapas/{STAGE}/estadisticas"' in page
    assert re.search(r'<code id="seudonimo">[0-9a-f]{32}</code>', page)
    status, page = look_up(query(rows["O3"]))
    shown = text(page)
    assert status == 200 and 'id="decision">rechazada<' in page
    assert f"Por qué se rechazó {rows['O3']['motivo']}" in shown
    assert "0 acciones asignadas" in shown
    # Unknown radicado, wrong ID: the same page, the same words.
    wrong = look_up(query(rows["O1"], numero_identificacion="1"))
    unknown = look_up(query(rows["O1"], radicado="O-ZZZZ-000009-0000001"))
    assert wrong[0] == unknown[0] == 404
    assert NOT_FOUND in text(wrong[1]) and NOT_FOUND in text(unknown[1])
    assert 'id="resultado"' not in wrong[1] + unknown[1]


def test_the_stage_s_statistics_page(engine: Engine, tmp_path: Path) -> None:
    rows = allocated_stage(engine, tmp_path)
    public = TestClient(create_app(engine))
    assert public.get(PAGE).status_code == 409  # allocated, not yet published
    assert "se arma cuando su adjudicación está publicada" in text(public.get(PAGE).text)
    assert public.get("/etapas/otra/estadisticas").status_code == 404
    assert f'href="{PAGE}"' not in public.get("/").text
    publish_stage(engine)
    answer = public.get(PAGE)
    assert answer.status_code == 200
    page, shown = answer.text, text(answer.text)
    with engine.connect() as conn:
        stage = load_stage(conn, STAGE)
    offered = f"{stage.shares:,}".replace(",", ".")
    for figure in (
        f"{offered} acciones ofrecidas en la etapa",
        "$ 1.000 precio mínimo por acción",
        "4 órdenes recibidas",
        "2 órdenes válidas",
        "17.000 acciones pedidas en las órdenes válidas",
        "$ 1.000 precio único de adjudicación",
        "17.000 acciones asignadas",
        "2 compradores",
        "Subasta holandesa",
    ):
        assert figure in shown, figure
    # The demand curve (for a wide screen and for a phone), and the table of its figures for
    # who cannot see it.
    assert page.count("<svg") == 2 and 'id="grafico-demanda"' in page
    table = page[page.index('id="tabla-demanda"') :]
    assert "$ 1.300" in table and "8.000" in table and "17.000" in table
    assert "precio de adjudicación" in table
    assert f'href="/etapas/{STAGE}/paquete.zip"' in page
    # No one named: no name, no identification number, no radicado.
    for row in rows.values():
        assert row["nombre"] not in shown and row["radicado"] not in page
        assert re.search(rf"\b{row['numero_identificacion']}\b", shown) is None
    assert "subasta_holandesa" not in shown
    # Linked wherever the offer's statistics are.
    for where in ("/", f"/ofertas/{FIRST}", f"/ofertas/{FIRST}/estadisticas"):
        assert f'href="{PAGE}"' in public.get(where).text, where
