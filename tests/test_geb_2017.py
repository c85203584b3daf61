"""Worked examples for Decreto 706 de 2017 (GEB), each named after the article it tests.

Price: $ 2.018 per share (art. 6.2). A limit is the largest whole number of shares whose
value at that price does not exceed the limit amount.
"""

from __future__ import annotations

from datetime import date, datetime

import pytest

from democratiza.programs.loader import load_program
from democratiza.programs.parameters import OfferParameterError, make_offer
from democratiza.rules.engine import CompiledProgram, frame_from_rows
from democratiza.vocabulary import CATEGORIES, NATURAL_CATEGORIES, UNDERTAKINGS
from tests.helpers import entity, evaluate_one, pesos, worker

GEB = "geb-2017"
TRM = {"trm": "2984.00"}
WINDOW = {"fecha_aviso": "2017-12-22", "fecha_cierre": "2018-02-26"}


def test_art_8_2_1_net_worth_limits_a_filer() -> None:
    # 1 × $ 100.000.000 / $ 2.018 = 49.554,01… → 49.554 acciones
    out = evaluate_one(GEB, worker(cantidad=60_000))
    assert out.limit("geb-8.2.1") == 49_554
    assert (out.decision, out.permitted, out.binding) == ("reducida", 49_554, "geb-8.2.1")
    assert "1 × $ 100.000.000 (patrimonio líquido) / $ 2.018 = 49.554 acciones" in out.text
    assert "Decreto 706/2017 art. 8.2.1" in out.text


def test_art_8_2_1_exactly_at_the_limit_is_accepted() -> None:
    # $ 60.540.000 = 30.000 × $ 2.018: the limit is exactly the request.
    out = evaluate_one(GEB, worker(patrimonio_liquido=pesos(60_540_000), cantidad=30_000))
    assert (out.decision, out.permitted, out.binding) == ("aceptada", 30_000, None)


def test_art_8_2_1_one_peso_below_the_limit_loses_a_share() -> None:
    out = evaluate_one(GEB, worker(patrimonio_liquido=pesos(60_539_999), cantidad=30_000))
    assert (out.decision, out.permitted, out.binding) == ("reducida", 29_999, "geb-8.2.1")


def test_art_8_2_1_one_peso_above_the_limit_gains_nothing() -> None:
    out = evaluate_one(GEB, worker(patrimonio_liquido=pesos(60_540_001), cantidad=30_001))
    assert (out.decision, out.permitted) == ("reducida", 30_000)


def test_art_8_2_1_zero_net_worth_permits_nothing() -> None:
    out = evaluate_one(GEB, worker(patrimonio_liquido=0, cantidad=100))
    assert out.decision == "rechazada"
    assert out.causes == ["cantidad_permitida_cero"]
    assert out.binding == "geb-8.2.1"
    assert "1 × $ 0 (patrimonio líquido) / $ 2.018 = 0 acciones" in out.text


def test_art_8_2_2_non_filer_has_only_the_income_limit() -> None:
    # 5 × $ 20.000.000 / $ 2.018 = 49.554 acciones; no net-worth limit applies.
    out = evaluate_one(
        GEB,
        worker(
            obligado_declarar=False,
            patrimonio_liquido=None,
            ingresos_declaracion=None,
            ingresos_certificado=pesos(20_000_000),
            cantidad=50_000,
        ),
    )
    assert out.limit("geb-8.2.1") is None
    assert out.limit("geb-8.2.2") == 49_554
    assert (out.decision, out.permitted, out.binding) == ("reducida", 49_554, "geb-8.2.2")
    assert "ingresos del certificado de ingresos y retenciones" in out.text


def test_art_8_1_a_ii_non_filer_without_certificate_is_rejected_not_computed_on_zero() -> None:
    out = evaluate_one(
        GEB, worker(obligado_declarar=False, patrimonio_liquido=None, ingresos_declaracion=None)
    )
    assert out.decision == "rechazada"
    assert out.causes == ["falta_documento:certificado_ingresos", "falta_valor:geb-8.2.2"]
    assert "no se calcula sobre cero" in out.text


