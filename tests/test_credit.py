"""Worked examples for the credit lines of the Primera Etapa (GEB, Decreto 706 de 2017 arts. 6.4
and 7), their amortisation schedule and the shares as collateral.

Amounts are centavos; rates are fractions (0.18 is 18 % EA).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import re
from datetime import date
from decimal import Decimal, localcontext
from fractions import Fraction

import pytest

from democratiza.compliance.credit.checks import Finding, check_credit_line, check_credit_lines
from democratiza.compliance.credit.collateral import collateral_coverage
from democratiza.compliance.credit.lines import CreditError, CreditLine, CreditTerms
from democratiza.compliance.credit.schedule import Schedule, amortization_schedule, monthly_rate
from democratiza.compliance.series import (
    MissingSeriesValue,
    RateSeries,
    parse_rates,
    shipped_rates,
)
from democratiza.programs.loader import load_program
from democratiza.reports.loan_schedule import CSV_COLUMNS, schedule_csv, schedule_pdf

IBC = shipped_rates("interes_bancario_corriente")  # 2018-04: 20,48 % EA
# The conditions come from the program file (Decreto 706/2017 arts. 6.4 and 7).
GEB_TERMS = CreditTerms.from_program(load_program("geb-2017"))


def check_line(line: CreditLine, offer_value: int, ibc: RateSeries) -> list[Finding]:
    return check_credit_line(line, offer_value, ibc, terms=GEB_TERMS)


def check_lines(lines: list[CreditLine], offer_value: int, ibc: RateSeries) -> list[Finding]:
    return check_credit_lines(lines, offer_value, ibc, terms=GEB_TERMS)


GEB_SHARES = 1_836_235_403  # GEB art. 1
GEB_PRICE = 201_800  # $ 2.018, GEB art. 6.2
OFFER = GEB_SHARES * GEB_PRICE  # $ 3.705.523.043.254
TENTH = 37_055_230_432_540  # 10 % of OFFER, exactly: $ 370.552.304.325,40

LINE = CreditLine(
    lender="Banco Ejemplo",
    available_centavos=TENTH,
    term_months=60,
    grace_months=12,
    rate_ea=Decimal("0.2048"),  # exactly the IBC of April 2018: "no podrá ser superior"
    granted=date(2018, 4, 10),
    capitalise_grace_interest=True,
    share_collateral="precio_fijo",
)
IBC_TEXT = (
    "interés bancario corriente vigente el 2018-04-10, certificado para 2018-04 "
    "(2018-04-01 a 2018-04-30); fuente: Superintendencia Financiera, certificación del "
    "interés bancario corriente (consumo y ordinario)"
)


def failing(findings: list[Finding]) -> list[tuple[str, str]]:
    return [(f.rule, f.text) for f in findings if not f.ok]


# --- the conditions' figures -------------------------------------------------------------


def test_the_figures_come_from_the_program_file_with_their_citations() -> None:
    terms = GEB_TERMS
    assert terms.minimum("financiacion_minima") == 10
    assert terms.minimum("plazo_minimo") == 60
    assert terms.minimum("gracia_minima") == 12
    assert [r.citation for r in terms.rules] == [
        "Decreto 706/2017 arts. 6.4 y 7, inciso primero",
        "Decreto 706/2017 art. 7.1",
        "Decreto 706/2017 art. 7.2",
        "Decreto 706/2017 art. 7.3",
        "Decreto 706/2017 art. 7.4",
    ]
    with pytest.raises(CreditError, match="no tiene cifra mínima"):
        terms.minimum("tasa_maxima")


def test_a_line_at_every_limit_meets_every_condition() -> None:
    findings = check_line(LINE, OFFER, IBC)
    assert [(f.rule, f.ok) for f in findings] == [
        ("financiacion_minima", True),
        ("plazo_minimo", True),
        ("gracia_minima", True),
        ("tasa_maxima", True),
        ("garantia_acciones", True),
    ]
    assert [f.text for f in findings] == [
        "Financiación disponible $ 370.552.304.325,40 ≥ 10 % × $ 3.705.523.043.254 "
        "(valor de las acciones ofrecidas) = $ 370.552.304.325,40",
        "60 meses ≥ 60 meses (plazo total de amortización, incluidos 12 meses de gracia a capital)",
        "12 meses ≥ 12 meses de gracia a capital; los intereses de la gracia se capitalizan "
        "para pagarlos con las cuotas de capital (ambas formas permitidas)",
        f"20,48 % EA ≤ 20,48 % EA, {IBC_TEXT}",
        "Admite como garantía las acciones adquiridas con el crédito, valoradas al precio "
        "fijo de venta",
    ]
    assert str(findings[1]) == (
        "Banco Ejemplo — Decreto 706/2017 art. 7.1: cumple. "
        "60 meses ≥ 60 meses (plazo total de amortización, incluidos 12 meses de gracia a "
        "capital)"
    )


def test_art_7_first_paragraph_one_centavo_below_ten_percent_fails_alone() -> None:
    line = dataclasses.replace(LINE, available_centavos=TENTH - 1)
    assert failing(check_line(line, OFFER, IBC)) == [
        (
            "financiacion_minima",
            "Financiación disponible $ 370.552.304.325,39 < 10 % × $ 3.705.523.043.254 "
            "(valor de las acciones ofrecidas) = $ 370.552.304.325,40",
        )
    ]


def test_art_7_first_paragraph_ten_percent_of_an_odd_value_is_not_rounded() -> None:
    # 10 % of $ 0,15 is 1,5 centavos: 1 centavo is short, 2 are enough.
    short = dataclasses.replace(LINE, available_centavos=1)
    enough = dataclasses.replace(LINE, available_centavos=2)
    assert failing(check_line(short, 15, IBC)) == [
        (
            "financiacion_minima",
            "Financiación disponible $ 0,01 < 10 % × $ 0,15 (valor de las acciones ofrecidas) "
            "= $ 0,01…",
        )
    ]
    assert failing(check_line(enough, 15, IBC)) == []


def test_art_7_1_a_term_of_59_months_fails_alone() -> None:
    line = dataclasses.replace(LINE, term_months=59)
    assert failing(check_line(line, OFFER, IBC)) == [
        (
            "plazo_minimo",
            "59 meses < 60 meses (plazo total de amortización, incluidos 12 meses de gracia a "
            "capital)",
        )
    ]


def test_art_7_2_a_grace_of_11_months_fails_alone() -> None:
    line = dataclasses.replace(LINE, grace_months=11, capitalise_grace_interest=False)
    assert failing(check_line(line, OFFER, IBC)) == [
        (
            "gracia_minima",
            "11 meses < 12 meses de gracia a capital; los intereses de la gracia se pagan mes "
            "a mes (ambas formas permitidas)",
        )
    ]


def test_art_7_3_a_rate_above_the_ibc_of_the_grant_date_fails_alone() -> None:
    line = dataclasses.replace(LINE, rate_ea=Decimal("0.2049"))
    assert failing(check_line(line, OFFER, IBC)) == [
        ("tasa_maxima", f"20,49 % EA > 20,48 % EA, {IBC_TEXT}")
    ]


def test_art_7_3_the_ibc_is_the_one_in_force_on_the_grant_date() -> None:
    # 20,44 % equals May 2018's IBC (granted 31 May: met) and is above June's 20,28 %.
    line = dataclasses.replace(LINE, rate_ea=Decimal("0.2044"))
    assert (
        failing(check_line(dataclasses.replace(line, granted=date(2018, 5, 31)), OFFER, IBC)) == []
    )
    june = check_line(dataclasses.replace(line, granted=date(2018, 6, 1)), OFFER, IBC)
    assert [f.rule for f in june if not f.ok] == ["tasa_maxima"]
    assert "20,44 % EA > 20,28 % EA" in june[3].text


def test_art_7_3_a_grant_date_without_a_certified_ibc_stops_naming_the_period() -> None:
    line = dataclasses.replace(LINE, granted=date(2009, 6, 15))
    with pytest.raises(MissingSeriesValue) as exc:
        check_line(line, OFFER, IBC)
    assert exc.value.period == "2009-T2 (2009-04-01 a 2009-06-30)"
    assert str(exc.value) == (
        "Falta el interés bancario corriente del periodo 2009-T2 (2009-04-01 a 2009-06-30), "
        "necesario para verificar la tasa de la línea de crédito de Banco Ejemplo otorgada el "
        "2009-06-15. No se interpola: cargue la serie oficial que incluya ese periodo."
    )


def test_art_7_3_the_usura_series_is_not_the_cap() -> None:
    usura = parse_rates(
        "desde,hasta,tasa_ea,fuente\n2018-04-01,2018-04-30,30.72,ejemplo\n",
        "usura.csv",
        "usura",
        complete=True,
    )
    with pytest.raises(CreditError, match="se recibió la serie de tasa de usura"):
        check_line(LINE, OFFER, usura)


@pytest.mark.parametrize(
    ("collateral", "text"),
    [
        (
            "otro_valor",
            "Admite las acciones como garantía pero no las valora al precio fijo de venta "
            "(inicial o ajustado), como exige la norma",
        ),
        ("no_admitidas", "No admite como garantía las acciones adquiridas con el crédito"),
    ],
)
def test_art_7_4_shares_not_taken_at_the_fixed_price_fail_alone(collateral: str, text: str) -> None:
    line = dataclasses.replace(LINE, share_collateral=collateral)  # type: ignore[arg-type]
    assert failing(check_line(line, OFFER, IBC)) == [("garantia_acciones", text)]


def test_art_7_first_paragraph_the_lines_together_reach_ten_percent() -> None:
    half = TENTH // 2
    a = dataclasses.replace(LINE, lender="Banco A", available_centavos=half)
    b = dataclasses.replace(LINE, lender="Banco B", available_centavos=TENTH - half)
    alone = check_line(a, OFFER, IBC)
    assert [f.rule for f in alone if not f.ok] == ["financiacion_minima"]

    together = check_lines([a, b], OFFER, IBC)
    assert len(together) == 9
    assert all(f.ok for f in together)
    assert together[-1].subject == "líneas en su conjunto"
    assert together[-1].text.startswith(
        "Financiación disponible de las líneas que cumplen (Banco A, Banco B) "
        "$ 370.552.304.325,40 ≥ 10 %"
    )


def test_art_7_first_paragraph_a_line_without_the_characteristics_does_not_count() -> None:
    a = dataclasses.replace(LINE, lender="Banco A", available_centavos=TENTH)
    b = dataclasses.replace(LINE, lender="Banco B", term_months=36)
    findings = check_lines([b, a], OFFER, IBC)
    assert findings[-1].ok
    assert "(Banco A)" in findings[-1].text
    only_bad = check_lines([b], OFFER, IBC)
    assert failing(only_bad) == [
        (
            "plazo_minimo",
            "36 meses < 60 meses (plazo total de amortización, incluidos 12 meses de gracia a "
            "capital)",
        ),
        (
            "financiacion_minima",
            "Ninguna línea cumple las condiciones del programa; financiación disponible $ 0 "
            "< 10 % × $ 3.705.523.043.254 (valor de las acciones ofrecidas) = "
            "$ 370.552.304.325,40",
        ),
    ]


def test_a_malformed_line_is_refused_in_spanish() -> None:
    with pytest.raises(CreditError, match="la gracia \\(60 meses\\) no deja meses para amortizar"):
        dataclasses.replace(LINE, grace_months=60)
    with pytest.raises(CreditError, match="una tasa de 18 equivale a 1800 % EA"):
        dataclasses.replace(LINE, rate_ea=Decimal(18))
    with pytest.raises(CreditError, match="el monto disponible debe ser positivo"):
        dataclasses.replace(LINE, available_centavos=0)
    with pytest.raises(CreditError, match="valor de las acciones ofrecidas debe ser positivo"):
        check_line(LINE, 0, IBC)


# --- the monthly rate --------------------------------------------------------------------


@pytest.mark.parametrize("annual", ["0.18", "0.2048", "0.0001", "0.4626"])
def test_monthly_rate_is_the_twelfth_root_not_a_twelfth(annual: str) -> None:
    rate = monthly_rate(Decimal(annual))
    with localcontext() as ctx:
        ctx.prec = 60
        plain = ((1 + Decimal(annual)).ln() / 12).exp() - 1
        assert abs(rate - plain) < Decimal("1E-45")
        assert abs((1 + rate) ** 12 - (1 + Decimal(annual))) < Decimal("1E-45")
    assert rate < Decimal(annual) / 12


def test_monthly_rate_of_18_percent_ea() -> None:
    assert str(monthly_rate(Decimal("0.18")))[:20] == "0.013888430348410033"
    assert monthly_rate(Decimal(0)) == 0


# --- the schedule ------------------------------------------------------------------------


def reconciles(s: Schedule) -> None:
    """Every row's identities, the totals, and the balance chained to zero."""
    balance = s.principal
    for i, r in enumerate(s.rows, start=1):
        assert r.number == i
        assert r.opening == balance
        assert r.instalment == r.interest_paid + r.principal
        assert r.closing == r.opening + r.capitalised - r.principal
        assert min(r.interest, r.capitalised, r.principal, r.instalment, r.closing) >= 0
        balance = r.closing
    assert s.closing == 0
    assert s.principal_paid == s.principal + s.interest_capitalised
    assert s.total_paid == s.principal + s.interest_accrued
    assert s.interest_paid == s.interest_accrued - s.interest_capitalised


