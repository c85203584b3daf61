"""Worked examples for the Central de Seguros de Vida program (Fogafín, Primera Fase).

Two differences from the other programs: 2 × patrimonio líquido and 2 × Patrimonio
Ajustado, and no income limit for legal persons. Price set for the offer: $ 1.000.
"""

from __future__ import annotations

import pytest

from democratiza.programs.parameters import OfferParameterError
from tests.helpers import entity, evaluate_one, pesos, worker

CENTRAL = "central-seguros-vida"
OFFER = {"precio": "1000.00"}


def test_missing_price_is_refused() -> None:
    with pytest.raises(OfferParameterError, match="precio"):
        evaluate_one(CENTRAL, worker())


def test_a_2_i_twice_the_net_worth() -> None:
    # 2 × $ 50.000.000 / $ 1.000 = 100.000 acciones
    row = worker(patrimonio_liquido=pesos(50_000_000), cantidad=150_000)
    out = evaluate_one(CENTRAL, row, **OFFER)
    assert (out.permitted, out.binding) == (100_000, "central-a.2(i)")
    assert "2 × $ 50.000.000" in out.text


def test_a_2_i_exactly_at_and_one_peso_below() -> None:
    at = evaluate_one(
        CENTRAL, worker(patrimonio_liquido=pesos(50_000_000), cantidad=100_000), **OFFER
    )
    # 2 × $ 49.999.999 = $ 99.999.998 → 99.999 acciones
    below = evaluate_one(
        CENTRAL, worker(patrimonio_liquido=pesos(49_999_999), cantidad=100_000), **OFFER
    )
    assert (at.decision, below.permitted) == ("aceptada", 99_999)


def test_a_2_ii_income_of_a_non_filer() -> None:
    row = worker(
        obligado_declarar=False,
        patrimonio_liquido=None,
        ingresos_declaracion=None,
        ingresos_certificado=pesos(30_000_000),
        cantidad=200_000,
    )
    out = evaluate_one(CENTRAL, row, **OFFER)
    assert (out.permitted, out.binding) == (150_000, "central-a.2(ii)")


def test_a_2_ii_manager_five_times_pay() -> None:
    row = worker(
        directivo=True,
        remuneracion_anual=pesos(40_000_000),
        patrimonio_liquido=pesos(900_000_000),
        ingresos_declaracion=pesos(300_000_000),
        cantidad=300_000,
    )
    out = evaluate_one(CENTRAL, row, **OFFER)
    assert (out.permitted, out.binding) == (200_000, "central-a.2(ii)-directivos")


def test_a_2_iii_cap() -> None:
    row = worker(
        patrimonio_liquido=pesos(5_000_000_000),
        ingresos_declaracion=pesos(900_000_000),
        cantidad=1_000_000,
    )
    out = evaluate_one(CENTRAL, row, **OFFER)
    assert (out.permitted, out.binding) == (367_800, "central-a.2(iii)")


def test_b_4_i_twice_the_adjusted_equity_and_no_income_limit() -> None:
    # 2 × ($ 500 M - $ 300 M - $ 50 M) / $ 1.000 = 300.000 acciones; income is not a limit.
    row = entity(
        "cooperativa",
        activos_totales=pesos(500_000_000),
        pasivos_totales=pesos(300_000_000),
        superavit_valorizacion=pesos(50_000_000),
        ingresos_declaracion=pesos(1_000),
        obligado_declarar=True,
        cantidad=350_000,
    )
    out = evaluate_one(CENTRAL, row, **OFFER)
    assert (out.permitted, out.binding) == (300_000, "central-b.4(i)")


def test_b_3_investment_limit_of_a_fund() -> None:
    row = entity("fondo_empleados", limite_inversion=pesos(120_000_000), cantidad=200_000)
    out = evaluate_one(CENTRAL, row, **OFFER)
    assert (out.permitted, out.binding) == (120_000, "central-b.3")


def test_b_4_ii_cap_for_legal_persons() -> None:
    out = evaluate_one(CENTRAL, entity("fondo_pensiones_cesantias", cantidad=400_000), **OFFER)
    assert (out.permitted, out.binding) == (367_800, "central-b.4(ii)")


def test_no_sworn_statement_required_in_our_text() -> None:
    out = evaluate_one(CENTRAL, worker(declaracion_cuenta_propia=False), **OFFER)
    assert out.decision == "aceptada"


def test_undertaking_v_missing() -> None:
    out = evaluate_one(CENTRAL, worker(compromiso_aceptar_condiciones=False), **OFFER)
    assert out.causes == ["falta_compromiso:compromiso_aceptar_condiciones"]
