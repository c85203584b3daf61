"""A Primera Etapa end to end, on SQLite and on PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
import yaml
from sqlalchemy import Engine, func, select

from democratiza.adjudication.record import adjudicate, publish, stored_adjudication
from democratiza.filing.batches import import_batch, withdraw
from democratiza.offers.lifecycle import OfferError, advance, create_offer, events, load_offer
from democratiza.storage.schema import acceptances, batches
from democratiza.tables.errors import InputRejected

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


def large_batch(tmp_path: Path, name: str, references: list[str], quantity: int) -> Path:
    """The sample's rows repeated under the given references (all of them the same broker)."""
    sample = pl.read_csv(SAMPLE / "lote-1-casa-de-bolsa.csv", infer_schema=False)
    rows = pl.concat([sample] * (len(references) // sample.height + 1)).head(len(references))
    rows = rows.with_columns(
        pl.Series("referencia", references), pl.lit(str(quantity)).alias("cantidad")
    )
    path = tmp_path / f"{name}.csv"
    rows.write_csv(path)
    return path


def test_a_later_large_batch_corrects_exactly_the_acceptances_it_names(
    engine: Engine, tmp_path: Path
) -> None:
    open_offer(engine)
    first_refs = [f"G-{i:05d}" for i in range(1, 1_201)]
    first = import_batch(
        engine, CODE, large_batch(tmp_path, "l1", first_refs, 100), "Casa de Bolsa", "L1", "scb"
    )
    # 500 of the first batch's references again (corrections) and 700 new ones.
    second_refs = first_refs[700:] + [f"G-{i:05d}" for i in range(2_001, 2_701)]
    second = import_batch(
        engine, CODE, large_batch(tmp_path, "l2", second_refs, 50), "Casa de Bolsa", "L2", "scb"
    )
    assert first.rows == second.rows == 1_200

    # A correction keeps the radicado its reference got in the first batch.
    radicados = dict(zip(first.decisions["referencia"], first.decisions["radicado"], strict=True))
    corrected = second.decisions.filter(pl.col("referencia").is_in(first_refs[700:]))
    assert corrected.height == 500
    assert corrected["radicado"].to_list() == [radicados[r] for r in corrected["referencia"]]
    new = second.decisions.filter(~pl.col("referencia").is_in(first_refs))
    assert new.height == 700 and not set(new["radicado"]) & set(radicados.values())

    with engine.connect() as conn:
        stored = pl.DataFrame(
            conn.execute(
                select(
                    acceptances.c.referencia,
                    acceptances.c.version,
                    acceptances.c.estado,
                    acceptances.c.vigente,
                    acceptances.c.cantidad,
                )
            )
            .mappings()
            .all()
        )
    current = stored.filter(pl.col("vigente"))
    assert current.height == 1_900  # 700 untouched, 500 corrected, 700 new
    assert current["referencia"].is_unique().all()
    versions = stored.filter(pl.col("referencia") == "G-00701").sort("version")
    assert versions.rows() == [
        ("G-00701", 1, "radicada", False, 100),
        ("G-00701", 2, "corregida", True, 50),
    ]
    untouched = stored.filter(pl.col("referencia") == "G-00700")
    assert untouched.rows() == [("G-00700", 1, "radicada", True, 100)]
