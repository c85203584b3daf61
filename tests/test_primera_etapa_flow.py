"""A Primera Etapa end to end, on SQLite and on PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
import yaml
from sqlalchemy import Engine, func, select

from democratiza.adjudication.record import adjudicate, publish, stored_adjudication
from democratiza.intake.batches import import_batch, withdraw
from democratiza.intake.errors import InputRejected
from democratiza.offers.lifecycle import OfferError, advance, create_offer, events, load_offer
from democratiza.storage.schema import acceptances, batches

SAMPLE = Path(__file__).parents[1] / "examples/primera-etapa"
PARAMS: dict[str, object] = yaml.safe_load((SAMPLE / "oferta.yaml").read_text(encoding="utf-8"))
CODE = "central-primera-fase"


def open_offer(engine: Engine) -> None:
    with engine.begin() as conn:
        stored = create_offer(conn, CODE, "central-seguros-vida", PARAMS, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "inicio del plazo")


def count(engine: Engine, table: object) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(table)).scalar_one())  # type: ignore[arg-type]


def test_a_window_shorter_than_two_months_is_refused(engine: Engine) -> None:
    short = {**PARAMS, "fecha_cierre": "2018-02-25"}
    with engine.begin() as conn, pytest.raises(OfferError, match="2018-02-26 o después"):
        create_offer(conn, CODE, "central-seguros-vida", short, "oficina", "aviso")


def test_batch_all_or_nothing_idempotent_and_adjudicated(engine: Engine) -> None:
    open_offer(engine)
    first = import_batch(
        engine, CODE, SAMPLE / "lote-1-casa-de-bolsa.csv", "Casa de Bolsa", "L1", "scb"
    )
    assert first.created and first.rows == count(engine, acceptances)
    again = import_batch(
        engine, CODE, SAMPLE / "lote-1-casa-de-bolsa.csv", "Casa de Bolsa", "L1", "scb"
    )
    assert not again.created
    assert "no se creó nada nuevo" in again.message
    assert count(engine, acceptances) == first.rows and count(engine, batches) == 1

    with pytest.raises(InputRejected) as bad:
        import_batch(
            engine,
            CODE,
            SAMPLE / "lote-4-credicorp-capital-con-errores.csv",
            "Credicorp Capital",
            "L1",
            "ccc",
        )
    assert {(e.row, e.column) for e in bad.value.errors} == {
        (5, "categoria"),
        (9, "patrimonio_liquido"),
        (13, "cantidad"),
    }
    assert count(engine, batches) == 1

    for name, broker in [
        ("lote-2-acciones-y-valores.csv", "Acciones y Valores"),
        ("lote-3-valores-bancolombia.csv", "Valores Bancolombia"),
        ("lote-4-credicorp-capital.csv", "Credicorp Capital"),
    ]:
        assert import_batch(engine, CODE, SAMPLE / name, broker, "L1", "scb").created
    radicado = first.decisions["radicado"][0]
    withdraw(engine, CODE, radicado, "scb", "el aceptante desistió")

    with engine.begin() as conn:
        advance(conn, load_offer(conn, CODE), "cerrada", "oficina", "vencimiento del plazo")
    with pytest.raises(OfferError, match="mientras la oferta está abierta"):
        withdraw(engine, CODE, first.decisions["radicado"][1], "scb", "tarde")

    done = adjudicate(engine, CODE, "bolsa", "adjudicación")
    results = done.results
    assert done.header["sobredemanda"] is True
    assert results["adjudicada"].sum() == PARAMS["acciones_ofrecidas"]
    assert (results["adjudicada"] <= results["cantidad_persona"]).all()
    assert results.filter(pl.col("radicado") == radicado)["adjudicada"].to_list() == [0]
    # The stored record recomputes to byte-identical results.
    again_done = stored_adjudication(engine, CODE)
    assert again_done.results.equals(results)
    assert again_done.header["huella_resultado"] == done.header["huella_resultado"]
    publish(engine, CODE, "oficina", "publicación de resultados")
    with engine.connect() as conn:
        states = [e["a_estado"] for e in events(conn, load_offer(conn, CODE))]
    assert states == ["borrador", "abierta", "cerrada", "adjudicada", "publicada"]


def test_person_limits_count_across_brokers(engine: Engine) -> None:
    open_offer(engine)
    for name, broker in [
        ("lote-1-casa-de-bolsa.csv", "Casa de Bolsa"),
        ("lote-2-acciones-y-valores.csv", "Acciones y Valores"),
    ]:
        import_batch(engine, CODE, SAMPLE / name, broker, "L1", "scb")
    with engine.begin() as conn:
        advance(conn, load_offer(conn, CODE), "cerrada", "oficina", "cierre")
    results = adjudicate(engine, CODE, "bolsa", "adjudicación").results
    twice = results.filter(pl.col("numero_identificacion").is_duplicated())
    assert twice.height > 0
    assert (twice["cantidad_persona"] <= twice["cantidad_permitida"]).all()