def independent_instalment(balance: int, annual: str, months: int) -> int:
    """B·m / (1 − (1 + m)^−n) with m by exp and ln at 60 digits, rounded half-up."""
    with localcontext() as ctx:
        ctx.prec = 60
        m = ((1 + Decimal(annual)).ln() / 12).exp() - 1
        exact = balance * m / (1 - (1 + m) ** -months)
        return int(exact.quantize(Decimal(1), rounding="ROUND_HALF_UP"))


def test_schedule_with_capitalised_grace_reconciles_to_the_centavo() -> None:
    # $ 10.000.000 at 18 % EA, 60 months with 12 of capitalised grace, from 31 January 2018.
    s = amortization_schedule(1_000_000_000, Decimal("0.18"), 60, 12, True, date(2018, 1, 31))
    reconciles(s)
    first = s.rows[0]
    # 1.000.000.000 × 0,0138884303484… = 13.888.430,3484… → 13.888.430 centavos.
    assert (first.day, first.interest, first.capitalised, first.instalment) == (
        date(2018, 2, 28),
        13_888_430,
        13_888_430,
        0,
    )
    assert s.rows[1].day == date(2018, 3, 31)
    assert all(r.principal == 0 and r.instalment == 0 for r in s.rows[:12])
    # Twelve months at (1 + m)^12 = 1,18: the balance after the grace is $ 11.800.000.
    after_grace = s.rows[11].closing
    assert after_grace == 1_180_000_000
    assert s.interest_capitalised == 180_000_000
    assert s.instalment == independent_instalment(after_grace, "0.18", 48) == 33_845_459
    assert {r.instalment for r in s.rows[12:-1]} == {33_845_459}
    last = s.rows[-1]
    assert (last.number, last.day, last.opening, last.principal, last.closing) == (
        60,
        date(2023, 1, 31),
        33_381_850,
        33_381_850,
        0,
    )
    assert last.instalment == 33_845_471  # the residue of 47 roundings: 12 centavos
    assert s.principal_paid == 1_180_000_000
    assert s.interest_paid == 444_582_044
    assert s.total_paid == 1_624_582_044


