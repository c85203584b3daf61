"""Every headline figure of an offer is the same wherever it is read: `oferta ver`, the
office's page, the API's figures, the adjudication report and the public package.

A worked example: the sample batches of two brokers, one acceptance withdrawn by its
broker, the offer closed and adjudicated. A withdrawn acceptance is counted as withdrawn
(never as rejected) everywhere; the decisions at filing and in the adjudication (after the
person's other filings) differ, and each place's title says which one it shows.
"""

from __future__ import annotations

import csv
import io
from types import SimpleNamespace

from sqlalchemy import Engine, select
from typer.testing import CliRunner

from democratiza.adjudication.figures import (
    TITLES,
    award_figures,
    awarded_in_database,
    filing_figures,
    with_withdrawn,
    withdrawn,
)
from democratiza.adjudication.record import adjudicate, current_acceptances
from democratiza.cli.main import app
from democratiza.filing.batches import withdraw
from democratiza.offers.lifecycle import load_offer
from democratiza.reports.adjudication_figures import build_figures, report_input
from democratiza.reports.adjudication_report import render_html
from democratiza.storage.schema import acceptances
from democratiza.verification.package import first_stage_package
from democratiza.verification.pseudonyms import pseudonyms
from democratiza.web.api.offer_figures import offer_figures
from democratiza.web.pages.dashboard import binding_limits, headline
from tests.test_web_support import BROKER_A, CODE, file_samples, move, open_offer


def first_rejected_and_accepted(engine: Engine) -> tuple[str, str]:
    with engine.connect() as conn:
        rows = conn.execute(
            select(acceptances.c.radicado, acceptances.c.decision)
            .where(acceptances.c.comisionista == BROKER_A, acceptances.c.vigente)
            .order_by(acceptances.c.recepcion)
        ).all()
    rejected = next(r for r, d in rows if d == "rechazada")
    accepted = next(r for r, d in rows if d == "aceptada")
    return rejected, accepted


def test_every_headline_figure_agrees_in_every_place(engine: Engine, db_url: str) -> None:
    open_offer(engine)
    file_samples(engine)
    rejected, accepted = first_rejected_and_accepted(engine)
    withdraw(engine, CODE, accepted, "scb", "el aceptante desistió")

    with engine.connect() as conn:
        stored = load_offer(conn, CODE)
        filed = filing_figures(conn, stored)
        seen = offer_figures(SimpleNamespace(engine=engine), conn, stored)
    # Received counts the withdrawn one; current does not; it is not a rejection.
    assert filed.recibidas == 1_500 and filed.retiradas == 1 and filed.vigentes == 1_499
    assert filed.aceptadas + filed.reducidas + filed.rechazadas == filed.vigentes
    assert seen.filing == filed
    by_decision = {r["clave"]: r["aceptaciones"] for r in seen.intake["por_decision"]}
    assert by_decision == {
        "aceptada": filed.aceptadas,
        "reducida": filed.reducidas,
        "rechazada": filed.rechazadas,
        "retirada": 1,
    }
    bars = {r["clave"]: r["aceptaciones"] for r in seen.intake["por_limite"]}
    assert {k: v for k, v in bars.items() if k != "ninguno"} == dict(filed.limites)
    assert rejected  # a rejection at filing stays one

    move(engine, "cerrada")
    done = adjudicate(engine, CODE, "bolsa", "adjudicación")
    with engine.connect() as conn:
        stored = load_offer(conn, CODE)
        gone = withdrawn(conn, stored)
        in_database = awarded_in_database(conn, stored)
        seen = offer_figures(SimpleNamespace(engine=engine), conn, stored)
        current = current_acceptances(conn, stored)
    awarded = award_figures(with_withdrawn(done.results, gone))
    assert gone["radicado"].to_list() == [accepted]
    assert awarded.retiradas == 1
    assert awarded.aceptadas + awarded.reducidas + awarded.rechazadas == filed.vigentes
    assert awarded.rechazadas == filed.rechazadas  # the person's other filings reject none
    assert awarded.reducidas >= filed.reducidas  # …but they reduce some more
    assert in_database == (awarded.adjudicadas, awarded.adjudicatarios) == seen.awarded

    # The office's page (and its API): the same numbers, each under the title that says which.
    tiles = {f.name: f.value for f in headline(stored, seen)}
    assert tiles[TITLES["recibidas"]] == "1.500"
    assert tiles[TITLES["vigentes"]] == "1.499"
    assert tiles[TITLES["retiradas"]] == "1"
    assert tiles[TITLES["reducidas_al_radicar"]] == f"{filed.reducidas:,}".replace(",", ".")
    assert tiles[TITLES["rechazadas_al_radicar"]] == f"{filed.rechazadas:,}".replace(",", ".")
    assert tiles[TITLES["adjudicadas"]] == f"{awarded.adjudicadas:,}".replace(",", ".")
    assert len(binding_limits(stored, seen.filing)) == len(filed.limites)

    # The report: the adjudication's decisions, the withdrawn one apart.
    inp = report_input(stored, done, None, gone)
    report = build_figures(inp)
    assert report.aceptaciones == filed.recibidas
    assert (report.aceptadas, report.reducidas, report.rechazadas, report.retiradas) == (
        awarded.aceptadas,
        awarded.reducidas,
        awarded.rechazadas,
        awarded.retiradas,
    )
    assert {r.regla: r.aceptaciones for r in report.limites} == dict(awarded.limites)
    assert (report.acciones_adjudicadas, report.nuevos_accionistas) == in_database
    assert report.acciones_solicitadas - filed.solicitadas == int(
        current.filter(current["estado"] == "retirada")["cantidad"].sum()
    )  # the report's demand is of every acceptance received
    html = render_html(inp, report)
    assert "en la adjudicación (con las otras radicaciones de la persona)" in html
    assert "Aceptaciones retiradas por su comisionista" in html

    # The public package: the same shares awarded, row by row.
    package = first_stage_package(stored, done, pseudonyms(b"clave", done.results))
    rows = list(csv.DictReader(io.StringIO(package.files["adjudicacion.csv"].decode())))
    assert sum(int(r["adjudicada"]) for r in rows) == awarded.adjudicadas
    assert len(rows) == filed.recibidas

    # `oferta ver`: the same figures, under the same titles.
    shown = CliRunner().invoke(app, ["oferta", "ver", CODE, "--db", db_url])
    assert shown.exit_code == 0, shown.output
    for key, value in [
        ("recibidas", filed.recibidas),
        ("retiradas", 1),
        ("vigentes", filed.vigentes),
        ("reducidas_al_radicar", filed.reducidas),
        ("rechazadas_al_radicar", filed.rechazadas),
        ("adjudicadas", awarded.adjudicadas),
        ("adjudicatarios", awarded.adjudicatarios),
    ]:
        line = f"{TITLES[key][:1].upper()}{TITLES[key][1:]}: {value:,}".replace(",", ".")
        assert line in shown.output, (line, shown.output)
    assert TITLES["limites_al_radicar"] in shown.output