def test_art_8_1_a_iii_foreigner_income_in_dollars_at_the_offer_trm() -> None:
    # 5 × (US$ 20.000 × $ 2.984) / $ 2.018 = 5 × $ 59.680.000 / $ 2.018 = 147.869 acciones
    row = worker(
        extranjero=True,
        obligado_declarar=False,
        patrimonio_liquido=None,
        ingresos_declaracion=None,
        ingresos_usd=2_000_000,
        cantidad=200_000,
    )
    out = evaluate_one(GEB, row, **TRM)
    assert (out.decision, out.permitted, out.binding) == ("reducida", 147_869, "geb-8.2.2")
    assert "US$ 20.000 × TRM $ 2.984" in out.text


def test_art_8_2_1_applies_to_a_foreigner_obliged_to_file_a_colombian_return() -> None:
    # 8.2.1 binds every natural person obliged to declare; 8.1(a)(iii) adds the sworn USD
    # statement for foreigners who do not, it removes nothing. $ 100.000.000 / $ 2.018 =
    # 49.554 acciones; no USD statement is needed when the return is filed.
    row = worker(extranjero=True, tipo_identificacion="CE", cantidad=60_000)
    out = evaluate_one(GEB, row)
    assert (out.decision, out.permitted, out.binding) == ("reducida", 49_554, "geb-8.2.1")
    assert out.causes == []


def test_art_8_2_two_limits_giving_the_same_shares_both_bind() -> None:
    # 1 × $ 100.000.000 / $ 2.018 = 49.554 and 5 × $ 20.000.000 / $ 2.018 = 49.554: "se
    # tomará en cuenta el menor monto", and both are it. The first listed is recorded.
    row = worker(ingresos_declaracion=pesos(20_000_000), cantidad=60_000)
    out = evaluate_one(GEB, row)
    assert (out.decision, out.permitted, out.binding) == ("reducida", 49_554, "geb-8.2.1")
    summary = out.text.splitlines()[0]
    assert summary.startswith("Reducida de 60.000 a 49.554 acciones por los límites Una vez")
    assert "Cinco veces los ingresos anuales: 5 × $ 20.000.000" in summary
    assert summary.endswith("que dan la misma cantidad (se toma el menor monto).")


def test_art_8_1_a_iii_foreigner_needs_the_trm_set_for_the_offer() -> None:
    row = worker(extranjero=True, obligado_declarar=False, ingresos_usd=2_000_000)
    with pytest.raises(OfferParameterError, match="trm"):
        evaluate_one(GEB, row)


def test_art_8_2_3_manager_limited_to_five_times_annual_pay() -> None:
    # 5 × $ 120.000.000 / $ 2.018 = 297.324 acciones, below every other limit.
    row = worker(
        directivo=True,
        remuneracion_anual=pesos(120_000_000),
        patrimonio_liquido=pesos(10_000_000_000),
        ingresos_declaracion=pesos(1_000_000_000),
        cantidad=500_000,
    )
    out = evaluate_one(GEB, row)
    assert (out.decision, out.permitted, out.binding) == ("reducida", 297_324, "geb-8.2.3")
    assert out.limit("geb-8.2.4") is None


def test_art_8_1_c_manager_without_pay_certificate_is_rejected() -> None:
    out = evaluate_one(GEB, worker(directivo=True))
    assert out.causes == ["falta_documento:certificado_remuneracion", "falta_valor:geb-8.2.3"]


def test_art_8_2_4_new_manager_limited_by_pay_at_joining() -> None:
    row = worker(
        directivo=True,
        fecha_ingreso_directivo=date(2018, 1, 2),
        remuneracion_anual=pesos(120_000_000),
        patrimonio_liquido=pesos(10_000_000_000),
        ingresos_declaracion=pesos(1_000_000_000),
        cantidad=500_000,
    )
    out = evaluate_one(GEB, row, **WINDOW)
    assert out.limit("geb-8.2.3") is None
    assert (out.decision, out.permitted, out.binding) == ("reducida", 297_324, "geb-8.2.4")