def test_schedule_with_paid_grace_interest_reconciles_to_the_centavo() -> None:
    s = amortization_schedule(1_000_000_000, Decimal("0.18"), 60, 12, False, date(2018, 1, 31))
    reconciles(s)
    assert s.interest_capitalised == 0
    assert all(
        r.opening == 1_000_000_000 and r.instalment == r.interest == 13_888_430 for r in s.rows[:12]
    )
    assert s.instalment == independent_instalment(1_000_000_000, "0.18", 48)
    assert s.principal_paid == 1_000_000_000


@pytest.mark.parametrize(
    ("principal", "annual", "term", "grace", "capitalise"),
    [
        (1, "0.2048", 60, 12, True),
        (37, "0.2048", 60, 12, False),
        (123_456_789, "0.0001", 61, 13, True),
        (999_999_999_999, "0.4626", 120, 24, True),
        (642_473_900, "0.1926", 72, 0, False),
    ],
)
def test_any_schedule_reconciles(
    principal: int, annual: str, term: int, grace: int, capitalise: bool
) -> None:
    s = amortization_schedule(
        principal, Decimal(annual), term, grace, capitalise, date(2020, 2, 29)
    )
    reconciles(s)
    assert len(s.rows) == term


def test_schedule_at_zero_rate_divides_the_capital() -> None:
    s = amortization_schedule(100, Decimal(0), 3, 0, False, date(2018, 1, 15))
    reconciles(s)
    assert [r.instalment for r in s.rows] == [33, 33, 34]


