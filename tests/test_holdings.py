"""Payments, the sale of what was paid, and a fine case from an event (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import polars as pl
import pytest
import yaml
from sqlalchemy import Engine
from typer.testing import CliRunner

from democratiza.adjudication.record import adjudicate, stored_adjudication
from democratiza.calendar import add_months
from democratiza.cli.main import app
from democratiza.compliance.holdings import (
    flag_ineffective,
    holding_view,
    paid_shares,
    record_event,
    settle,
)
from democratiza.compliance.payment_batches import record_payment
from democratiza.filing.batches import import_batch
from democratiza.money import group
from democratiza.offers.lifecycle import OfferError, advance, create_offer, load_offer
from democratiza.reports.exports import registry_file
from democratiza.storage import audit
from democratiza.vocabulary import NATURAL_CATEGORIES
from tests.storage_support import ADJUDICATED, adjudicate_sample

CODE = "central"
PRICE = 100_000  # $ 1.000 in centavos (oferta.yaml)
EXAMPLES = Path(__file__).parents[1] / "examples"
GEB_PARAMS = yaml.safe_load((EXAMPLES / "oferta-geb-2017.yaml").read_text(encoding="utf-8"))


@pytest.fixture
def adjudicated(engine: Engine) -> pl.DataFrame:
    return adjudicate_sample(engine, CODE).filter(pl.col("adjudicada") >= 100)


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
    # Central counts from the adjudication's business date: 7 months later is in the 75 %
    # band; the consideration obtained, $ 1.500 per share, is above the price, so it is the base.
    day = add_months(ADJUDICATED, 7)
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
        add_months(ADJUDICATED, 25),
        10,
        None,
        "dación en pago",
        "oficina",
    )
    assert late.fine is None and "ningún tramo" in late.band.reason


# --- ineffective acquisitions (Ley 226 art. 14 inciso 2) ----------------------------------


def pay_and_settle(engine: Engine, adjudicated: pl.DataFrame) -> tuple[str, int, str]:
    """Two natural persons pay in full; returns (flagged-to-be radicado, its shares, other)."""
    natural = adjudicated.filter(pl.col("categoria").is_in(sorted(NATURAL_CATEGORIES)))
    first, second = natural.head(2).rows(named=True)
    for award in (first, second):
        record_payment(
            engine,
            CODE,
            award["radicado"],
            date(2018, 3, 10),
            award["adjudicada"] * PRICE,
            "contado",
            "scb",
        )
    return first["radicado"], first["adjudicada"], second["radicado"]


def test_an_ineffective_acquisition_leaves_the_registry(
    engine: Engine, adjudicated: pl.DataFrame, tmp_path: Path
) -> None:
    radicado, shares, other = pay_and_settle(engine, adjudicated)
    # Before the sale there is no acquisition to declare ineffective.
    with pytest.raises(OfferError, match=r"no se ha liquidado.*\(Ley 226/1995 art\. 14 inciso 2\)"):
        flag_ineffective(engine, CODE, radicado, date(2018, 3, 25), "testaferro", "oficina")
    settle(engine, CODE, date(2018, 3, 20), "oficina")
    with pytest.raises(OfferError, match=r"no tiene acciones adjudicadas.*art\. 14 inciso 2"):
        flag_ineffective(engine, CODE, "NO-EXISTE", date(2018, 4, 1), "testaferro", "oficina")
    unpaid = adjudicated.filter(~pl.col("radicado").is_in([radicado, other])).row(0, named=True)
    with pytest.raises(OfferError, match=r"no pagó ninguna y su venta se resolvió.*art\. 14"):
        flag_ineffective(
            engine, CODE, unpaid["radicado"], date(2018, 4, 1), "testaferro", "oficina"
        )
    with pytest.raises(OfferError, match=r"anterior a la venta del 2018-03-20.*art\. 14"):
        flag_ineffective(engine, CODE, radicado, date(2018, 3, 19), "testaferro", "oficina")
    with pytest.raises(OfferError, match=r"Diga el motivo.*art\. 14"):
        flag_ineffective(engine, CODE, radicado, date(2018, 4, 1), "  ", "oficina")

    done = flag_ineffective(
        engine,
        CODE,
        radicado,
        date(2019, 6, 3),
        "compró por cuenta de un tercero (informe de la SFC)",
        "oficina",
    )
    assert (done.shares, done.sale_date, done.citation) == (
        shares,
        date(2018, 3, 20),
        "Ley 226/1995 art. 14 inciso 2",  # Central's text does not repeat it: the law only
    )
    assert "es ineficaz desde el 2019-06-03" in done.explain()
    with pytest.raises(OfferError, match="ya fue declarada ineficaz el 2019-06-03 por oficina"):
        flag_ineffective(engine, CODE, radicado, date(2019, 7, 1), "otra vez", "otra oficina")
    with engine.connect() as conn:
        latest = audit.entries(conn, limit=1)[0]  # the refused flag left no entry
    assert (latest["accion"], latest["entidad"], latest["quien"]) == (
        "tenencia.ineficacia",
        f"eventos_tenencia/{done.event_id}",
        "oficina",
    )

    with engine.connect() as conn:
        paid = paid_shares(conn, load_offer(conn, CODE))
    by_radicado = dict(zip(paid["radicado"], paid["acciones_pagadas"], strict=True))
    assert by_radicado[radicado] == 0
    other_shares = int(adjudicated.filter(pl.col("radicado") == other)["adjudicada"].item())
    assert by_radicado[other] == other_shares
    registry = pl.read_csv(
        registry_file(stored_adjudication(engine, CODE), tmp_path, paid), infer_schema=False
    )
    assert [int(a) for a in registry["acciones"]] == [other_shares]

    view = holding_view(engine, CODE, radicado)
    assert view.ineffective is not None and view.ineffective.day == date(2019, 6, 3)
    assert (view.paid, view.registered) == (shares, 0)
    assert holding_view(engine, CODE, other).registered == other_shares


def test_geb_cites_its_own_articles_and_the_cli_shows_the_flag(
    engine: Engine, db_url: str, tmp_path: Path
) -> None:
    batch = tmp_path / "casa-de-bolsa.csv"
    pl.read_csv(EXAMPLES / "aceptaciones-geb-2017.csv", infer_schema=False).filter(
        pl.col("comisionista") == "Casa de Bolsa"
    ).write_csv(batch)
    with engine.begin() as conn:
        stored = create_offer(conn, "geb", "geb-2017", GEB_PARAMS, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "apertura")
    import_batch(engine, "geb", batch, "Casa de Bolsa", "L1", "x")
    with engine.begin() as conn:
        advance(conn, load_offer(conn, "geb"), "cerrada", "oficina", "cierre")
    results = adjudicate(engine, "geb", "bolsa", "adjudicación", date(2018, 3, 1)).results
    award = results.filter(pl.col("adjudicada") > 0).sort("radicado").row(0, named=True)
    with engine.connect() as conn:
        price = load_offer(conn, "geb").offer.price_centavos
    record_payment(
        engine,
        "geb",
        award["radicado"],
        date(2018, 3, 10),
        award["adjudicada"] * price,
        "contado",
        "scb",
    )
    settle(engine, "geb", date(2018, 4, 2), "oficina")

    def run(*args: str) -> tuple[int, str]:
        result = CliRunner().invoke(
            app, ["tenencia", *args, "--db", db_url], env={"COLUMNS": "300"}
        )
        return result.exit_code, result.output

    code, out = run(
        "ineficaz",
        "geb",
        award["radicado"],
        "--fecha",
        "2018-09-14",
        "--motivo",
        "el beneficiario real es otra persona",
    )
    assert code == 0, out
    citation = "Ley 226/1995 art. 14 inciso 2; Decreto 706/2017 arts. 8.2.6, 9.4 y 11.4"
    assert "es ineficaz desde el 2018-09-14, por contravenir" in out and citation in out
    code, out = run("ineficaz", "geb", award["radicado"], "--fecha", "2018-09-15", "--motivo", "x")
    assert code == 1 and "ya fue declarada ineficaz el 2018-09-14" in out and citation in out
    code, out = run("ver", "geb", award["radicado"])
    assert code == 0, out
    assert (
        f"2018-09-14  adquisición ineficaz: {group(award['adjudicada'])} acciones; "
        "el beneficiario real es otra persona (registró: oficina del programa)"
    ) in out
    assert f"ADQUISICIÓN INEFICAZ desde el 2018-09-14 ({citation})" in out
    assert "Acciones en el registro para el depósito: 0." in out


def test_a_program_file_without_the_ineffectiveness_citation_cannot_flag_one() -> None:
    from democratiza.compliance.holdings import ineffectiveness_citation
    from democratiza.programs.loader import load_program

    bare = load_program("ebsa").model_copy(update={"ineffectiveness": ()})
    refusal = (
        "no define la ineficacia de una adquisición: no se puede declarar ineficaz una "
        "adquisición sin su cita."
    )
    with pytest.raises(OfferError, match=refusal):
        ineffectiveness_citation(bare)
    assert ineffectiveness_citation(load_program("ebsa")) == "Ley 226/1995 art. 14 inciso 2"
