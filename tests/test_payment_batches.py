"""A payment file for the Primera Etapa's awards: all or nothing, once only (both databases)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import polars as pl
import pytest
from sqlalchemy import Engine, func, select

from democratiza.compliance.holdings import settle
from democratiza.compliance.payment_batches import import_payments
from democratiza.offers.lifecycle import OfferError
from democratiza.storage.schema import payments
from democratiza.tables.errors import InputRejected
from democratiza.vocabulary import NATURAL_CATEGORIES
from tests.storage_support import adjudicate_sample

CODE = "central"


@pytest.fixture
def awarded(engine: Engine) -> pl.DataFrame:
    return adjudicate_sample(engine, CODE).filter(pl.col("adjudicada") > 0)


def write(path: Path, rows: list[tuple[str, str, str, str]]) -> Path:
    lines = ["radicado,fecha,monto,forma", *(",".join(r) for r in rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def count(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(payments)).scalar_one())


def test_a_payment_file_is_stored_once_and_settles_like_single_payments(
    engine: Engine, awarded: pl.DataFrame, tmp_path: Path
) -> None:
    first, second = awarded.head(2).rows(named=True)
    path = write(
        tmp_path / "pagos.csv",
        [
            (first["radicado"], "2018-03-10", str(first["adjudicada"] * 1000), "contado"),
            # Two payments for one award: the second completes it.
            (second["radicado"], "2018-03-10", "1000", "contado"),
            (second["radicado"], "2018-03-11", str((second["adjudicada"] - 1) * 1000), "contado"),
        ],
    )
    result = import_payments(engine, CODE, path, "P-1", "scb")
    assert result.created and result.rows == 3
    again = import_payments(engine, CODE, path, "P-1", "scb")
    assert not again.created and "no se creó nada nuevo" in again.message
    assert count(engine) == 3
    done = settle(engine, CODE, date(2018, 3, 20), "oficina")
    assert done.paid_shares == first["adjudicada"] + second["adjudicada"]
    late = write(tmp_path / "tarde.csv", [(first["radicado"], "2018-03-25", "1000", "contado")])
    with pytest.raises(OfferError, match="ya se liquidó"):
        import_payments(engine, CODE, late, "P-2", "scb")


def test_a_file_with_any_bad_row_is_refused_whole_naming_each(
    engine: Engine, awarded: pl.DataFrame, tmp_path: Path
) -> None:
    natural = awarded.filter(pl.col("categoria").is_in(sorted(NATURAL_CATEGORIES)))
    legal = awarded.filter(~pl.col("categoria").is_in(sorted(NATURAL_CATEGORIES)))
    good = natural.row(0, named=True)["radicado"]
    rows = [
        (good, "2018-03-10", "1000", "cesantias"),  # a natural person: fine
        ("999999-000001", "2018-03-10", "1000", "contado"),
        (legal.row(0, named=True)["radicado"], "2018-03-10", "1000", "cesantias"),
        (good, "2018-03-10", "0", "contado"),
    ]
    # A cell that is not a date is a file error, reported before any other check.
    path = write(tmp_path / "pagos.csv", [*rows, (good, "10/03/2018", "1000", "contado")])
    with pytest.raises(InputRejected) as caught:
        import_payments(engine, CODE, path, "P-1", "scb")
    assert [(e.row, e.column) for e in caught.value.errors] == [(6, "fecha")]
    path = write(tmp_path / "pagos.csv", rows)
    with pytest.raises(InputRejected) as caught:
        import_payments(engine, CODE, path, "P-1", "scb")
    assert [(e.row, e.column, e.message) for e in caught.value.errors] == [
        (3, "radicado", "el radicado no tiene acciones adjudicadas"),
        (
            4,
            "forma",
            "la forma de pago cesantias solo se admite a personas naturales "
            "(Ley 226/1995 art. 11 num. 4)",  # Central's file cites the law
        ),
        (5, "monto", "el pago debe ser positivo"),
    ]
    assert count(engine) == 0