def test_schedule_refuses_a_grace_as_long_as_the_term() -> None:
    with pytest.raises(CreditError, match="El plazo \\(12 meses\\) debe ser mayor que la gracia"):
        amortization_schedule(100, Decimal("0.1"), 12, 12, True, date(2018, 1, 15))
    with pytest.raises(CreditError, match="El monto del crédito debe ser positivo"):
        amortization_schedule(0, Decimal("0.1"), 60, 12, True, date(2018, 1, 15))


# --- the shares as collateral (art. 7.4) ---------------------------------------------------


def test_art_7_4_coverage_at_the_fixed_price() -> None:
    c = collateral_coverage(1_000, GEB_PRICE, 150_000_000)
    assert c.value == 201_800_000
    assert c.ratio == Fraction(1009, 750)
    assert c.covered
    assert c.text == (
        "1.000 acciones × $ 2.018 (precio fijo) = $ 2.018.000 frente a un saldo de "
        "$ 1.500.000: cobertura del 134,53… % ≥ 100 % exigido; la garantía cubre el saldo."
    )


def test_art_7_4_coverage_exactly_the_balance_covers() -> None:
    c = collateral_coverage(1_000, GEB_PRICE, 201_800_000)
    assert (c.ratio, c.covered) == (Fraction(1), True)
    assert "cobertura del 100 % ≥ 100 % exigido" in c.text