def test_art_8_2_4_new_manager_not_linked_the_business_day_before_closing() -> None:
    # Closing Monday 2018-02-26: the business day before is Friday 2018-02-23.
    row = worker(
        directivo=True,
        fecha_ingreso_directivo=date(2018, 2, 24),
        fecha_radicacion=datetime(2018, 2, 26, 9),
        remuneracion_anual=pesos(120_000_000),
    )
    out = evaluate_one(GEB, row, **WINDOW)
    assert out.causes == ["directivo_nuevo_no_vinculado"]
    assert "2018-02-23" in out.text


def test_art_8_2_4_new_managers_need_the_closing_date() -> None:
    row = worker(
        directivo=True,
        fecha_ingreso_directivo=date(2018, 1, 2),
        remuneracion_anual=pesos(120_000_000),
    )
    with pytest.raises(OfferParameterError, match="fecha_cierre"):
        evaluate_one(GEB, row)


def test_art_3_1_b_ex_worker_dismissed_for_just_cause_is_rejected() -> None:
    row = worker(
        categoria="extrabajador", estado_certificado="extrabajador", retiro_justa_causa=True
    )
    out = evaluate_one(GEB, row)
    assert out.causes == ["justa_causa:extrabajador"]
    assert "justa causa" in out.text


def test_art_3_1_b_ex_worker_not_dismissed_for_just_cause_is_accepted() -> None:
    row = worker(
        categoria="extrabajador", estado_certificado="extrabajador", retiro_justa_causa=False
    )
    assert evaluate_one(GEB, row).decision == "aceptada"


def test_art_8_1_b_certificate_must_prove_the_category() -> None:
    out = evaluate_one(GEB, worker(categoria="pensionado", estado_certificado="activo"))
    assert out.causes == ["certificado_no_acredita:pensionado"]


@pytest.mark.parametrize("category", sorted(set(CATEGORIES) - NATURAL_CATEGORIES))
def test_art_9_2_1_every_kind_of_legal_person_limited_by_adjusted_equity(category: str) -> None:
    # Patrimonio Ajustado = 10.000 M - 4.000 M - 1.000 M = 5.000 M; / $ 2.018 = 2.477.700
    out = evaluate_one(GEB, entity(category, cantidad=3_000_000))
    assert out.limit("geb-9.2.1") == 2_477_700
    assert (out.decision, out.permitted, out.binding) == ("reducida", 2_477_700, "geb-9.2.1")


def test_art_9_2_1_valuation_surplus_is_subtracted() -> None:
    # Without the surplus the limit would be 6.000 M / 2.018 = 2.973.240; with it, 2.477.700.
    with_surplus = evaluate_one(GEB, entity())
    without = evaluate_one(GEB, entity(superavit_valorizacion=0))
    assert with_surplus.limit("geb-9.2.1") == 2_477_700
    assert without.limit("geb-9.2.1") == 2_973_240


def test_art_9_2_1_missing_surplus_is_not_taken_as_zero() -> None:
    out = evaluate_one(GEB, entity(superavit_valorizacion=None))
    assert out.causes == ["falta_valor:geb-9.2.1"]


def test_art_9_2_1_negative_adjusted_equity_permits_nothing() -> None:
    out = evaluate_one(GEB, entity(pasivos_totales=pesos(12_000_000_000)))
    assert out.decision == "rechazada"
    assert out.causes == ["cantidad_permitida_cero"]


def test_art_9_2_2_c_the_greater_of_two_incomes() -> None:
    # 5 × max($ 300 M, $ 350 M) / $ 2.018 = 867.195 acciones
    row = entity(
        ingresos_declaracion=pesos(300_000_000),
        ingresos_estados_financieros=pesos(350_000_000),
        cantidad=1_000_000,
    )
    out = evaluate_one(GEB, row)
    assert (out.permitted, out.binding) == (867_195, "geb-9.2.2")
    assert "ingresos de los estados financieros" in out.text


def test_art_9_2_3_certified_investment_limit() -> None:
    out = evaluate_one(GEB, entity(limite_inversion=pesos(1_000_000_000), cantidad=600_000))
    assert (out.permitted, out.binding) == (495_540, "geb-9.2.3")


