"""Worked examples for the fines of GEB (Decreto 706 de 2017 art. 11 and 11.1) and Central de
Seguros (Fogafín, inciso «El incumplimiento…»), each named after the provision it tests.

Amounts are centavos. A rate series written for an example is loaded through the same
validation as an official file.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal, localcontext
from importlib import resources
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from democratiza.compliance.exact import period_rate, round_centavos
from democratiza.compliance.fines.account import Payment, Statement
from democratiza.compliance.fines.amount import FineAmount, fine_amount
from democratiza.compliance.fines.bands import BandError, band_for, band_windows
from democratiza.compliance.fines.case import fine_statement
from democratiza.compliance.fines.terms import FineError, FineTerms, fine_base
from democratiza.compliance.fines.text import statement_text
from democratiza.compliance.series import (
    MaxLegalRate,
    MissingSeriesValue,
    RateSeries,
    parse_cpi,
    parse_rates,
    shipped_cpi,
    shipped_max_rate,
)
from democratiza.programs.loader import ProgramFileError, load_program, parse_program
from democratiza.programs.schema import FineBand, Fines

KEYS = ["precio_adquisicion", "contraprestacion", "precio_segunda_etapa"]
PRICE = 201_800  # $ 2.018, GEB art. 6.2


def program_data(program_id: str) -> Any:
    ref = resources.files("democratiza.programs.data").joinpath(f"{program_id}.yaml")
    return yaml.safe_load(ref.read_text(encoding="utf-8"))


def terms_for(program_id: str, reference: str, method: str) -> FineTerms:
    """The shipped program file plus the keys that make its fines computable."""
    data = program_data(program_id)
    data["multas"].update(claves_bases=KEYS, fecha_referencia=reference, metodo_ajuste=method)
    return FineTerms.from_program(parse_program(data, program_id))


GEB = terms_for("geb-2017", "enajenacion", "ipc_1_enero")
CENTRAL = terms_for("central-seguros-vida", "adjudicacion", "tasa_moratoria_dia_pago")


def usura(rows: str) -> MaxLegalRate:
    """A gap-free usura series for an example (no IBC needed)."""
    series = parse_rates(
        "desde,hasta,tasa_ea,fuente\n" + rows, "ejemplo.csv", "usura", complete=True
    )
    return MaxLegalRate(series, RateSeries("interes_bancario_corriente", "vacía", ()))


def geb_fine(shares: int, sale: date, breach: date, price: int = PRICE) -> FineAmount:
    base = fine_base(
        GEB, {"precio_adquisicion": price, "contraprestacion": None, "precio_segunda_etapa": None}
    )
    return fine_amount(shares, base, band_for(sale, breach, GEB.bands, GEB.reference_label))


def precise(balance: int | Decimal, annual: str, days: int) -> int:
    """An independent (1 + i)^(d/365) − 1 by exp and ln with 60 digits, rounded half-up."""
    with localcontext() as ctx:
        ctx.prec = 60
        factor = ((1 + Decimal(annual)).ln() * days / 365).exp() - 1
        return round_centavos(Decimal(balance) * factor)


# --- art. 11.1: the bands ------------------------------------------------------------


SALE = date(2018, 3, 15)


@pytest.mark.parametrize(
    ("breach", "percent"),
    [
        (date(2018, 3, 15), 100),  # the sale day itself
        (date(2018, 9, 15), 100),  # sale + 6 months: still "dentro de los primeros seis meses"
        (date(2018, 9, 16), 75),  # "seis (6) meses y un (1) día"
        (date(2019, 3, 15), 75),  # sale + 12 months
        (date(2019, 3, 16), 50),  # "doce (12) meses y un (1) día"
        (date(2019, 9, 15), 50),  # sale + 18 months
        (date(2019, 9, 16), 25),  # "dieciocho (18) meses y (1) un día"
        (date(2020, 3, 15), 25),  # sale + 24 months
    ],
)
def test_art_11_1_band_boundaries(breach: date, percent: int) -> None:
    assert band_for(SALE, breach, GEB.bands).percent == percent


def test_art_11_1_after_24_months_there_is_no_band() -> None:
    match = band_for(SALE, date(2020, 3, 16), GEB.bands)
    assert match.window is None
    assert match.reason == (
        "El incumplimiento del 2020-03-16 es posterior a los 24 meses siguientes a la fecha de "
        "enajenación del 2018-03-15 (terminaron el 2020-03-15): ningún tramo le asigna multa."
    )
    with pytest.raises(FineError, match="No hay multa: El incumplimiento del 2020-03-16"):
        geb_fine(1, SALE, date(2020, 3, 16))


def test_art_11_1_before_the_sale_there_is_no_band() -> None:
    match = band_for(SALE, date(2018, 3, 14), GEB.bands)
    assert match.window is None
    assert "anterior a la fecha de enajenación (2018-03-15)" in match.reason


def test_art_11_1_the_reason_quotes_the_band() -> None:
    match = band_for(SALE, date(2018, 9, 16), GEB.bands)
    assert match.reason == (
        "El incumplimiento del 2018-09-16 cae entre los 6 meses y un día y los 12 meses "
        "siguientes a la fecha de enajenación (del 2018-09-16 al 2019-03-15): 75 %."
    )


@pytest.mark.parametrize(
    ("sale", "breach", "percent"),
    [
        # 31 August + 6 months = 28 February (no 31 February); then 75 % from 1 March.
        (date(2017, 8, 31), date(2018, 2, 28), 100),
        (date(2017, 8, 31), date(2018, 3, 1), 75),
        # 12 months count from the sale (31 August), not from 28 February + 6 months.
        (date(2017, 8, 31), date(2018, 8, 31), 75),
        (date(2017, 8, 31), date(2018, 9, 1), 50),
        # In a leap year the 6 months end on 29 February.
        (date(2019, 8, 31), date(2020, 2, 29), 100),
        (date(2019, 8, 31), date(2020, 3, 1), 75),
        # Sale on 29 February 2020.
        (date(2020, 2, 29), date(2020, 8, 29), 100),
        (date(2020, 2, 29), date(2020, 8, 30), 75),
        (date(2020, 2, 29), date(2021, 2, 28), 75),
        (date(2020, 2, 29), date(2021, 3, 1), 50),
        (date(2020, 2, 29), date(2021, 8, 29), 50),
        (date(2020, 2, 29), date(2021, 8, 30), 25),
        (date(2020, 2, 29), date(2022, 2, 28), 25),
        (date(2020, 2, 29), date(2022, 3, 1), None),
    ],
)
def test_art_11_1_month_ends_and_leap_years(sale: date, breach: date, percent: int | None) -> None:
    assert band_for(sale, breach, GEB.bands).percent == percent


def test_art_11_1_windows_follow_each_other_day_by_day() -> None:
    windows = band_windows(date(2017, 8, 31), GEB.bands)
    assert [(w.first_day, w.last_day) for w in windows] == [
        (date(2017, 8, 31), date(2018, 2, 28)),
        (date(2018, 3, 1), date(2018, 8, 31)),
        (date(2018, 9, 1), date(2019, 2, 28)),
        (date(2019, 3, 1), date(2019, 8, 31)),
    ]


def test_bands_with_a_gap_are_refused() -> None:
    cite = GEB.bands[0].citation
    bands = [
        FineBand(from_months=0, to_months=6, percent=100, citation=cite),
        FineBand(from_months=7, to_months=12, percent=75, citation=cite),
    ]
    with pytest.raises(BandError, match="tramo 2 de la multa: empieza en el mes 7"):
        band_for(SALE, SALE, bands)


def test_central_bands_count_from_the_adjudication() -> None:
    match = band_for(date(2004, 5, 31), date(2004, 11, 30), CENTRAL.bands, CENTRAL.reference_label)
    assert match.percent == 100
    assert "fecha de adjudicación" in match.reason


# --- art. 11: the base per share -------------------------------------------------------


def test_art_11_a_acquisition_price_is_the_base_when_greatest() -> None:
    base = fine_base(
        GEB,
        {
            "precio_adquisicion": PRICE,
            "contraprestacion": 150_000,
            "precio_segunda_etapa": PRICE,  # a tie goes to the first the program lists
        },
    )
    assert (base.chosen.key, base.centavos) == ("precio_adquisicion", PRICE)


def test_art_11_b_consideration_obtained_is_the_base_when_greatest() -> None:
    base = fine_base(
        GEB,
        {"precio_adquisicion": PRICE, "contraprestacion": 250_050, "precio_segunda_etapa": None},
    )
    assert (base.chosen.key, base.centavos) == ("contraprestacion", 250_050)
    assert base.explain() == (
        "Base por acción, la mayor de: precio de adquisición por acción: $ 2.018; "
        "precio u otra contraprestación obtenida por acción: $ 2.500,50; "
        "precio por acción del vendedor en la Segunda Etapa: sin valor conocido, no se "
        "compara. Se toma $ 2.500,50 (precio u otra contraprestación obtenida por acción)."
    )


def test_art_11_c_second_stage_price_is_the_base_when_greatest() -> None:
    base = fine_base(
        GEB,
        {"precio_adquisicion": PRICE, "contraprestacion": 210_000, "precio_segunda_etapa": 230_000},
    )
    assert (base.chosen.key, base.centavos) == ("precio_segunda_etapa", 230_000)
    assert base.chosen.text == "Precio por acción que reciba el Distrito en la Segunda Etapa"


def test_art_11_every_listed_base_must_be_given_even_as_unknown() -> None:
    with pytest.raises(FineError, match="Falta el valor de la base 'precio por acción del"):
        fine_base(GEB, {"precio_adquisicion": PRICE, "contraprestacion": None})
    with pytest.raises(FineError, match="Ninguna base"):
        fine_base(GEB, dict.fromkeys(KEYS))  # type: ignore[arg-type]


# --- art. 11.1: the amount -------------------------------------------------------------


def test_art_11_1_amount_is_shares_times_base_times_percentage() -> None:
    # 30.000 × $ 2.018 × 75 % = $ 45.405.000
    fine = geb_fine(30_000, SALE, date(2018, 10, 1))
    assert fine.exact == Decimal("4540500000")
    assert fine.centavos == 4_540_500_000
    assert fine.explain() == (
        "30.000 acciones × $ 2.018 (precio de adquisición por acción) × 75 % = $ 45.405.000"
    )


def test_art_11_1_amount_is_exact_and_rounded_half_up_only_when_collected() -> None:
    # 1 × $ 2.018,02 × 25 % = 50.450,5 centavos: exact, then 50.451 when collected.
    fine = geb_fine(1, SALE, date(2019, 12, 1), price=201_802)
    assert fine.exact == Decimal("50450.5")
    assert fine.centavos == 50_451


# --- art. 11: CPI every 1 January --------------------------------------------------------

FLAT_20 = usura("2019-01-01,2022-12-31,20.00,ejemplo\n")


def test_art_11_cpi_every_1_january_after_the_breach_exactly() -> None:
    # 100 × $ 2.018 × 100 % = $ 201.800, breach 15 June 2019.
    fine = geb_fine(100, date(2019, 2, 1), date(2019, 6, 15))
    st = fine_statement(GEB, fine, date(2022, 3, 1), cpi=shipped_cpi(), rates=FLAT_20)
    adjustments = [r for r in st.rows if r.concept.startswith("Ajuste")]
    assert [(r.day, r.rate_percent, r.fine_balance) for r in adjustments] == [
        (date(2020, 1, 1), Decimal("3.80"), Decimal("20946840.0000")),  # × 1,0380 (IPC 2019)
        (date(2021, 1, 1), Decimal("1.61"), Decimal("21284084.124")),  # × 1,0161 (IPC 2020)
        (date(2022, 1, 1), Decimal("5.62"), Decimal("22480249.6517688")),  # × 1,0562
    ]
    assert adjustments[1].concept == (
        "Ajuste del 1 de enero de 2021 por el IPC de 2020: $ 209.468,40 × (1 + 1,61 %) = "
        "$ 212.840,84…"
    )
    assert st.rows[-1].fine_balance == Decimal("22480249.6517688")
    # All of 2021 (365 days) at 20 % EA is exactly 20 % of the balance then.
    year_2021 = next(r for r in st.rows if r.day == date(2021, 12, 31))
    assert (year_2021.days, year_2021.interest) == (365, 4_256_817)  # 21.284.084,124 × 0,2


def test_art_11_no_adjustment_on_the_breach_day_itself() -> None:
    fine = geb_fine(100, date(2018, 9, 1), date(2019, 1, 1))
    st = fine_statement(GEB, fine, date(2019, 12, 31), cpi=shipped_cpi(), rates=FLAT_20)
    assert not [r for r in st.rows if r.concept.startswith("Ajuste")]


def test_art_11_a_missing_cpi_year_stops_the_statement() -> None:
    cpi = parse_cpi("anio,variacion_pct,fuente\n2019,3.80,DANE\n", "ipc.csv")
    fine = geb_fine(100, date(2019, 2, 1), date(2019, 6, 15))
    with pytest.raises(MissingSeriesValue, match="del año 2020, necesario para el ajuste del 1"):
        fine_statement(GEB, fine, date(2021, 1, 1), cpi=cpi, rates=FLAT_20)


# --- art. 11.1: default interest ---------------------------------------------------------

TWO_RATES = usura("2021-01-01,2021-06-30,20.00,ejemplo\n2021-07-01,2021-12-31,30.00,ejemplo\n")
G = 6_054_000_000  # 30.000 × $ 2.018 × 100 %


def geb_g() -> FineAmount:
    return geb_fine(30_000, date(2021, 1, 15), date(2021, 3, 1))


def test_art_11_1_default_interest_at_the_rate_of_each_period() -> None:
    st = fine_statement(GEB, geb_g(), date(2021, 9, 1), cpi=shipped_cpi(), rates=TWO_RATES)
    accruals = [r for r in st.rows if r.concept.startswith("Intereses")]
    # 1 March to 30 June: 122 days at 20 % EA; 1 July to 31 August: 62 days at 30 % EA.
    assert [(r.day, r.days, r.rate_percent, r.interest) for r in accruals] == [
        (date(2021, 6, 30), 122, Decimal("20.00"), 380_406_241),
        (date(2021, 8, 31), 62, Decimal("30.00"), 275_904_792),
    ]
    assert accruals[0].interest == precise(G, "0.20", 122)  # $ 60.540.000 × (1,2^(122/365) − 1)
    assert accruals[1].interest == precise(G, "0.30", 62)
    assert st.due == G + 380_406_241 + 275_904_792


def test_period_rate_is_compounded_never_divided() -> None:
    assert period_rate(Decimal("0.20"), 365) == Decimal("0.20")
    assert period_rate(Decimal("0.20"), 0) == 0
    # 20 % / 12 would be 1,6667 %; the equivalent monthly rate is lower.
    assert round(period_rate(Decimal("0.20"), 30), 10) == Decimal("0.0150981765")


def test_art_11_1_a_period_without_a_rate_stops_and_names_it() -> None:
    # Shipped usura has September and October 2020; November is missing.
    fine = geb_fine(100, date(2020, 6, 1), date(2020, 9, 10))
    with pytest.raises(MissingSeriesValue) as exc:
        fine_statement(GEB, fine, date(2020, 11, 15), cpi=shipped_cpi(), rates=shipped_max_rate())
    assert exc.value.period == "2020-11 (2020-11-01 a 2020-11-30)"
    assert "necesario para los intereses de mora del 2020-11-01" in str(exc.value)


def test_art_11_1_a_rate_derived_from_the_ibc_is_said_so() -> None:
    fine = geb_fine(100, date(2018, 2, 1), date(2018, 4, 10))
    st = fine_statement(GEB, fine, date(2018, 5, 1), cpi=shipped_cpi(), rates=shipped_max_rate())
    accrual = st.rows[1]
    assert accrual.rate_percent == Decimal("30.72")  # 1,5 × 20,48 %
    assert "1,5 × interés bancario corriente (Código de Comercio art. 884)" in accrual.concept
    assert accrual.interest == precise(20_180_000, "0.3072", 21)


# --- art. 11.1: partial payments -------------------------------------------------------


def test_art_11_1_a_payment_below_the_interest_goes_only_to_interest() -> None:
    interest = 380_406_241 + 275_904_792
    st = fine_statement(
        GEB,
        geb_g(),
        date(2021, 10, 1),
        [Payment(date(2021, 9, 1), 500_000_000)],
        cpi=shipped_cpi(),
        rates=TWO_RATES,
    )
    payment = next(r for r in st.rows if r.concept == "Pago")
    assert (payment.to_interest, payment.to_fine, payment.excess) == (500_000_000, 0, 0)
    assert payment.interest_balance == interest - 500_000_000
    assert payment.fine_balance == G
    # Interest keeps accruing on the fine, never on the unpaid interest.
    after = st.rows[-1]
    assert (after.day, after.days, after.interest) == (
        date(2021, 9, 30),
        30,
        precise(G, "0.30", 30),
    )
    assert st.due == G + interest - 500_000_000 + after.interest


def test_art_11_1_a_payment_covers_interest_then_part_of_the_fine() -> None:
    interest = 380_406_241 + 275_904_792
    st = fine_statement(
        GEB,
        geb_g(),
        date(2021, 9, 1),
        [Payment(date(2021, 9, 1), interest + 54_000_000)],
        cpi=shipped_cpi(),
        rates=TWO_RATES,
    )
    payment = st.rows[-1]
    assert (payment.to_interest, payment.to_fine) == (interest, 54_000_000)
    assert (payment.interest_balance, payment.fine_balance) == (0, Decimal(G - 54_000_000))


def test_art_11_1_paying_everything_settles_and_the_rest_is_excess() -> None:
    interest = 380_406_241 + 275_904_792
    st = fine_statement(
        GEB,
        geb_g(),
        date(2021, 12, 31),
        [Payment(date(2021, 9, 1), G + interest + 100), Payment(date(2021, 10, 1), 5_000)],
        cpi=shipped_cpi(),
        rates=TWO_RATES,
    )
    settled = [r for r in st.rows if r.concept == "Pago"]
    assert [(r.to_interest, r.to_fine, r.excess) for r in settled] == [
        (interest, G, 100),
        (0, 0, 5_000),
    ]
    assert st.due == 0
    assert st.rows[-1].day == date(2021, 10, 1)  # nothing accrues once settled


def test_art_11_1_a_payment_on_1_january_meets_the_adjusted_fine() -> None:
    fine = geb_fine(100, date(2019, 2, 1), date(2019, 6, 15))
    st = fine_statement(
        GEB,
        fine,
        date(2020, 1, 1),
        [Payment(date(2020, 1, 1), 1)],
        cpi=shipped_cpi(),
        rates=FLAT_20,
    )
    assert [r.concept[:6] for r in st.rows[-2:]] == ["Ajuste", "Pago"]


def test_payments_outside_the_statement_are_refused() -> None:
    with pytest.raises(FineError, match="fuera del periodo"):
        fine_statement(
            GEB,
            geb_g(),
            date(2021, 9, 1),
            [Payment(date(2021, 2, 1), 1)],
            cpi=shipped_cpi(),
            rates=TWO_RATES,
        )


# --- rendering -------------------------------------------------------------------------


def partial_statement() -> Statement:
    return fine_statement(
        GEB,
        geb_g(),
        date(2021, 10, 1),
        [Payment(date(2021, 9, 1), 500_000_000)],
        cpi=shipped_cpi(),
        rates=TWO_RATES,
    )


def test_statement_text_in_spanish() -> None:
    text = statement_text(partial_statement())
    assert text.startswith(
        "Estado de cuenta de la multa al 2021-10-01: Programa de democratización de acciones "
        "del Grupo Energía Bogotá S.A. ESP (20%)\n"
    )
    assert (
        "2021-06-30  Intereses de mora del 2021-03-01 al 2021-06-30; usura del periodo "
        "2021-01-01 a 2021-06-30: 20,00 % EA, tasa de usura certificada\n"
        "            20,00 % EA = 6,2835520502 % por 122 días; intereses causados "
        "$ 3.804.062,41; saldo intereses $ 3.804.062,41; saldo multa $ 60.540.000; "
        "saldo total $ 64.344.062,41\n"
    ) in text
    assert (
        "2021-09-01  Pago\n            pago $ 5.000.000; a intereses $ 5.000.000; "
        "a la multa $ 0; saldo intereses $ 1.563.110,33;"
    ) in text
    assert "Saldo a pagar el 2021-10-01: $ 63.422.783,86\n" in text
    assert "Lecturas aplicadas:" in text
    assert text.endswith("Fuentes de las series:\n- ejemplo\n")


# --- Central de Seguros: adjusted at the maximum default rate of the payment day ----------

ADJUDICATION = date(2023, 10, 15)


def central_fine() -> FineAmount:
    # 1.000 acciones × $ 1.500 (precio de adquisición) × 100 %
    base = fine_base(
        CENTRAL,
        {"precio_adquisicion": 150_000, "contraprestacion": 120_000, "precio_segunda_etapa": None},
    )
    band = band_for(ADJUDICATION, date(2024, 1, 31), CENTRAL.bands, CENTRAL.reference_label)
    return fine_amount(1_000, base, band)


def test_central_adjusted_at_the_usura_of_the_payment_day() -> None:
    # 2024-01-31 to 2025-01-30 is 365 days; usura of January 2025 is 24,89 % EA.
    fine = central_fine()
    st = fine_statement(
        CENTRAL,
        fine,
        date(2025, 1, 30),
        [Payment(date(2025, 1, 30), 187_335_000)],
        rates=shipped_max_rate(),
    )
    adjustment, payment = st.rows[1], st.rows[2]
    assert (adjustment.days, adjustment.rate_percent) == (365, Decimal("24.89"))
    assert adjustment.fine_balance == Decimal("187335000")  # $ 1.500.000 × 1,2489
    assert (payment.to_fine, payment.excess, st.due) == (187_335_000, 0, 0)


def test_central_without_payment_shows_what_is_due_that_day() -> None:
    st = fine_statement(CENTRAL, central_fine(), date(2025, 2, 10), rates=shipped_max_rate())
    assert (st.rows[-1].days, st.rows[-1].rate_percent) == (376, Decimal("26.30"))
    assert st.due == 150_000_000 + precise(150_000_000, "0.2630", 376)


CENTRAL_CALLED = (
    "El programa de enajenación de acciones de Fogafín en la Compañía Central de Seguros de "
    "Vida S.A. (Primera Fase)"
)


def test_central_partial_payments_are_not_modelled() -> None:
    with pytest.raises(FineError) as refused:
        fine_statement(
            CENTRAL,
            central_fine(),
            date(2025, 1, 30),
            [Payment(date(2025, 1, 30), 100_000_000)],
            rates=shipped_max_rate(),
        )
    # The program by its name, never by its identifier (central-seguros-vida).
    assert str(refused.value).startswith("El pago de $ 1.000.000 del 2025-01-30 no cubre")
    assert str(refused.value).endswith(
        f". {CENTRAL_CALLED} no dice cómo se imputan pagos parciales."
    )


def test_the_fine_refusals_name_the_program_by_its_name() -> None:
    two = [Payment(date(2025, 1, 30), 1), Payment(date(2025, 1, 31), 1)]
    with pytest.raises(FineError) as partial:
        fine_statement(CENTRAL, central_fine(), date(2025, 2, 1), two, rates=shipped_max_rate())
    assert str(partial.value) == (
        f"{CENTRAL_CALLED} no dice cómo se imputan pagos parciales; solo se liquida un pago total."
    )
    with pytest.raises(FineError) as band:
        CENTRAL.band_citation(GEB.bands[0].model_copy(update={"percent": 99}))
    assert str(band.value) == f"{CENTRAL_CALLED} no tiene un tramo del 99 %."
    two_bases = replace(CENTRAL, base_keys=CENTRAL.base_keys[:2], base_texts=CENTRAL.base_texts[:2])
    with pytest.raises(FineError) as base:
        fine_base(two_bases, {"precio_segunda_etapa": 100, "contraprestacion": 1})
    assert str(base.value).startswith(f"{CENTRAL_CALLED} no usa como base: ")


def test_central_a_payment_day_without_a_certified_rate_stops() -> None:
    with pytest.raises(MissingSeriesValue, match="2024-06"):
        fine_statement(CENTRAL, central_fine(), date(2024, 6, 3), rates=shipped_max_rate())


# --- program files -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("program_id", "adjustment"),
    [("geb-2017", "ipc_1_enero"), ("central-seguros-vida", "tasa_moratoria_dia_pago")],
)
def test_the_shipped_programs_with_a_fines_article_can_compute(
    program_id: str, adjustment: str
) -> None:
    assert FineTerms.from_program(load_program(program_id)).adjustment == adjustment


@pytest.mark.parametrize("program_id", ["coltel-2018", "ebsa"])
def test_a_program_without_the_computation_keys_is_not_computed(program_id: str) -> None:
    program = load_program(program_id)
    with pytest.raises(FineError) as refused:
        FineTerms.from_program(program)
    assert str(refused.value) == (
        f"{program.called} no permite calcular multas: le faltan las bases de la multa, la "
        "fecha desde la que se ajusta, el método de ajuste, la regla que elige la base."
    )


def test_the_rule_that_picks_the_base_comes_from_the_program_file() -> None:
    """«calculada sobre el mayor de los siguientes valores» (GEB art. 11) is data, cited."""
    assert GEB.base_rule_citation == "Decreto 706/2017 art. 11"
    data = program_data("geb-2017")
    del data["multas"]["regla_base"]
    with pytest.raises(FineError, match="le faltan la regla que elige la base"):
        FineTerms.from_program(parse_program(data, "geb-2017"))


def test_a_cpi_adjustment_without_default_interest_names_what_is_missing() -> None:
    data = program_data("geb-2017")
    del data["multas"]["intereses_mora"]
    with pytest.raises(FineError) as refused:
        FineTerms.from_program(parse_program(data, "geb-2017"))
    assert str(refused.value).endswith(
        " no define los intereses de mora de una multa: no se puede calcular una multa que se "
        "ajusta por IPC."
    )
    # With the file's own reason (no_modelado), the sentence quotes it, as everywhere.
    data["no_modelado"].append(
        {
            "disposicion": "Intereses de mora de la multa",
            "cita": {"norma": "d706", "ref": "art. 11.1"},
            "razon": "El texto no fija la tasa.",
            "seccion": "multas.intereses_mora",
        }
    )
    with pytest.raises(FineError) as quoted:
        FineTerms.from_program(parse_program(data, "geb-2017"))
    assert str(quoted.value).endswith(
        " no trae los intereses de mora de una multa: Intereses de mora de la multa (Decreto "
        "706/2017 art. 11.1): El texto no fija la tasa. No se puede calcular una multa que se "
        "ajusta por IPC."
    )


def test_one_key_per_listed_base() -> None:
    data = program_data("geb-2017")
    data["multas"]["claves_bases"] = KEYS[:2]
    with pytest.raises(ValidationError, match="claves_bases debe tener una clave por cada"):
        Fines.model_validate(data["multas"])
    refusal = "multas: claves_bases debe tener una clave por cada entrada de bases"
    with pytest.raises(ProgramFileError, match=refusal):
        parse_program(data, "geb")
