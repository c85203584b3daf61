"""Payments, the sale of what was paid, and a fine case from an event (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import polars as pl
import pytest
import yaml
from sqlalchemy import Engine

from democratiza.adjudication.record import adjudicate, stored_adjudication
from democratiza.calendar import add_months
from democratiza.compliance.holdings import (
    paid_shares,
    record_event,
    record_payment,
    settle,
)
from democratiza.intake.batches import import_batch
from democratiza.offers.lifecycle import OfferError, advance, create_offer, load_offer
from democratiza.reports.exports import registry_file
from democratiza.rules.vocabulary import NATURAL_CATEGORIES

SAMPLE = Path(__file__).parents[1] / "examples/primera-etapa"
PARAMS = yaml.safe_load((SAMPLE / "oferta.yaml").read_text(encoding="utf-8"))
CODE = "central"
PRICE = 100_000  # $ 1.000 in centavos (oferta.yaml)


@pytest.fixture
def adjudicated(engine: Engine) -> pl.DataFrame:
    with engine.begin() as conn:
        stored = create_offer(conn, CODE, "central-seguros-vida", PARAMS, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "apertura")
    import_batch(engine, CODE, SAMPLE / "lote-1-casa-de-bolsa.csv", "Casa de Bolsa", "L1", "x")
    with engine.begin() as conn:
        advance(conn, load_offer(conn, CODE), "cerrada", "oficina", "cierre")
    results = adjudicate(engine, CODE, "bolsa", "adjudicación").results
    return results.filter(pl.col("adjudicada") >= 100).sort("radicado")


def test_unpaid_shares_are_resolved_and_only_paid_ones_registered(
    engine: Engine, adjudicated: pl.DataFrame, tmp_path: Path
) -> None:
    natural = adjudicated.filter(pl.col("categoria").is_in(sorted(NATURAL_CATEGORIES)))
    full, partial = natural.head(2).rows(named=True)
    record_payment(
        engine,
        CODE,
        full["radicado"],
        date(2018, 3, 10),
        full["adjudicada"] * PRICE,
        "contado",
        "scb",
    )
    # Pays for 40 shares and a half: only whole shares count.
    record_payment(
        engine,
        CODE,
        partial["radicado"],
        date(2018, 3, 12),
        40 * PRICE + PRICE // 2,
        "contado",
        "scb",
    )
    # Cesantías pay only for natural persons (Ley 226 art. 11.4).
    entity = adjudicated.filter(~pl.col("categoria").is_in(sorted(NATURAL_CATEGORIES))).row(
        0, named=True
    )
    with pytest.raises(OfferError, match="solo se admite a personas naturales"):
        record_payment(
            engine, CODE, entity["radicado"], date(2018, 3, 11), PRICE, "cesantias", "scb"
        )
    done = settle(engine, CODE, date(2018, 3, 20), "oficina")
    total_awarded = int(stored_adjudication(engine, CODE).results["adjudicada"].sum())
    assert done.paid_shares == full["adjudicada"] + 40
    assert done.resolved_shares == total_awarded - done.paid_shares
    with pytest.raises(OfferError, match="ya se liquidó"):
        settle(engine, CODE, date(2018, 3, 21), "oficina")
    with pytest.raises(OfferError, match="ya se liquidó"):
        record_payment(engine, CODE, full["radicado"], date(2018, 3, 22), PRICE, "contado", "x")
    with engine.connect() as conn:
        paid = paid_shares(conn, load_offer(conn, CODE))
    registry = pl.read_csv(
        registry_file(stored_adjudication(engine, CODE), tmp_path, paid), infer_schema=False
    )
    assert sorted(int(a) for a in registry["acciones"]) == sorted([full["adjudicada"], 40])


def test_an_event_within_the_bands_opens_a_fine_case(
    engine: Engine, adjudicated: pl.DataFrame
) -> None:
    full = adjudicated.filter(pl.col("categoria").is_in(sorted(NATURAL_CATEGORIES))).row(
        0, named=True
    )
    record_payment(
        engine,
        CODE,
        full["radicado"],
        date(2018, 3, 10),
        full["adjudicada"] * PRICE,
        "contado",
        "scb",
    )
    settle(engine, CODE, date(2018, 3, 20), "oficina")
    # Central counts from the adjudication (today in this test): 7 months later is in the 75 %
    # band; the consideration obtained, $ 1.500 per share, is above the price, so it is the base.
    day = add_months(date.today(), 7)
    case = record_event(
        engine,
        CODE,
        full["radicado"],
        "venta",
        day,
        100,
        150_000,
        "venta en bolsa reportada por el depósito",
        "oficina",
    )
    assert case.fine is not None
    assert case.band.percent == 75
    assert case.fine.centavos == 100 * 150_000 * 75 // 100
    with pytest.raises(OfferError, match="entre 1 y"):
        record_event(
            engine,
            CODE,
            full["radicado"],
            "venta",
            day,
            full["adjudicada"] + 1,
            None,
            "más de lo pagado",
            "oficina",
        )
    late = record_event(
        engine,
        CODE,
        full["radicado"],
        "dacion_en_pago",
        add_months(date.today(), 25),
        10,
        None,
        "dación en pago",
        "oficina",
    )
    assert late.fine is None and "ningún tramo" in late.band.reason
