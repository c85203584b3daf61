"""Worked examples for Decreto 1215 de 2018 (Coltel), arts. 8 and 9.

Price: $ 2.075,31 per share (aviso of 2 Aug 2018, fuentes.md §1); the arithmetic runs on
centavos, so a limit is the largest n with n × 207.531 centavos ≤ the limit amount.
"""

from __future__ import annotations

from datetime import date, datetime

import pytest

from tests.helpers import entity, evaluate_one, pesos, worker

COLTEL = "coltel-2018"


def coltel_worker(**changes: object) -> dict[str, object]:
    # Art. 8.2(b): the employer's certificate is dated within the month before filing.
    dated = {"fecha_radicacion": datetime(2018, 9, 3, 10), "fecha_certificado": date(2018, 8, 20)}
    return worker(**{**dated, **changes})


def test_art_8_3_a_net_worth_at_the_adjusted_price() -> None:
    # $ 100.000.000 / $ 2.075,31 = 48.185,5… → 48.185 acciones
    out = evaluate_one(COLTEL, coltel_worker(cantidad=50_000))
    assert (out.decision, out.permitted, out.binding) == ("reducida", 48_185, "coltel-8.3(a)")
    assert "/ $ 2.075,31 = 48.185 acciones" in out.text


def test_art_8_3_b_non_filer_income_from_the_certificate() -> None:
    # 5 × $ 80.000.000 / $ 2.075,31 = 192.742 acciones
    row = coltel_worker(
        obligado_declarar=False,
        patrimonio_liquido=None,
        ingresos_declaracion=None,
        ingresos_certificado=pesos(80_000_000),
        cantidad=200_000,
    )
    out = evaluate_one(COLTEL, row)
    assert (out.permitted, out.binding) == (192_742, "coltel-8.3(b)")
    assert out.limit("coltel-8.3(a)") is None


def test_art_8_2_a_ii_voluntary_return_replaces_the_certificate() -> None:
    row = coltel_worker(obligado_declarar=False, ingresos_certificado=None, cantidad=100)
    out = evaluate_one(COLTEL, row)
    assert out.decision == "aceptada"
    assert out.limit("coltel-8.3(a)") is None  # the net-worth limit binds only obliged filers


def test_art_8_2_c_remuneracion_anual_of_a_manager_in_post_under_a_year() -> None:
    # Under 12 months: monthly pay × 12 = $ 180.000.000; × 5 / $ 2.075,31 = 433.670 acciones
    row = coltel_worker(
        directivo=True,
        salario_mensual=pesos(15_000_000),
        meses_en_cargo=8,
        patrimonio_liquido=pesos(5_000_000_000),
        ingresos_declaracion=pesos(1_000_000_000),
        cantidad=1_000_000,
    )
    out = evaluate_one(COLTEL, row)
    assert (out.permitted, out.binding) == (433_670, "coltel-8.3(c)")
    assert "salario mensual × 12" in out.text


@pytest.mark.parametrize(
    ("months", "permitted", "figure"),
    [
        # 8.2(c)(2), under 12 months: monthly salary × 12 = $ 120.000.000, even when the
        # certificate also states the year's total; 5 × $ 120.000.000 / $ 2.075,31 = 289.113
        (8, 289_113, "salario mensual × 12"),
        (11, 289_113, "salario mensual × 12"),
        # 8.2(c)(1), 12 months or more: what was earned in the 12 months before the
        # certificate, $ 50.000.000; 5 × $ 50.000.000 / $ 2.075,31 = 120.463
        (12, 120_463, "remuneración anual"),
        (13, 120_463, "remuneración anual"),
    ],
)
def test_art_8_2_c_the_figure_follows_the_time_in_post(
    months: int, permitted: int, figure: str
) -> None:
    row = coltel_worker(
        directivo=True,
        remuneracion_anual=pesos(50_000_000),
        salario_mensual=pesos(10_000_000),
        meses_en_cargo=months,
        patrimonio_liquido=pesos(5_000_000_000),
        ingresos_declaracion=pesos(1_000_000_000),
        cantidad=1_000_000,
    )
    out = evaluate_one(COLTEL, row)
    assert (out.permitted, out.binding) == (permitted, "coltel-8.3(c)")
    assert figure in out.text


