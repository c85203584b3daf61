"""A member of the public reads every step that changed their award, in words with the rule's
article; a withdrawn acceptance reads "retirada por su comisionista", not a rejection with a
deadline and $ 0 to pay; the lookup takes a cédula with dots or spaces and a radicado in any
case; the offer is named by its name."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import polars as pl
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select

from democratiza.adjudication.record import adjudicate, publish, stored_adjudication
from democratiza.compliance.holdings import settle
from democratiza.compliance.payment_batches import record_payment
from democratiza.filing.batches import withdraw
from democratiza.storage.database import make_engine, migrate
from democratiza.storage.schema import acceptances
from democratiza.web.app import create_app
from tests.test_web_pages import post, text
from tests.test_web_support import BROKER_A, CODE, file_samples, move, open_offer

NAME = (
    "Programa de enajenación de acciones de Fogafín en la Compañía Central de Seguros de Vida "
    "S.A. (Primera Fase)"
)


def dotted(number: str) -> str:
    """A cédula as people write it: 10019032 → "10.019.032 " (with a space after)."""
    return f"{int(number):,}".replace(",", ".") + " "


def published_with_one_withdrawn(engine: Engine) -> tuple[str, pl.DataFrame]:
    open_offer(engine)
    file_samples(engine)
    with engine.connect() as conn:
        first = conn.execute(
            select(acceptances.c.radicado)
            .where(acceptances.c.comisionista == BROKER_A, acceptances.c.decision == "aceptada")
            .order_by(acceptances.c.recepcion)
            .limit(1)
        ).scalar_one()
    withdraw(engine, CODE, first, "scb", "el aceptante desistió")
    move(engine, "cerrada")
    adjudicate(engine, CODE, "oficina", "adjudicación", date(2018, 3, 1))
    publish(engine, CODE, "oficina", "publicación de resultados")
    return first, stored_adjudication(engine, CODE).results


def ask(client: TestClient, row: dict[str, object], **typed: str) -> dict[str, object]:
    query = {
        "oferta": CODE,
        "radicado": str(row["radicado"]),
        "tipo_identificacion": str(row["tipo_identificacion"]),
        "numero_identificacion": str(row["numero_identificacion"]),
        **typed,
    }
    answer = client.post("/api/resultados/consulta", json=query)
    assert answer.status_code == 200, answer.text
    found: dict[str, object] = answer.json()
    return found


def test_each_step_that_changed_the_award_is_shown_with_its_rule(engine: Engine) -> None:
    gone, results = published_with_one_withdrawn(engine)
    client = TestClient(create_app(engine))
    # Prorated: the limits left more than the offer could give.
    prorated = results.filter(
        (pl.col("adjudicada") < pl.col("cantidad_persona")) & (pl.col("adjudicada") > 0)
    ).row(0, named=True)
    found = ask(
        client,
        prorated,
        radicado=f"  {str(prorated['radicado']).lower()} ",
        numero_identificacion=dotted(str(prorated["numero_identificacion"])),
    )
    steps = found["pasos"]
    assert isinstance(steps, list)
    assert steps[0]["paso"] == "Acciones solicitadas"
    assert steps[0]["acciones"] == prorated["cantidad"]
    assert steps[-1] == {
        "paso": "Acciones adjudicadas",
        "acciones": prorated["adjudicada"],
        "por_que": "Lo que se le adjudicó en la Primera Etapa.",
    }
    share = next(s for s in steps if s["paso"] == "Reparto de la oferta (prorrateo)")
    assert "método igualitario con redistribución" in share["por_que"]
    # Central's decree text at hand has no adjudication article: said so, never a file name.
    assert "el que fija el programa de la oferta" in share["por_que"]
    assert "fuentes.md" not in str(steps)
    # Limited at filing: the limit by its decree's words and article.
    limited = results.filter(
        (pl.col("cantidad_permitida") < pl.col("cantidad")) & (pl.col("decision") != "rechazada")
    ).row(0, named=True)
    steps = ask(client, limited)["pasos"]
    assert isinstance(steps, list)
    at_filing = next(
        s for s in steps if s["paso"] == "Cantidad permitida por los límites al radicar"
    )
    assert at_filing["acciones"] == limited["cantidad_permitida"]
    assert "El límite que determinó la cantidad: " in at_filing["por_que"]
    assert "central-" not in str(steps)  # never a rule's id

    # Withdrawn: said so, with nothing to pay and no deadline.
    withdrawn = results.filter(pl.col("radicado") == gone).row(0, named=True)
    found = ask(client, withdrawn)
    assert found["retirada"] is True and found["decision"] == "retirada"
    steps = found["pasos"]
    assert isinstance(steps, list)
    assert [s["paso"] for s in steps] == [
        "Acciones solicitadas",
        "Retirada por su comisionista",
    ]
    page = text(
        post(
            client,
            "/resultados",
            {
                "oferta": CODE,
                "radicado": gone.lower(),
                "tipo_identificacion": str(withdrawn["tipo_identificacion"]),
                "numero_identificacion": dotted(str(withdrawn["numero_identificacion"])),
            },
        )
    )
    assert "Aceptación retirada por su comisionista" in page
    assert "retirada por su comisionista" in page
    assert "Plazo para pagar" not in page and "valor a pagar" not in page
    assert "rechazada" not in page.lower().replace("rechazada al radicar", "")

    # The form and the result name the offer by its name.
    form = client.get("/resultados").text
    assert f'<option value="{CODE}"' in form
    # The Primera Etapa as Central's program calls it (nombre_primera_etapa), not the
    # family's word.
    assert f"{NAME} · Primera Fase" in form
    assert "· Primera Etapa" not in form and f"{CODE} · Primera Fase" not in form


def test_after_settlement_the_result_says_what_was_paid_and_what_became_of_the_rest(
    tmp_path: Path,
) -> None:
    sqlite = make_engine(f"sqlite:///{tmp_path / 'democratiza.db'}")
    migrate(sqlite)
    _, results = published_with_one_withdrawn(sqlite)
    person = results.filter(pl.col("adjudicada") >= 100).row(0, named=True)
    shares = int(person["adjudicada"])
    record_payment(
        sqlite, CODE, person["radicado"], date(2018, 3, 12), 40 * 100_000, "contado", "scb"
    )
    settle(sqlite, CODE, date(2018, 3, 20), "oficina")
    client = TestClient(create_app(sqlite))
    steps = ask(client, person)["pasos"]
    assert isinstance(steps, list)
    assert steps[-2:] == [
        {
            "paso": "Acciones pagadas",
            "acciones": 40,
            "por_que": "Pagadas en el plazo; enajenadas a su nombre el 2018-03-20.",
        },
        {
            "paso": "Acciones no pagadas",
            "acciones": shares - 40,
            "por_que": "No se pagaron en el plazo: su adjudicación se resolvió, no se le "
            "entregan y vuelven a las acciones por vender.",
        },
    ]
    # The page no longer asks to pay by a deadline: it says what was paid and what was not.
    page = text(
        post(
            client,
            "/resultados",
            {
                "oferta": CODE,
                "radicado": person["radicado"],
                "tipo_identificacion": person["tipo_identificacion"],
                "numero_identificacion": person["numero_identificacion"],
            },
        )
    )
    assert "Plazo para pagar" not in page and "valor a pagar" not in page
    assert "$ 40.000 valor pagado" in page
    left = f"{shares - 40:,}".replace(",", ".")
    assert (
        "El periodo de pago terminó y se liquidó el 2018-03-20: 40 acciones pagadas y "
        f"{left} acciones no pagadas, que no se le entregan." in page
    )
    sqlite.dispose()
