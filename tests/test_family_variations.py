"""The family's variations, written in a program file with no code: worked examples.

``tests/programs/familia-ejemplo.yaml`` implements the example decree of fuentes.md §8: a
price of $ 1.000, 9.876.543 shares offered, acceptances of 100 shares or more in lots of 10,
and the limits: 10 × the monthly salary the employer certifies (every active worker), 50
minimum salaries of 2018 ($ 781.242, Decreto 2269/2017) for natural persons, $ 45.000.000
for employee funds and cooperatives, the certified investment limit for legal persons, 0,5 %
of the shares offered (rounded down) for everyone, and for who pays in instalments (20 %
down, 12 instalments) at most $ 8.000.000 financed. Pension funds together get at most 1 %
of the offer.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import polars as pl

from democratiza.programs.loader import load_program_file
from democratiza.programs.parameters import Offer, make_offer
from democratiza.rules.engine import CompiledProgram, frame_from_rows
from democratiza.rules.explain import Explainer
from tests.explain_reference import ReferenceExplainer
from tests.reference import reference_evaluate

FAMILY = Path(__file__).parent / "programs" / "familia-ejemplo.yaml"
EXAMPLE = "Decreto de ejemplo"


def offer() -> Offer:
    return make_offer(load_program_file(FAMILY))


def acceptance(number: int, category: str, quantity: int, **figures: Any) -> dict[str, Any]:
    natural = category in ("trabajador_activo", "pensionado")
    status = {"trabajador_activo": "activo", "pensionado": "pensionado"}.get(category)
    return {
        "referencia": f"EJ-{number:04d}",
        "comisionista": "Casa de Bolsa",
        "fecha_radicacion": datetime(2018, 1, 10, 9, number),
        "tipo_identificacion": "CC" if natural else "NIT",
        "numero_identificacion": str(80_000_000 + number),
        "nombre": f"Aceptante {number}",
        "categoria": category,
        "cantidad": quantity,
        "forma_pago": "contado",
        "estado_certificado": status,
        "compromiso_no_negociar": True,
        **figures,
    }


def decide(*rows: dict[str, Any]) -> tuple[pl.DataFrame, list[Any]]:
    compiled = CompiledProgram(offer())
    frame = frame_from_rows(list(rows))
    results = compiled.evaluate(frame)
    explained = list(Explainer(compiled).explain_all(results, frame))
    # The columnar explanations write, row for row, the plain reference's text.
    assert explained == list(ReferenceExplainer(compiled).explain_all(results, frame))
    pairs = zip(frame.iter_rows(named=True), results.iter_rows(named=True), strict=True)
    for row, decided in pairs:
        expected = reference_evaluate(compiled.offer, row)
        assert decided["cantidad_permitida"] == (
            0 if decided["decision"] == "rechazada" else expected.permitted
        )
    return results, explained


PESOS = 100  # centavos


def test_a_limit_on_the_salary_every_worker_s_employer_certifies() -> None:
    # 10 × $ 2.500.000 / $ 1.000 = 25.000 shares, below 50 SMMLV (39.062) and 0,5 % (49.382).
    results, [why] = decide(
        acceptance(1, "trabajador_activo", 30_000, salario_mensual=2_500_000 * PESOS)
    )
    assert results["cantidad_permitida"].to_list() == [25_000]
    assert results["regla_limitante"].to_list() == ["ej-4.1"]
    assert why.summary == (
        "Reducida de 30.000 a 25.000 acciones por el límite Diez veces el salario mensual "
        "certificado: 10 × $ 2.500.000 (salario mensual certificado por el empleador) / "
        f"$ 1.000 = 25.000 acciones ({EXAMPLE} art. 4.1), en lotes de 10 acciones "
        f"({EXAMPLE} art. 3.2)."
    )


def test_a_worker_without_the_salary_certificate_is_rejected_not_computed_on_zero() -> None:
    results, [why] = decide(acceptance(2, "trabajador_activo", 1_000))
    assert results["decision"].cast(pl.String).to_list() == ["rechazada"]
    assert why.causes == (
        "Falta el documento: Certificación del salario mensual por el empleador "
        f"({EXAMPLE} art. 4.1).",
        "No se puede calcular el límite «Diez veces el salario mensual certificado»: falta "
        f"salario mensual certificado por el empleador; no se calcula sobre cero ({EXAMPLE} "
        "art. 4.1).",
    )


def test_a_cap_in_minimum_salaries_of_a_stated_year() -> None:
    # 50 × $ 781.242 = $ 39.062.100 → 39.062 shares, taken down to whole lots: 39.060.
    results, [why] = decide(acceptance(3, "pensionado", 45_000))
    assert results["cantidad_permitida"].to_list() == [39_060]
    assert results["limite__ej-4.2"].to_list() == [39_062]
    assert why.limits[0] == (
        "Cincuenta salarios mínimos de 2018: 50 × $ 781.242 (salario mínimo mensual legal "
        "vigente de 2018, Decreto 2269/2017 art. 1) / $ 1.000 = 39.062 acciones "
        f"({EXAMPLE} art. 4.2)"
    )
    assert why.summary.startswith("Reducida de 45.000 a 39.060 acciones por el límite Cincuenta")


def test_a_cap_in_pesos() -> None:
    # $ 45.000.000 / $ 1.000 = 45.000 shares, below its certified investment limit (100.000).
    results, [why] = decide(
        acceptance(4, "cooperativa", 60_000, limite_inversion=100_000_000 * PESOS)
    )
    assert results["cantidad_permitida"].to_list() == [45_000]
    assert (
        f"Tope en pesos de fondos de empleados y cooperativas: $ 45.000.000 / $ 1.000 = "
        f"45.000 acciones ({EXAMPLE} art. 4.3)"
    ) in why.limits


def test_a_cap_as_a_percentage_of_the_shares_offered_rounded_as_the_file_says() -> None:
    # 0,5 % of 9.876.543 = 49.382,715 → rounded down 49.382 → in lots of 10: 49.380.
    results, [why] = decide(
        acceptance(5, "fondo_pensiones_cesantias", 60_000, limite_inversion=500_000_000 * PESOS)
    )
    assert results["limite__ej-4.5"].to_list() == [49_382]
    assert results["cantidad_permitida"].to_list() == [49_380]
    assert (
        "Medio por ciento de las acciones ofrecidas: 0,50 % de 9.876.543 acciones ofrecidas = "
        f"49.382 acciones, redondeado hacia abajo ({EXAMPLE} art. 4.5)"
    ) in why.limits


def test_a_minimum_per_acceptance_and_acceptances_only_in_whole_lots() -> None:
    results, (small, broken, zero) = decide(
        acceptance(6, "pensionado", 90),
        acceptance(7, "pensionado", 1_005),
        # A pension fund certifying $ 5.000: 5 shares, less than a lot, so nothing.
        acceptance(8, "fondo_pensiones_cesantias", 100, limite_inversion=5_000 * PESOS),
    )
    assert results["decision"].cast(pl.String).to_list() == ["rechazada"] * 3
    assert small.causes == (
        f"La cantidad es inferior al mínimo de 100 acciones por aceptación ({EXAMPLE} art. 3.1).",
    )
    assert broken.causes == (
        f"La cantidad no es un múltiplo del lote de 10 acciones ({EXAMPLE} art. 3.2).",
    )
    assert zero.causes == (
        "La cantidad permitida es cero: Límite legal y estatutario de inversión certificado: "
        f"1 × $ 5.000 (límite de inversión certificado) / $ 1.000 = 5 acciones ({EXAMPLE} "
        f"art. 4.4), en lotes de 10 acciones ({EXAMPLE} art. 3.2).",
    )


def test_payment_in_instalments_finances_at_most_the_maximum() -> None:
    # 20 % down: each share finances $ 800; $ 8.000.000 / $ 800 = 10.000 shares. The same
    # worker paying cash may buy up to 10 × $ 5.000.000 / $ 1.000 = 50.000 → 0,5 %: 49.380.
    salary = {"salario_mensual": 5_000_000 * PESOS}
    results, (instalments, cash) = decide(
        acceptance(9, "trabajador_activo", 20_000, forma_pago="cuotas", **salary),
        acceptance(10, "trabajador_activo", 20_000, **salary),
    )
    assert results["cantidad_permitida"].to_list() == [10_000, 20_000]
    assert results["limite__ej-5.4"].to_list() == [10_000, None]
    assert instalments.summary == (
        "Reducida de 20.000 a 10.000 acciones por el límite Saldo financiado en cuotas: "
        f"$ 8.000.000 / (80 % financiado × $ 1.000) = 10.000 acciones ({EXAMPLE} art. 5.4), "
        f"en lotes de 10 acciones ({EXAMPLE} art. 3.2)."
    )
    assert cash.summary == "Aceptada por 20.000 acciones: ningún límite es menor."
