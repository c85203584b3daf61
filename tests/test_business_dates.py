"""Dates that carry legal effect are business dates the office gives, not the machine's clock
(issue 16, 2.6): aviso < apertura < cierre <= adjudicación <= publicación <= plazo de pago,
and adjudicación <= enajenación.

Central's sample offer: aviso 2017-12-22, cierre 2018-02-26. Central counts its fine bands
from the adjudication (inciso «El incumplimiento…», tramos): from its business date, never
from the day the adjudication happened to be recorded.
"""

from __future__ import annotations

from datetime import date, timedelta

import polars as pl
import pytest
import yaml
from sqlalchemy import Engine, select

from democratiza.adjudication.record import adjudicate, publish
from democratiza.calendar import add_months
from democratiza.compliance.holdings import record_event, settle
from democratiza.compliance.payment_batches import record_payment
from democratiza.filing.batches import import_batch
from democratiza.offers.lifecycle import OfferError, advance, create_offer, load_offer
from democratiza.storage.schema import offers
from tests.storage_support import SAMPLE, adjudicate_sample

CODE = "central"
TOMORROW = date.today() + timedelta(days=1)


def closed_offer(engine: Engine) -> None:
    """Central's sample with Casa de Bolsa's batch, closed."""
    params = yaml.safe_load((SAMPLE / "oferta.yaml").read_text(encoding="utf-8"))
    with engine.begin() as conn:
        stored = create_offer(conn, CODE, "central-seguros-vida", params, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "apertura")
    import_batch(engine, CODE, SAMPLE / "lote-1-casa-de-bolsa.csv", "Casa de Bolsa", "L1", "x")
    with engine.begin() as conn:
        advance(conn, load_offer(conn, CODE), "cerrada", "oficina", "cierre")


def test_the_adjudication_is_not_dated_before_the_close_nor_after_today(engine: Engine) -> None:
    closed_offer(engine)
    with pytest.raises(OfferError) as early:
        adjudicate(engine, CODE, "bolsa", "adjudicación", date(2018, 2, 25))
    assert str(early.value) == (
        "La fecha de adjudicación (2018-02-25) no puede ser anterior a la fecha de cierre "
        "(2018-02-26)."
    )
    with pytest.raises(OfferError, match="es posterior a hoy"):
        adjudicate(engine, CODE, "bolsa", "adjudicación", TOMORROW)
    adjudicate(engine, CODE, "bolsa", "adjudicación", date(2018, 2, 26))  # the close's own day
    with engine.connect() as conn:
        kept = conn.execute(select(offers.c.fecha_adjudicacion)).scalar_one()
    assert kept == date(2018, 2, 26)


def test_publication_and_payment_deadline_follow_the_adjudication(engine: Engine) -> None:
    adjudicate_sample(engine, CODE)  # adjudicated on 2018-03-01
    with pytest.raises(OfferError, match=r"publicación \(2018-02-28\) no puede ser anterior"):
        publish(engine, CODE, "oficina", "resultados", date(2018, 2, 28))
    with pytest.raises(OfferError, match=r"plazo de pago \(2018-03-01\) no puede vencer antes"):
        publish(engine, CODE, "oficina", "resultados", date(2018, 3, 2), date(2018, 3, 1))
    publish(engine, CODE, "oficina", "resultados", date(2018, 3, 2), date(2018, 3, 16))
    with engine.connect() as conn:
        row = conn.execute(select(offers.c.fecha_publicacion, offers.c.fecha_limite_pago)).one()
        assert load_offer(conn, CODE).state == "publicada"
    assert tuple(row) == (date(2018, 3, 2), date(2018, 3, 16))


def test_central_fine_bands_count_from_the_adjudications_business_date(engine: Engine) -> None:
    awarded = adjudicate_sample(engine, CODE).filter(pl.col("adjudicada") > 0).row(0, named=True)
    with pytest.raises(OfferError, match=r"enajenación \(2018-02-28\) no puede ser anterior"):
        settle(engine, CODE, date(2018, 2, 28), "oficina")
    record_payment(
        engine,
        CODE,
        awarded["radicado"],
        date(2018, 3, 10),
        awarded["adjudicada"] * 100_000,
        "contado",
        "scb",
    )
    settle(engine, CODE, date(2018, 3, 20), "oficina")
    # Seven months after 2018-03-01: the 75 % band, though the adjudication was recorded today.
    case = record_event(
        engine,
        CODE,
        awarded["radicado"],
        "venta",
        add_months(date(2018, 3, 1), 7),
        1,
        None,
        "venta en bolsa",
        "depósito",
    )
    assert case.band.percent == 75
    assert case.band.reference == date(2018, 3, 1)
