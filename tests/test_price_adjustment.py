"""The adjusted price after an interruption (Ley 226 de 1995 art. 11 num. 2; GEB art. 6.3
and its parágrafo), on Central's sample offer at $ 1.000 per share.

The office interrupts the offer and adjusts the price to $ 1.250 with its legal basis; it
also decides, with its basis, what happens to the acceptances already filed (our texts do
not say). Every acceptance records the price it was evaluated at and will pay: its limits in
shares, the payments that settle it and a fine on its shares use that price.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path

import polars as pl
import pytest
import yaml
from sqlalchemy import Engine, select

from democratiza.adjudication.record import acceptance_prices, adjudicate, stored_adjudication
from democratiza.compliance.holdings import record_event, settle
from democratiza.compliance.payment_batches import record_payment
from democratiza.filing.batches import import_batch
from democratiza.filing.reevaluation import interrupt
from democratiza.offers.lifecycle import OfferError, advance, create_offer, load_offer
from democratiza.offers.prices import AdjustmentRequest
from democratiza.reports.adjudication_figures import build_figures, report_input
from democratiza.rules.engine import CompiledProgram
from democratiza.stages.lifecycle import create_stage
from democratiza.stages.terms import StageTerms
from democratiza.storage.schema import acceptances, sales
from democratiza.tables.acceptances import ACCEPTANCES
from democratiza.tables.parse import parse
from democratiza.tables.readers import read_table

SAMPLE = Path(__file__).parents[1] / "examples/primera-etapa"
CODE = "central"
FIRST = SAMPLE / "lote-1-casa-de-bolsa.csv"
SECOND = SAMPLE / "lote-2-acciones-y-valores.csv"
BASIS = "Ley 226 de 1995 art. 11 num. 2; interrupción por decisión de la oficina"
KEEP = AdjustmentRequest(
    "1.250", BASIS, "conservan", "se evaluaron y respondieron con el precio del aviso"
)


def open_offer(engine: Engine) -> None:
    params = yaml.safe_load((SAMPLE / "oferta.yaml").read_text(encoding="utf-8"))
    with engine.begin() as conn:
        stored = create_offer(conn, CODE, "central-seguros-vida", params, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "apertura")


def adjust(engine: Engine, asked: AdjustmentRequest) -> int:
    with engine.begin() as conn:
        _, again = interrupt(conn, load_offer(conn, CODE), "oficina", "interrupción", asked)
    return again


def stored_rows(engine: Engine) -> pl.DataFrame:
    a = acceptances.c
    with engine.connect() as conn:
        rows = conn.execute(
            select(
                a.radicado, a.comisionista, a.referencia, a.estado, a.precio, a.cantidad_permitida
            )
            .where(a.oferta_id == 1, a.vigente)
            .order_by(a.radicado)
        ).all()
    return pl.DataFrame(
        [tuple(r) for r in rows],
        orient="row",
        schema=["radicado", "comisionista", "referencia", "estado", "precio", "cantidad_permitida"],
    )


def permitted_at(engine: Engine, path: Path, price: int) -> dict[str, int]:
    """What the engine allows each row of ``path`` at ``price`` (centavos), by reference."""
    with engine.connect() as conn:
        stored = load_offer(conn, CODE)
    offer = replace(stored.offer, values={**stored.offer.values, "precio": price})
    frame = parse(read_table(path), ACCEPTANCES)
    results = CompiledProgram(offer).evaluate(frame)
    return dict(zip(frame["referencia"], results["cantidad_permitida"], strict=True))


def test_ley_226_art_11_num_2_the_adjusted_price_limits_pays_and_fines(engine: Engine) -> None:
    open_offer(engine)
    import_batch(engine, CODE, FIRST, "Casa de Bolsa", "L1", "scb")
    assert adjust(engine, KEEP) == 0
    import_batch(engine, CODE, SECOND, "Acciones y Valores", "L1", "ayv")

    rows = stored_rows(engine)
    first = rows.filter(pl.col("comisionista") == "Casa de Bolsa")
    second = rows.filter(pl.col("comisionista") == "Acciones y Valores")
    # Filed before: kept at $ 1.000, as the office decided; after: at $ 1.250.
    assert set(first["precio"]) == {100_000} and set(first["estado"]) == {"radicada"}
    assert set(second["precio"]) == {125_000}
    # The limits in shares are the amounts over the price the acceptance was evaluated at.
    at_new = permitted_at(engine, SECOND, 125_000)
    at_old = permitted_at(engine, SECOND, 100_000)
    assert dict(zip(second["referencia"], second["cantidad_permitida"], strict=True)) == at_new
    assert at_new != at_old

    with engine.begin() as conn:
        advance(conn, load_offer(conn, CODE), "cerrada", "oficina", "cierre")
    results = adjudicate(engine, CODE, "bolsa", "adjudicación", date(2018, 3, 1)).results
    awarded = results.filter(pl.col("adjudicada") > 0).join(
        rows.select("radicado", "precio"), on="radicado"
    )
    # The report counts the value awarded at each acceptance's own price, and says the
    # adjusted price with its date and basis.
    with engine.connect() as conn:
        stored = load_offer(conn, CODE)
        prices = acceptance_prices(conn, stored)
    report = report_input(stored, stored_adjudication(engine, CODE), prices)
    value = int(awarded.select(pl.col("adjudicada") * pl.col("precio")).sum().item())
    assert build_figures(report).valor_adjudicado_centavos == value
    assert value != int(awarded["adjudicada"].sum()) * 100_000
    assert report.ajustes_precio[0].startswith("$ 1.250 desde el ")
    before = awarded.filter(pl.col("precio") == 100_000).row(0, named=True)
    after = awarded.filter(pl.col("precio") == 125_000).row(0, named=True)
    # Each pays its shares at its own price; $ 1.000 a share would leave the later one short.
    record_payment(
        engine,
        CODE,
        before["radicado"],
        date(2018, 3, 10),
        before["adjudicada"] * 100_000,
        "contado",
        "scb",
    )
    record_payment(
        engine,
        CODE,
        after["radicado"],
        date(2018, 3, 10),
        after["adjudicada"] * 100_000,
        "contado",
        "ayv",
    )
    settle(engine, CODE, date(2018, 3, 20), "oficina")
    with engine.connect() as conn:
        sold = dict(
            conn.execute(
                select(acceptances.c.radicado, sales.c.acciones_pagadas).join(
                    sales, sales.c.aceptacion_id == acceptances.c.id
                )
            ).all()
        )
    assert sold[before["radicado"]] == before["adjudicada"]
    assert sold[after["radicado"]] == after["adjudicada"] * 100_000 // 125_000

    # The Segunda Fase's minimum is never below the Primera's price as it ended (Ley 226
    # art. 10): the adjusted one.
    terms = StageTerms.model_validate(
        {
            "mecanismo": "subasta_holandesa",
            "fecha_aviso": date(2018, 4, 2),
            "fecha_apertura": date(2018, 4, 3),
            "fecha_cierre": date(2018, 4, 16),
            "orden_minima": 5_000,
            "lote": 100,
            "fuente": "Reglamento de la Segunda Fase (ilustrativo)",
        }
    )
    with engine.begin() as conn:
        assert create_stage(conn, "segunda", CODE, terms, "oficina", "aviso").minimum_price == (
            125_000
        )

    # A sale soon after the adjudication: the base is the greater of the acquisition price
    # ($ 1.250, the adjusted one) and the consideration ($ 1.100), 100 % band.
    case = record_event(
        engine,
        CODE,
        after["radicado"],
        "venta",
        date(2018, 4, 10),
        10,
        110_000,
        "venta en bolsa",
        "depósito",
    )
    assert case.fine is not None
    assert case.fine.explain() == (
        "10 acciones × $ 1.250 (precio de adquisición por acción) × 100 % = $ 12.500"
    )


def test_the_office_may_evaluate_the_earlier_filings_again_at_the_adjusted_price(
    engine: Engine,
) -> None:
    open_offer(engine)
    import_batch(engine, CODE, FIRST, "Casa de Bolsa", "L1", "scb")
    again = AdjustmentRequest(
        "1.250", BASIS, "reevaluadas", "el aviso de interrupción lo anunció a los aceptantes"
    )
    assert adjust(engine, again) == 750
    rows = stored_rows(engine)
    assert set(rows["precio"]) == {125_000} and set(rows["estado"]) == {"reevaluada"}
    assert dict(zip(rows["referencia"], rows["cantidad_permitida"], strict=True)) == (
        permitted_at(engine, FIRST, 125_000)
    )
    # Each new version names the rule of its smallest limit at the new price, as intake would.
    with engine.connect() as conn:
        stored = load_offer(conn, CODE)
        a = acceptances.c
        kept = dict(
            conn.execute(
                select(a.referencia, a.regla_limite).where(a.oferta_id == 1, a.vigente)
            ).all()
        )
    frame = parse(read_table(FIRST), ACCEPTANCES)
    at_new = CompiledProgram(stored.offer_at(125_000)).evaluate(frame)
    assert kept == dict(zip(frame["referencia"], at_new["regla_limite"], strict=True))


def test_an_adjustment_needs_its_basis_and_the_choice_on_earlier_filings(
    engine: Engine,
) -> None:
    open_offer(engine)
    with pytest.raises(OfferError) as refused:
        adjust(
            engine, AdjustmentRequest("1.250", None, None, None, date.today() + timedelta(days=1))
        )
    assert str(refused.value).splitlines() == [
        "Un ajuste del precio debe citar su fundamento legal (--fundamento).",
        "Diga qué pasa con las aceptaciones radicadas antes del ajuste (--aceptaciones-anteriores "
        "conservan o reevaluadas): los textos disponibles de la norma no lo dicen.",
        "La decisión sobre las aceptaciones anteriores debe decir su fundamento "
        "(--fundamento-anteriores).",
        f"El ajuste rige desde el día en que se registra o antes; "
        f"{date.today() + timedelta(days=1):%Y-%m-%d} es posterior a hoy.",
    ]
    with engine.connect() as conn:
        assert load_offer(conn, CODE).adjustments == ()