def test_art_10_1_absolute_cap_binds_a_large_fund() -> None:
    row = entity(
        "fondo_pensiones_cesantias",
        activos_totales=pesos(900_000_000_000_000),
        ingresos_declaracion=pesos(90_000_000_000_000),
        limite_inversion=pesos(20_000_000_000_000),
        cantidad=5_000_000,
    )
    out = evaluate_one(GEB, row)
    assert (out.decision, out.permitted, out.binding) == ("reducida", 3_184_458, "geb-10.1")
    assert "tope de 3.184.458 acciones (Decreto 706/2017 art. 10.1)" in out.text


@pytest.mark.parametrize("undertaking", UNDERTAKINGS)
def test_art_10_2_every_missing_undertaking_rejects(undertaking: str) -> None:
    out = evaluate_one(GEB, worker(**{undertaking: False}))
    assert out.decision == "rechazada"
    assert out.causes == [f"falta_compromiso:{undertaking}"]


def test_art_10_2_all_causes_are_listed_not_just_the_first() -> None:
    row = worker(
        compromiso_no_negociar=False,
        compromiso_no_subrogar=None,
        categoria="extrabajador",
        estado_certificado="extrabajador",
        retiro_justa_causa=True,
        cantidad=0,
    )
    out = evaluate_one(GEB, row)
    assert set(out.causes) == {
        "justa_causa:extrabajador",
        "falta_compromiso:compromiso_no_negociar",
        "falta_compromiso:compromiso_no_subrogar",
        "cantidad_no_valida",
    }
    assert out.explanation.summary == "Rechazada: 4 causas."
    assert len(out.explanation.causes) == 4  # the four told, each with its article
    assert all("Decreto 706/2017" in cause for cause in out.explanation.causes)


def test_art_6_5_cesantias_only_for_natural_persons() -> None:
    assert evaluate_one(GEB, worker(forma_pago="cesantias")).decision == "aceptada"
    out = evaluate_one(GEB, entity(forma_pago="cesantias"))
    assert out.causes == ["forma_pago_reservada:cesantias"]


def test_art_12_b_fractional_quantity_is_rejected() -> None:
    out = evaluate_one(GEB, worker(cantidad=10, cantidad_fraccionaria=True))
    assert out.causes == ["cantidad_no_valida"]


def test_art_4_filing_outside_the_offer_window() -> None:
    # Aviso Friday 2017-12-22; the window opens the next business day, Tuesday 2017-12-26.
    early = evaluate_one(GEB, worker(fecha_radicacion=datetime(2017, 12, 25, 9)), **WINDOW)
    first = evaluate_one(GEB, worker(fecha_radicacion=datetime(2017, 12, 26, 9)), **WINDOW)
    last = evaluate_one(GEB, worker(fecha_radicacion=datetime(2018, 2, 26, 23, 59)), **WINDOW)
    late = evaluate_one(GEB, worker(fecha_radicacion=datetime(2018, 2, 27, 0, 1)), **WINDOW)
    assert [o.causes for o in (early, first, last, late)] == [
        ["fuera_de_plazo"],
        [],
        [],
        ["fuera_de_plazo"],
    ]


def test_art_6_2_the_fixed_price_cannot_be_overridden_by_an_offer() -> None:
    with pytest.raises(OfferParameterError, match="lo fija la norma"):
        evaluate_one(GEB, worker(), precio="2500")


def test_amounts_of_zero_or_below_are_rule_outcomes_not_file_errors() -> None:
    # A return with $ 0 of net worth (8.2.1) and a Patrimonio Ajustado below zero (9.2.1)
    # each leave 0 shares: rejected with that cause; the rest of the batch is evaluated.
    rows = [
        worker(referencia="A-1", patrimonio_liquido=0),
        entity(referencia="J-1", activos_totales=pesos(1_000), pasivos_totales=pesos(5_000)),
        worker(referencia="A-2", numero_identificacion="79000002"),
    ]
    offer = make_offer(load_program(GEB))
    results = CompiledProgram(offer).evaluate(frame_from_rows(rows))
    assert results["decision"].cast(str).to_list() == ["rechazada", "rechazada", "aceptada"]
    assert results["regla_limitante"].to_list() == ["geb-8.2.1", "geb-9.2.1", None]