def test_art_8_2_c_under_a_year_in_post_needs_the_monthly_salary() -> None:
    row = coltel_worker(directivo=True, remuneracion_anual=pesos(50_000_000), meses_en_cargo=8)
    out = evaluate_one(COLTEL, row)
    assert out.causes == ["falta_valor:coltel-8.3(c)"]


def test_art_8_2_c_a_year_or_more_in_post_needs_the_twelve_month_total() -> None:
    row = coltel_worker(directivo=True, salario_mensual=pesos(15_000_000), meses_en_cargo=14)
    out = evaluate_one(COLTEL, row)
    assert out.causes == ["falta_valor:coltel-8.3(c)"]


def test_art_8_3_c_manager_with_certified_annual_pay() -> None:
    # 5 × $ 120.000.000 / $ 2.075,31 = 289.113 acciones
    row = coltel_worker(
        directivo=True,
        remuneracion_anual=pesos(120_000_000),
        meses_en_cargo=30,
        patrimonio_liquido=pesos(5_000_000_000),
        ingresos_declaracion=pesos(1_000_000_000),
        cantidad=1_000_000,
    )
    assert evaluate_one(COLTEL, row).permitted == 289_113


def test_art_8_3_d_new_manager_after_the_aviso() -> None:
    params = {"fecha_corte_directivos": "2018-08-02", "fecha_cierre": "2018-10-05"}
    row = coltel_worker(
        directivo=True,
        fecha_ingreso_directivo=date(2018, 8, 15),
        remuneracion_anual=pesos(120_000_000),
        patrimonio_liquido=pesos(5_000_000_000),
        ingresos_declaracion=pesos(1_000_000_000),
        cantidad=1_000_000,
    )
    out = evaluate_one(COLTEL, row, **params)
    assert (out.permitted, out.binding) == (289_113, "coltel-8.3(d)")
    assert out.limit("coltel-8.3(c)") is None


def test_art_8_2_b_employer_certificate_older_than_a_month_is_rejected() -> None:
    out = evaluate_one(COLTEL, coltel_worker(fecha_certificado=date(2018, 8, 2)))
    assert out.causes == ["documento_vencido:certificado_laboral"]
    fresh = evaluate_one(COLTEL, coltel_worker(fecha_certificado=date(2018, 8, 3)))
    assert fresh.causes == []


def test_art_8_3_e_cap_for_natural_persons() -> None:
    row = coltel_worker(
        patrimonio_liquido=pesos(50_000_000_000),
        ingresos_declaracion=pesos(10_000_000_000),
        cantidad=6_000_000,
    )
    out = evaluate_one(COLTEL, row)
    assert (out.permitted, out.binding) == (5_541_347, "coltel-8.3(e)")


def test_art_9_4_a_adjusted_equity_with_valuation_surplus() -> None:
    # (10.000 M - 4.000 M - 1.000 M) / $ 2.075,31 = 2.409.278 acciones
    out = evaluate_one(COLTEL, entity("cooperativa", cantidad=3_000_000))
    assert (out.permitted, out.binding) == (2_409_278, "coltel-9.4(a)")


def test_art_9_4_b_greater_of_two_incomes() -> None:
    # 5 × max($ 300 M, $ 280 M) / $ 2.075,31 = 722.783 acciones
    row = entity(
        "sindicato",
        ingresos_declaracion=pesos(300_000_000),
        ingresos_estados_financieros=pesos(280_000_000),
        cantidad=1_000_000,
    )
    out = evaluate_one(COLTEL, row)
    assert (out.permitted, out.binding) == (722_783, "coltel-9.4(b)")
    assert "ingresos de la declaración" in out.text


def test_art_9_4_c_cap_for_legal_persons() -> None:
    row = entity(
        "fondo_pensiones_cesantias",
        activos_totales=pesos(900_000_000_000_000),
        ingresos_declaracion=pesos(90_000_000_000_000),
        limite_inversion=pesos(90_000_000_000_000),
        cantidad=9_000_000,
    )
    out = evaluate_one(COLTEL, row)
    assert (out.permitted, out.binding) == (5_541_347, "coltel-9.4(c)")


def test_art_8_6_missing_undertaking_and_art_8_8_sworn_statement() -> None:
    out = evaluate_one(
        COLTEL, coltel_worker(compromiso_no_dar_en_pago=False, declaracion_cuenta_propia=False)
    )
    assert out.causes == [
        "falta_compromiso:compromiso_no_dar_en_pago",
        "falta_compromiso:declaracion_cuenta_propia",
    ]
