"""A broker reads why each row got its decision wherever the row appears, not only in the
first answer to its batch: in "Mis aceptaciones", in the answer to the same batch sent again
and, for the public, in a rejected filing's result (its causes with their articles).

The worked example: broker A's sample batch (750 rows) filed on the Central offer; each
reason written again from the stored rows is the one its first answer gave.
"""

from __future__ import annotations

import re
from datetime import date
from html import unescape

import polars as pl
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select

from democratiza.adjudication.record import adjudicate, publish
from democratiza.filing.batches import import_batch, withdraw
from democratiza.filing.reasons import reason_text, stored_explanations, stored_reasons
from democratiza.offers.lifecycle import load_offer
from democratiza.rules.explain import explainer_for
from democratiza.storage.schema import acceptances
from democratiza.web.app import create_app
from tests.test_web_support import (
    BROKER_A,
    BROKER_B,
    CODE,
    SAMPLE,
    add_people,
    bearer,
    log_in,
    move,
    open_offer,
)

BATCH_A = SAMPLE / "lote-1-casa-de-bolsa.csv"


def filed_with_first_answer(engine: Engine) -> dict[str, str]:
    """Broker A's batch filed; radicado → the reason its first answer would give."""
    open_offer(engine)
    result = import_batch(engine, CODE, BATCH_A, BROKER_A, "L1", "scb")
    assert result.evaluated is not None
    compiled, results, frame = result.evaluated
    first = explainer_for(compiled).explain_all(results, frame)
    radicados = result.decisions["radicado"].to_list()
    return {r: reason_text(e) for r, e in zip(radicados, first, strict=True)}


def test_the_stored_rows_are_explained_as_their_first_answer(engine: Engine) -> None:
    first = filed_with_first_answer(engine)
    with engine.connect() as conn:
        again = stored_explanations(conn, load_offer(conn, CODE), list(first))
    assert {r: reason_text(e) for r, e in again.items()} == first
    decisions = {e.decision for e in again.values()}
    assert decisions == {"aceptada", "reducida", "rechazada"}


def test_a_withdrawn_row_reads_its_withdrawal(engine: Engine) -> None:
    first = filed_with_first_answer(engine)
    radicado = next(iter(first))
    withdraw(engine, CODE, radicado, "scb", "el aceptante desistió")
    with engine.connect() as conn:
        stored = load_offer(conn, CODE)
        rows: list[dict[str, object]] = [
            {"radicado": radicado, "estado": "retirada", "motivo": "el aceptante desistió"}
        ]
        assert stored_reasons(conn, stored, rows) == {
            radicado: "Retirada por su comisionista: el aceptante desistió."
        }
        assert radicado not in stored_explanations(conn, stored, [radicado])


def rows_of(page: str) -> dict[str, str]:
    """radicado → the 'Por qué' cell of the acceptances page."""
    found = re.findall(r'<tr><td><code>([^<]+)</code>.*?<td class="por-que">(.*?)</td>', page)
    return {r: unescape(re.sub(r"<[^>]+>", "", why)) for r, why in found}


def test_my_acceptances_keep_each_reason_and_my_batches_link_to_their_rows(
    engine: Engine,
) -> None:
    first = filed_with_first_answer(engine)
    import_batch(engine, CODE, SAMPLE / "lote-2-acciones-y-valores.csv", BROKER_B, "L1", "ayv")
    add_people(engine)
    broker = TestClient(create_app(engine))
    log_in(broker, "comisionista_a")
    home = broker.get("/comisionista").text
    assert f'href="/ofertas/{CODE}/aceptaciones?lote=L1">Ver las filas del lote L1</a>' in home
    shown = rows_of(broker.get(f"/ofertas/{CODE}/aceptaciones?lote=L1").text)
    assert len(shown) == 200  # the first page of the batch's 750 rows
    assert shown == {r: first[r] for r in shown}
    assert any(why.startswith("Reducida de") for why in shown.values())
    # The office reads one broker's batch by its name and the broker's.
    office = TestClient(create_app(engine))
    log_in(office, "oficina")
    theirs = office.get(
        f"/ofertas/{CODE}/aceptaciones", params={"lote": "L1", "comisionista": BROKER_B}
    ).text
    assert rows_of(theirs) and not set(rows_of(theirs)) & set(first)
    assert f"Solo las filas del lote L1 de {BROKER_B}" in re.sub(r"<[^>]+>", "", theirs)


def test_a_batch_sent_again_answers_with_its_reasons(engine: Engine) -> None:
    add_people(engine)
    open_offer(engine)
    broker = TestClient(create_app(engine), headers=bearer(engine, BROKER_A))
    sample = BATCH_A.read_bytes()

    def send() -> dict[str, object]:
        answer = broker.post(
            f"/api/ofertas/{CODE}/lotes", files={"archivo": ("l.csv", sample)}, data={"lote": "L1"}
        )
        assert answer.status_code in (200, 201), answer.text
        found: dict[str, object] = answer.json()
        return found

    first, again = send(), send()
    assert first["creado"] is True and again["creado"] is False
    said = {r["radicado"]: r["explicacion"] for r in first["resultado"]}  # type: ignore[attr-defined]
    said_again = {r["radicado"]: r["explicacion"] for r in again["resultado"]}  # type: ignore[attr-defined]
    assert said_again == said
    assert sum(1 for why in said_again.values() if why) > 0


def test_a_rejected_filing_reads_its_causes_in_the_public_result(engine: Engine) -> None:
    first = filed_with_first_answer(engine)
    move(engine, "cerrada")
    adjudicate(engine, CODE, "oficina", "adjudicación", date(2018, 3, 1))
    publish(engine, CODE, "oficina", "publicación de resultados")
    with engine.connect() as conn:
        row = (
            conn.execute(
                select(
                    acceptances.c.radicado,
                    acceptances.c.tipo_identificacion,
                    acceptances.c.numero_identificacion,
                ).where(acceptances.c.decision == "rechazada", acceptances.c.vigente)
            )
            .mappings()
            .first()
        )
    assert row is not None
    answer = TestClient(create_app(engine)).post(
        "/api/resultados/consulta", json={"oferta": CODE, **{k: str(v) for k, v in row.items()}}
    )
    assert answer.status_code == 200, answer.text
    step = next(p for p in answer.json()["pasos"] if p["paso"] == "Rechazada al radicar")
    causes = (
        first[row["radicado"]].split(": ", 1)[1].split(" ", 2)[2]
    )  # after "Rechazada: N causa(s)."
    assert step["por_que"].startswith("La aceptación no cumplió ")
    assert step["por_que"].endswith(causes)
    assert "comisionista le informa" not in step["por_que"]
    assert pl.Series([step["por_que"]]).str.contains(r"\(.*art\.").all()


def test_a_withdrawn_row_reads_withdrawn_not_rejected_in_my_acceptances(engine: Engine) -> None:
    first = filed_with_first_answer(engine)
    radicado = next(iter(first))
    withdraw(engine, CODE, radicado, "scb", "el aceptante desistió")
    add_people(engine)
    broker = TestClient(create_app(engine))
    log_in(broker, "comisionista_a")
    page = broker.get(f"/ofertas/{CODE}/aceptaciones?lote=L1").text
    row = re.search(rf"<tr><td><code>{radicado}</code>.*?</tr>", page, re.S)
    assert row is not None, page[:3000]
    cells = [
        unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", row[0])
    ]
    # Its last version stores "rechazada" with nothing permitted; nobody refused it.
    assert "retirada por su comisionista" in cells and "rechazada" not in cells