def test_art_7_4_coverage_short_of_the_balance() -> None:
    c = collateral_coverage(500, GEB_PRICE, 150_000_000)
    assert (c.ratio, c.covered) == (Fraction(1009, 1500), False)
    assert c.text.endswith("cobertura del 67,26… % < 100 % exigido; la garantía no cubre el saldo.")


def test_coverage_against_a_lender_margin() -> None:
    c = collateral_coverage(1_000, GEB_PRICE, 170_000_000, required=Fraction(5, 4))
    assert not c.covered
    assert "cobertura del 118,70… % < 125 % exigido" in c.text
    with pytest.raises(CreditError, match="saldo del crédito positivo"):
        collateral_coverage(1_000, GEB_PRICE, 0)


# --- rendering -----------------------------------------------------------------------------

SCHEDULE = amortization_schedule(1_000_000_000, Decimal("0.18"), 60, 12, True, date(2018, 1, 31))


def test_csv_has_spanish_headers_and_pesos_with_two_decimals() -> None:
    text = schedule_csv(SCHEDULE)
    rows = list(csv.reader(io.StringIO(text)))
    assert (
        tuple(rows[0])
        == CSV_COLUMNS
        == (
            "cuota",
            "fecha",
            "saldo_inicial",
            "intereses",
            "intereses_capitalizados",
            "abono_capital",
            "valor_cuota",
            "saldo_final",
        )
    )
    assert len(rows) == 61
    assert rows[1] == [
        "1",
        "2018-02-28",
        "10000000.00",
        "138884.30",
        "138884.30",
        "0.00",
        "0.00",
        "10138884.30",
    ]
    assert rows[-1] == [
        "60",
        "2023-01-31",
        "333818.50",
        "4636.21",
        "0.00",
        "333818.50",
        "338454.71",
        "0.00",
    ]
    principal = sum(Decimal(r[5]) for r in rows[1:])
    assert principal == Decimal("11800000.00")


def test_pdf_is_a_pdf_and_deterministic() -> None:
    first = schedule_pdf(SCHEDULE, "Línea de crédito de Banco Ejemplo")
    second = schedule_pdf(SCHEDULE, "Línea de crédito de Banco Ejemplo")
    assert first.startswith(b"%PDF")
    assert first == second
    assert b"CreationDate" not in first
    assert len(re.findall(rb"/Type /Page\b", first)) == 2  # 36 rows, then 24 and the totals


@pytest.mark.parametrize("program_id", ["coltel-2018", "ebsa", "central-seguros-vida"])
def test_a_program_whose_text_lacks_the_article_takes_ley_226_art_11_num_3(
    program_id: str,
) -> None:
    # Our texts of these decrees do not carry their credit-line article; the law's own
    # conditions apply (Ley 226 de 1995 art. 11 num. 3): 10 %, five years, one year of grace.
    terms = CreditTerms.from_program(load_program(program_id))
    assert [r.minimum for r in terms.rules] == [10, 60, 12, None, None]
    assert {r.citation for r in terms.rules} == {"Ley 226/1995 art. 11 num. 3"}


def test_a_program_file_without_credit_line_conditions_cannot_be_checked() -> None:
    program = load_program("ebsa").model_copy(update={"credit_lines": None})
    refusal = (
        "no define las condiciones de las líneas de crédito: no se puede ofrecer la Primera "
        "Etapa, que solo se ofrece cuando existen líneas de crédito para los destinatarios"
    )
    with pytest.raises(CreditError, match=refusal):
        CreditTerms.from_program(program)
