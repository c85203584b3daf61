"""Amounts as people write them: one grammar, the same in a form, a command and a file.

Worked examples of ``money.parse_pesos``, and a property: for any text, a cell of a batch
file reads as the same centavos as the text typed in a form (or is refused in both).
"""

from __future__ import annotations

from decimal import Decimal

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from democratiza.money import MoneyError, parse_percent, parse_pesos
from democratiza.tables.format import MAX_PESOS, Column, FileFormat
from democratiza.tables.parse import parse_rows
from democratiza.tables.readers import RawTable

ONE_AMOUNT = FileFormat("montos", (Column("monto", "pesos", False, "un monto"),), {}, key=None)


@pytest.mark.parametrize(
    ("text", "centavos"),
    [
        ("48000000", 4_800_000_000),  # whole pesos, no separators
        ("2075.31", 207_531),  # a decimal point, as brokers' systems export
        ("2075,31", 207_531),  # a decimal comma, as Colombians write
        ("48.000.000", 4_800_000_000),  # dots group thousands in threes
        ("48.000.000,50", 4_800_000_050),
        ("1.500", 150_000),  # one dot and three digits: thousands, not decimals
        ("1.50", 150),  # one dot and two digits: decimals
        ("1.5", 150),
        ("$ 2.018", 201_800),  # a peso sign in front
        ("  0 ", 0),
        ("-5", -500),  # negative: the caller decides whether it may be
    ],
)
def test_written_amounts(text: str, centavos: int) -> None:
    assert parse_pesos(text) == centavos


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("10,123", "más de dos decimales"),
        ("2075.319", "más de dos decimales"),
        ("48,000,000", "no es un monto"),  # a comma never groups thousands
        ("48.00.000", "no es un monto"),  # groups of three, or none
        ("1.500,5.0", "no es un monto"),
        ("cuarenta", "no es un monto"),
        ("", "no es un monto"),
        ("1e6", "no es un monto"),
        ("٣", "no es un monto"),  # only ASCII digits
    ],
)
def test_texts_that_are_not_amounts(text: str, why: str) -> None:
    with pytest.raises(MoneyError, match=why):
        parse_pesos(text)


def test_percentages() -> None:
    assert parse_percent("18.5") == Decimal("0.185")
    assert parse_percent("18,5 %") == Decimal("0.185")
    with pytest.raises(MoneyError, match="no es un porcentaje"):
        parse_percent("dieciocho")


def file_cell(text: str) -> tuple[int | None, bool]:
    """The cell read as a batch file reads it: (centavos or None, refused)."""
    cell = pl.Series("monto", [text.strip() or None], dtype=pl.String)
    frame = pl.DataFrame([cell]).with_row_index("fila", offset=2)
    raw = RawTable("montos.csv", frame.with_columns(pl.col("fila").cast(pl.Int64)))
    typed, errors = parse_rows(raw, ONE_AMOUNT)
    return (None, True) if errors else (typed["monto"][0], False)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789.,$-+ ", min_size=1, max_size=24))
def test_a_file_reads_an_amount_as_a_form_does(text: str) -> None:
    value, refused = file_cell(text)
    if not text.strip():
        assert (value, refused) == (None, False)  # an empty cell is a missing value
        return
    try:
        typed = parse_pesos(text)
    except MoneyError:
        assert refused, text
        return
    if text.strip().startswith("-") or typed > MAX_PESOS * 100:
        assert refused, text  # a file refuses negatives (even -0) and implausible amounts
    else:
        assert (value, refused) == (typed, False), text
