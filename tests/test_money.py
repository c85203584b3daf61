"""How the project writes money and ratios, by worked examples (``democratiza.money``).

Each formatter has its convention: amounts for readers ($ 2.018,50) and for files (2018.50),
exact ratios rounded or cut to a number of places, and percentages written as decimals.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from democratiza.money import (
    MoneyError,
    decimal_percent,
    dollars,
    exact_percent,
    fixed,
    group,
    parse_shares,
    percent,
    pesos,
    pesos_cell,
    pesos_cents,
    share_percent,
)

# --- amounts --------------------------------------------------------------------------------


def test_group_writes_thousands_with_dots() -> None:
    assert group(0) == "0"
    assert group(999) == "999"
    assert group(118_929) == "118.929"
    assert group(1_836_235_403) == "1.836.235.403"
    assert group(-12_345) == "-12.345"


def test_pesos_shows_centavos_only_when_there_are_some() -> None:
    assert pesos(4_800_000_000) == "$ 48.000.000"
    assert pesos(207_531) == "$ 2.075,31"
    assert pesos(5) == "$ 0,05"
    assert pesos(-100) == "-$ 1"
    assert pesos(-123_456) == "-$ 1.234,56"


def test_pesos_marks_a_fraction_of_a_centavo_and_never_rounds_up() -> None:
    # 2/3 of a peso is 66,66… centavos: the cut is marked, not rounded to 67.
    assert pesos(Fraction(200, 3)) == "$ 0,66…"
    assert pesos(Fraction(-1, 3)) == "-$ 0,00…"
    assert pesos(Fraction(-250)) == "-$ 2,50"
    # An exact decimal amount, as a fine's balance after the CPI adjustment carries it.
    assert pesos(Decimal("221917.0143")) == "$ 2.219,17…"
    assert pesos(Decimal("18750000.00")) == "$ 187.500"


def test_pesos_cents_always_shows_the_centavos() -> None:
    assert pesos_cents(4_540_500_000) == "$ 45.405.000,00"
    assert pesos_cents(123_450) == "$ 1.234,50"
    assert pesos_cents(5) == "$ 0,05"
    assert pesos_cents(-100) == "-$ 1,00"


def test_pesos_cell_is_machine_readable_and_keeps_every_exact_digit() -> None:
    assert pesos_cell(123_456) == "1234.56"
    assert pesos_cell(4_540_500_000) == "45405000.00"
    assert pesos_cell(0) == "0.00"
    assert pesos_cell(-5) == "-0.05"
    # Fractions of a centavo are written out, never rounded; trailing zeros go past two.
    assert pesos_cell(Decimal("221917.0143")) == "2219.170143"
    assert pesos_cell(Decimal("1234.50")) == "12.345"
    assert pesos_cell(Decimal("0.3")) == "0.003"
    assert pesos_cell(Decimal("1E+3")) == "10.00"


def test_dollars() -> None:
    assert dollars(123_456) == "US$ 1.234,56"
    assert dollars(100) == "US$ 1"


# --- exact ratios -----------------------------------------------------------------------------


def test_fixed_rounds_half_away_from_zero_or_truncates() -> None:
    assert fixed(Fraction(11_709, 16_465), 4) == "0,7111"
    assert fixed(Fraction(1_234_567, 1_000), 2) == "1.234,57"
    assert fixed(Fraction(1, 2), 0) == "1"
    assert fixed(Fraction(-1, 2), 0) == "-1"
    assert fixed(Fraction(5, 2), 0) == "3"  # half up, not to even
    assert fixed(Fraction(2, 3), 2) == "0,67"
    assert fixed(Fraction(2, 3), 2, truncate=True) == "0,66"
    assert fixed(Fraction(-2, 3), 2, truncate=True) == "-0,66"


def test_percent_of_a_ratio() -> None:
    assert percent(Fraction(3_500, 6_586)) == "53,14 %"
    assert percent(Fraction(1, 3), 0) == "33 %"
    # The allocation notes cut the prorate: 37.289/100.000 is 37,28 %, not 37,29 %.
    assert percent(Fraction(37_289, 100_000), truncate=True) == "37,28 %"
    assert percent(Fraction(1), truncate=True) == "100,00 %"


def test_share_percent_never_reads_as_none_or_all_when_it_is_neither() -> None:
    assert share_percent(Fraction(3_500, 6_586)) == "53,14 %"
    assert share_percent(Fraction(0)) == "0,00 %"
    assert share_percent(Fraction(1)) == "100,00 %"
    assert share_percent(Fraction(1, 1_000_000)) == "< 0,01 %"
    assert share_percent(Fraction(999_999, 1_000_000)) == "> 99,99 %"
    assert share_percent(Fraction(1, 1_000), 0) == "< 1 %"
    assert share_percent(None) == "—"


def test_exact_percent_marks_what_it_cuts() -> None:
    # The collateral's coverage: $ 2.018.000 against $ 1.500.000 is 134,5333… %.
    assert exact_percent(Fraction(1_009, 750)) == "134,53… %"
    assert exact_percent(Fraction(3, 8)) == "37,50 %"
    assert exact_percent(Fraction(5, 4)) == "125 %"
    assert exact_percent(Fraction(1)) == "100 %"
    assert exact_percent(Fraction(123, 7)) == "1.757,14… %"
    assert exact_percent(Fraction(1, 30_000)) == "0… %"


# --- percentages written as decimals --------------------------------------------------------


def test_decimal_percent_keeps_every_digit() -> None:
    assert decimal_percent(Decimal("5.20")) == "5,20 %"
    assert decimal_percent(Decimal("28.740")) == "28,74 %"
    assert decimal_percent(Decimal("24.915")) == "24,915 %"
    assert decimal_percent(Decimal("30")) == "30 %"
    assert decimal_percent(Decimal("1234.5")) == "1234,50 %"  # no thousands dots


def test_decimal_percent_to_a_number_of_places() -> None:
    # A stretch's rate, (1 + 28,74 %)^(17/365) − 1, shown to ten decimals, half up.
    assert decimal_percent(Decimal("1.18355736327"), places=10) == "1,1835573633 %"
    assert decimal_percent(Decimal("1"), places=10) == "1,00 %"
    assert decimal_percent(Decimal("-1.234567890123"), places=10) == "-1,2345678901 %"


# --- shares -------------------------------------------------------------------------------


def test_shares_are_typed_as_pesos_are_with_or_without_thousands_dots() -> None:
    assert parse_shares("40.000.000") == parse_shares("40000000") == 40_000_000
    assert parse_shares(" 1.500 ") == 1_500  # a thousand five hundred, as $ 1.500 is


def test_a_share_count_that_is_not_whole_or_not_grouped_in_threes_is_refused() -> None:
    for wrong in ("1.5", "40.00.000", "1,500", "-3", "mil", "", "99999999999999999"):
        with pytest.raises(MoneyError, match="no es un número entero de acciones"):
            parse_shares(wrong)


def test_an_offer_file_may_write_its_shares_with_thousands_dots() -> None:
    from democratiza.programs.loader import load_program
    from democratiza.programs.parameters import make_offer

    program = load_program("central-seguros-vida")
    dotted = make_offer(program, {"precio": "1234.56", "acciones_ofrecidas": "40.000.000"})
    plain = make_offer(program, {"precio": "1234.56", "acciones_ofrecidas": 40_000_000})
    assert dotted.values["acciones_ofrecidas"] == plain.values["acciones_ofrecidas"] == 40_000_000
