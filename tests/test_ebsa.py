"""Worked examples for the EBSA program (natural persons; our text lacks price and offer).

The price is not in our text: the engine refuses to evaluate until the offer sets it.
"""

from __future__ import annotations

from datetime import date, datetime

import pytest

from democratiza.programs.parameters import OfferParameterError
from tests.helpers import entity, evaluate_one, pesos, worker

EBSA = "ebsa"
OFFER = {"precio": "850.00", "acciones_ofrecidas": "1000000000"}


def test_missing_price_is_refused_with_its_name() -> None:
    with pytest.raises(OfferParameterError) as exc:
        evaluate_one(EBSA, worker())
    assert "'precio'" in str(exc.value)


def test_num_2_net_worth_of_a_filer() -> None:
    # $ 100.000.000 / $ 850 = 117.647 acciones
    out = evaluate_one(EBSA, worker(cantidad=200_000), **OFFER)
    assert (out.permitted, out.binding) == (117_647, "ebsa-num.2")


def test_num_2_one_peso_below_the_limit() -> None:
    # 117.647 × $ 850 = $ 99.999.950; one peso less loses a share.
    at = evaluate_one(EBSA, worker(patrimonio_liquido=pesos(99_999_950), cantidad=117_647), **OFFER)
    below = evaluate_one(
        EBSA, worker(patrimonio_liquido=pesos(99_999_949), cantidad=117_647), **OFFER
    )
    assert (at.decision, below.decision, below.permitted) == ("aceptada", "reducida", 117_646)


def test_num_3_non_filer_income_only() -> None:
    # 5 × $ 10.000.000 / $ 850 = 58.823 acciones
    row = worker(
        obligado_declarar=False,
        patrimonio_liquido=None,
        ingresos_declaracion=None,
        ingresos_certificado=pesos(10_000_000),
        cantidad=60_000,
    )
    out = evaluate_one(EBSA, row, **OFFER)
    assert (out.permitted, out.binding) == (58_823, "ebsa-num.3")


def test_num_4_cap() -> None:
    row = worker(
        patrimonio_liquido=pesos(500_000_000_000),
        ingresos_declaracion=pesos(100_000_000_000),
        cantidad=200_000_000,
    )
    out = evaluate_one(EBSA, row, **OFFER)
    assert (out.permitted, out.binding) == (122_122_301, "ebsa-num.4")


def test_num_5_manager() -> None:
    # 5 × $ 60.000.000 / $ 850 = 352.941 acciones
    row = worker(
        directivo=True,
        remuneracion_anual=pesos(60_000_000),
        patrimonio_liquido=pesos(5_000_000_000),
        ingresos_declaracion=pesos(900_000_000),
        cantidad=400_000,
    )
    out = evaluate_one(EBSA, row, **OFFER)
    assert (out.permitted, out.binding) == (352_941, "ebsa-num.5-directivos")


def test_num_5_new_managers_need_not_be_linked_the_business_day_before_closing() -> None:
    # Num. 5 limits a manager not linked to EBSA at the decree's date to 5 × pay, and says no
    # more: unlike GEB 8.2.4 and Coltel 8.3(d), no linkage on the business day before the
    # term ends. Closing Monday 2018-02-26; this manager joined on Saturday 2018-02-24.
    row = worker(
        directivo=True,
        fecha_ingreso_directivo=date(2018, 2, 24),
        fecha_radicacion=datetime(2018, 2, 26, 9),
        remuneracion_anual=pesos(60_000_000),
        patrimonio_liquido=pesos(5_000_000_000),
        ingresos_declaracion=pesos(900_000_000),
        cantidad=400_000,
    )
    window = {"fecha_aviso": "2017-12-22", "fecha_cierre": "2018-02-26"}
    out = evaluate_one(EBSA, row, fecha_corte_directivos="2017-12-01", **window, **OFFER)
    assert out.causes == []
    assert (out.permitted, out.binding) == (352_941, "ebsa-num.5-directivos-nuevos")


def test_ex_worker_dismissed_for_just_cause() -> None:
    row = worker(
        categoria="extrabajador", estado_certificado="extrabajador", retiro_justa_causa=True
    )
    out = evaluate_one(EBSA, row, **OFFER)
    assert out.decision == "rechazada"
    assert any(code.startswith("justa_causa") for code in out.causes)


def test_legal_persons_are_not_in_our_text() -> None:
    out = evaluate_one(EBSA, entity("cooperativa"), **OFFER)
    assert out.causes[0] == "categoria_no_habilitada"


def test_undertaking_iv_missing() -> None:
    out = evaluate_one(EBSA, worker(compromiso_no_subrogar=False), **OFFER)
    assert out.causes == ["falta_compromiso:compromiso_no_subrogar"]
