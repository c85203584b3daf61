"""The order of receipt is the system's: a broker's declared time is kept, never obeyed.

Ley 226 leaves the order among filings to the program; a broker's clock cannot decide it.
Which filing of a person consumes their limit first (and who gets a left-over lot) follows
the radicado, the order in which the system received the filings.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import yaml
from sqlalchemy import Engine

from democratiza.adjudication.record import adjudicate
from democratiza.filing.batches import import_batch
from democratiza.offers.lifecycle import advance, create_offer, load_offer
from democratiza.tables.errors import InputRejected

SAMPLE = Path(__file__).parents[1] / "examples/primera-etapa"
PARAMS = yaml.safe_load((SAMPLE / "oferta.yaml").read_text(encoding="utf-8"))
CODE = "central-recepcion"


def one_row(tmp_path: Path, name: str, **changes: str) -> Path:
    """The first acceptance of the sample batch, with ``changes``, as a one-row file."""
    with (SAMPLE / "lote-1-casa-de-bolsa.csv").open(encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        row = next(reader)
        header = reader.fieldnames
    assert header is not None
    row.update(changes)
    path = tmp_path / name
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=header)
        writer.writeheader()
        writer.writerow(row)
    return path


def open_offer(engine: Engine) -> None:
    with engine.begin() as conn:
        stored = create_offer(conn, CODE, "central-seguros-vida", PARAMS, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "inicio del plazo")


def test_a_row_declaring_a_time_after_its_receipt_refuses_the_batch(
    engine: Engine, tmp_path: Path
) -> None:
    open_offer(engine)
    future = one_row(tmp_path, "futuro.csv", fecha_radicacion="2150-01-01T10:00")
    with pytest.raises(InputRejected) as refused:
        import_batch(engine, CODE, future, "Casa de Bolsa", "F1", "scb")
    [error] = refused.value.errors
    assert (error.row, error.column) == (2, "fecha_radicacion")
    assert "posterior a la recepción del lote" in error.message


def test_the_filing_received_first_consumes_the_limit_whatever_time_it_declares(
    engine: Engine, tmp_path: Path
) -> None:
    # One person through two brokers, each filing the person's whole limit: the second
    # received declares the earlier time, and is still the one left with nothing.
    open_offer(engine)
    first = one_row(tmp_path, "a.csv", fecha_radicacion="2018-02-20T10:00", cantidad="2000000")
    second = one_row(
        tmp_path,
        "b.csv",
        comisionista="Acciones y Valores",
        referencia="AV-1",
        fecha_radicacion="2018-01-05T09:00",
        cantidad="2000000",
    )
    received_first = import_batch(engine, CODE, first, "Casa de Bolsa", "A1", "scb")
    received_second = import_batch(engine, CODE, second, "Acciones y Valores", "B1", "ayv")
    with engine.begin() as conn:
        advance(conn, load_offer(conn, CODE), "cerrada", "oficina", "cierre")
    results = adjudicate(engine, CODE, "oficina", "adjudicación").results
    by_radicado = {r["radicado"]: r for r in results.iter_rows(named=True)}
    earlier = by_radicado[received_first.decisions["radicado"][0]]
    later = by_radicado[received_second.decisions["radicado"][0]]
    assert earlier["cantidad_persona"] > 0
    assert later["cantidad_persona"] == 0
    assert later["consumido_por"] == earlier["radicado"]
