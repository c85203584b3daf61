"""Worked examples and properties of the Primera Etapa adjudication (fuentes.md §3).

Demands are each acceptant's valid permitted quantity, already in filing order (earliest
first). Every example gives the arithmetic in the comment; the properties check every
method against the plain ``Fraction`` reference in ``tests/adjudication_reference.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray
from pydantic import ValidationError

from democratiza.adjudication.adjudicate import (
    AdjudicationError,
    AllocationResult,
    allocate,
    allocate_program,
)
from democratiza.programs.schema import Allocation
from democratiza.vocabulary import METHODS, REMAINDERS, Method, Remainder
from tests.adjudication_reference import reference_allocate

CITA = {"norma": "fuentes", "ref": "§3"}


def shares(*values: int) -> NDArray[np.int64]:
    return np.array(values, dtype=np.int64)


def awards(result: AllocationResult) -> list[int]:
    return [int(a) for a in result.awards]


def percent_for(method: Method) -> int | None:
    return 25 if method == "lineal_proporcional" else None


# --- When demand fits (the decrees' rule) --------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_undersubscribed_everyone_gets_the_valid_quantity(method: Method) -> None:
    # Undersubscribed, as the GEB Primera Etapa was: 4.350 asked, 19.040.484 offered.
    out = allocate(
        shares(100, 250, 4_000), 19_040_484, method, "primero_radicado", 1, percent_for(method)
    )
    assert awards(out) == [100, 250, 4_000]
    assert (out.oversubscribed, out.level, out.prorate, out.left_over) == (False, None, None, 0)
    assert out.notes == (
        "Demanda válida de 4.350 acciones ≤ oferta de 19.040.484: "
        "cada aceptante recibe su cantidad permitida.",
    )


@pytest.mark.parametrize("method", METHODS)
def test_exactly_covered_is_not_oversubscribed(method: Method) -> None:
    # 100 + 250 + 4.000 = 4.350 = the offer.
    out = allocate(
        shares(100, 250, 4_000), 4_350, method, "mayor_solicitud", 1, percent_for(method)
    )
    assert awards(out) == [100, 250, 4_000]
    assert not out.oversubscribed


def test_undersubscribed_ignores_the_lot_size() -> None:
    # 150 is not a whole lot of 100, but everything asked fits: 150 + 1.000 ≤ 2.000.
    out = allocate(shares(150, 1_000), 2_000, "proporcional", "primero_radicado", unit=100)
    assert awards(out) == [150, 1_000]


def test_no_acceptants_and_zero_supply() -> None:
    assert awards(allocate(shares(), 1_000, "proporcional", "primero_radicado")) == []
    out = allocate(shares(0, 5), 0, "igualitario_redistribucion", "primero_radicado")
    assert awards(out) == [0, 0]
    assert out.level == 0


# --- Equal shares with redistribution --------------------------------------------------------


def test_water_filling_serves_small_requests_and_caps_large_ones_at_the_level() -> None:
    # 6.000 among 5: equal share 1.200 ≥ 100, serve it; 5.900 / 4 = 1.475 ≥ 300, serve;
    # 5.600 / 3 = 1.866,67 ≥ 1.000, serve; 4.600 / 2 = 2.300 < 5.000: the level is 2.300.
    out = allocate(
        shares(100, 300, 1_000, 5_000, 20_000),
        6_000,
        "igualitario_redistribucion",
        "primero_radicado",
    )
    assert awards(out) == [100, 300, 1_000, 2_300, 2_300]
    assert (out.level, out.left_over) == (2_300, 0)
    assert out.notes[1] == (
        "Igualitario con redistribución: nivel de 2.300 acciones; 3 aceptantes que pedían "
        "hasta el nivel reciben toda su cantidad y los demás el nivel."
    )


@pytest.mark.parametrize(
    ("remainder", "expected"),
    [
        # 6.001: level 2.300,5 → 2.300; one share over, to the earliest filed still short …
        ("primero_radicado", [100, 300, 1_000, 2_301, 2_300]),
        # … or to the largest request.
        ("mayor_solicitud", [100, 300, 1_000, 2_300, 2_301]),
    ],
)
def test_water_filling_left_over_share(remainder: Remainder, expected: list[int]) -> None:
    out = allocate(
        shares(100, 300, 1_000, 5_000, 20_000), 6_001, "igualitario_redistribucion", remainder
    )
    assert awards(out) == expected
    assert (out.level, out.left_over) == (2_300, 1)
    order = {
        "primero_radicado": "en orden de radicación",
        "mayor_solicitud": "de mayor a menor cantidad solicitada "
        "(a igual cantidad, por radicación)",
    }[remainder]
    assert out.notes[2] == (
        "Residuo del redondeo: 1 acción. Se reparte de una en una, nunca dos al mismo "
        f"aceptante, entre quienes aún no reciben toda su cantidad, {order}."
    )


def test_water_filling_level_below_every_request_is_the_equal_share() -> None:
    # 1.000 among 3, all asking more than 333: 333 each, one left to the earliest filed.
    out = allocate(shares(500, 400, 600), 1_000, "igualitario_redistribucion", "primero_radicado")
    assert awards(out) == [334, 333, 333]


# --- Proportional ----------------------------------------------------------------------------


def test_proportional_floors_and_hands_out_the_left_over() -> None:
    # 600 / 1.260 = 47,61 %: 10 → 4,76; 50 → 23,8; 200 → 95,2; 1.000 → 476,2.
    # Floors 4 + 23 + 95 + 476 = 598; 2 left, to the first two filed.
    out = allocate(shares(10, 50, 200, 1_000), 600, "proporcional", "primero_radicado")
    assert awards(out) == [5, 24, 95, 476]
    assert (out.level, out.prorate, out.left_over) == (None, (600, 1_260), 2)
    assert out.notes[1] == (
        "Proporcional: cada aceptante recibe 47,61 % de su cantidad, redondeado hacia abajo "
        "a acciones enteras."
    )


def test_proportional_left_over_to_the_largest_requests() -> None:
    out = allocate(shares(10, 50, 200, 1_000), 600, "proporcional", "mayor_solicitud")
    assert awards(out) == [4, 23, 96, 477]


def test_mayor_solicitud_ties_go_by_filing_order() -> None:
    # 10 / 3 = 3,33 each: 9 awarded, 1 left; three equal requests: the earliest filed.
    out = allocate(shares(5, 5, 5), 10, "proporcional", "mayor_solicitud")
    assert awards(out) == [4, 3, 3]


def test_proportional_beyond_int64_products_is_exact() -> None:
    # 3 × 10¹² × 10¹² overflows Int64; the prorate is done in Int128, still exact.
    demand = shares(3 * 10**12, 10**12 + 7, 5)
    out = allocate(demand, 10**12, "proporcional", "mayor_solicitud")
    assert (
        awards(out)
        == reference_allocate(demand.tolist(), 10**12, "proporcional", "mayor_solicitud").awards
    )
    assert out.total == 10**12


# --- Linear, then proportional (ACS over Unión Fenosa style) ---------------------------------


def test_linear_tranche_then_prorate_on_the_unfilled_demand() -> None:
    # Offer 8.065, 25 % linear: ⌊8.065 × 25 / 100⌋ = 2.016 among 5 = 403 each (or less).
    # Linear: 250 + 4 × 403 = 1.862. Rest 8.065 − 1.862 = 6.203 on the unfilled
    # 0 + 97 + 597 + 4.597 + 11.347 = 16.638, i.e. 37,28 %:
    # 97 → 36,16; 597 → 222,57; 4.597 → 1.713,86; 11.347 → 4.230,40. Floors 6.201;
    # 2 left, to the earliest filed still short (the 500 and the 1.000).
    out = allocate(
        shares(250, 500, 1_000, 5_000, 11_750),
        8_065,
        "lineal_proporcional",
        "primero_radicado",
        linear_percent=25,
    )
    assert awards(out) == [250, 440, 626, 2_116, 4_633]
    assert (out.level, out.prorate, out.left_over) == (403, (6_203, 16_638), 2)
    assert out.total == 8_065
    assert out.notes[1:3] == (
        "Tramo lineal: el 25 % de la oferta se reparte por igual entre 5 aceptantes: 403 "
        "acciones cada uno, o su cantidad si es menor.",
        "Tramo proporcional: 6.203 acciones sobre la demanda no atendida de 16.638 "
        "(37,28 %), redondeado hacia abajo a acciones enteras.",
    )


def test_linear_then_prorate_left_over_to_the_largest() -> None:
    out = allocate(
        shares(250, 500, 1_000, 5_000, 11_750),
        8_065,
        "lineal_proporcional",
        "mayor_solicitud",
        linear_percent=25,
    )
    assert awards(out) == [250, 439, 625, 2_117, 4_634]


def test_linear_needs_its_percentage() -> None:
    with pytest.raises(AdjudicationError, match="necesita porcentaje_lineal"):
        allocate(shares(10, 20), 5, "lineal_proporcional", "primero_radicado")


def test_linear_percentage_is_refused_for_other_methods() -> None:
    with pytest.raises(AdjudicationError, match="solo se usa con el método lineal"):
        allocate(shares(10, 20), 5, "proporcional", "primero_radicado", linear_percent=25)


def test_linear_100_percent_is_water_filling_without_redistribution() -> None:
    # All 90 linear: ⌊90 / 3⌋ = 30 each or less → 10, 30, 30; the 20 the first did not need
    # are prorated on the unfilled 20 + 70 = 90: 40 → 4,44 → 4 and 70 → 15,56 → 15; 1 left.
    out = allocate(
        shares(10, 50, 100), 90, "lineal_proporcional", "primero_radicado", linear_percent=100
    )
    assert awards(out) == [10, 35, 45]


# --- Lots ------------------------------------------------------------------------------------


def test_lots_of_100_water_filling() -> None:
    # 7.700 asked > 5.050 offered. Lots: 1, 10, 25, 40 (the 50 of the 150 are not a lot);
    # offer 50 lots (50 shares unsold). 50 / 4 = 12,5 ≥ 1; 49 / 3 = 16,3 ≥ 10; 39 / 2 = 19,5
    # < 25: level 19 lots; 1 + 10 + 19 + 19 = 49, 1 lot left to the earliest short (the 25).
    out = allocate(
        shares(150, 1_000, 2_550, 4_000),
        5_050,
        "igualitario_redistribucion",
        "primero_radicado",
        unit=100,
    )
    assert awards(out) == [100, 1_000, 2_000, 1_900]
    assert (out.level, out.left_over, out.total) == (1_900, 100, 5_000)
    assert out.notes[-1].startswith(
        "Residuo del redondeo: 1 lote de 100 acciones. Se reparte de uno en uno"
    )
    assert out.notes[1] == (
        "Se adjudica en lotes de 100 acciones: la demanda cuenta en lotes completos (76 lotes, "
        "7.600 acciones) y la oferta en 50 lotes (5.000 acciones); 100 acciones pedidas que "
        "no completan un lote no se adjudican; 50 acciones de la oferta que no completan un "
        "lote no se venden."
    )


@pytest.mark.parametrize(
    ("remainder", "expected"),
    [
        # 50 / 76 of 1, 10, 25, 40 lots: 0,66; 6,58; 16,45; 26,3 → 0 + 6 + 16 + 26 = 48.
        ("primero_radicado", [100, 700, 1_600, 2_600]),
        ("mayor_solicitud", [0, 600, 1_700, 2_700]),
    ],
)
def test_lots_of_100_proportional(remainder: Remainder, expected: list[int]) -> None:
    out = allocate(shares(150, 1_000, 2_550, 4_000), 5_050, "proporcional", remainder, unit=100)
    assert awards(out) == expected
    assert out.prorate == (5_000, 7_600)


def test_oversubscribed_in_shares_but_not_in_whole_lots() -> None:
    # 150 + 150 > 250, but in lots of 100 it is 1 + 1 ≤ 2: one lot each, 50 unsold.
    out = allocate(
        shares(150, 150), 250, "igualitario_redistribucion", "primero_radicado", unit=100
    )
    assert awards(out) == [100, 100]
    assert out.oversubscribed and out.level is None
    assert out.notes[-1] == (
        "La demanda en lotes completos cabe en la oferta: cada aceptante recibe sus lotes "
        "completos."
    )


# --- The program file and the checks on the input -------------------------------------------


def test_allocate_program_reads_the_program_rule() -> None:
    rule = Allocation.model_validate(
        {
            "metodo": "lineal_proporcional",
            "residuo": "mayor_solicitud",
            "lote_acciones": 1,
            "porcentaje_lineal": 25,
            "cita": CITA,
        }
    )
    out = allocate_program(shares(250, 500, 1_000, 5_000, 11_750), 8_065, rule)
    assert awards(out) == [250, 439, 625, 2_117, 4_634]


@pytest.mark.parametrize("percent", [0, 101])
def test_program_file_linear_percentage_between_1_and_100(percent: int) -> None:
    with pytest.raises(ValidationError):
        Allocation.model_validate(
            {
                "metodo": "lineal_proporcional",
                "residuo": "primero_radicado",
                "porcentaje_lineal": percent,
                "cita": CITA,
            }
        )


def test_program_file_linear_without_percentage_is_refused_when_adjudicating() -> None:
    rule = Allocation.model_validate(
        {"metodo": "lineal_proporcional", "residuo": "primero_radicado", "cita": CITA}
    )
    with pytest.raises(AdjudicationError, match="porcentaje_lineal"):
        allocate_program(shares(10, 20), 5, rule)


@pytest.mark.parametrize(
    ("demand", "supply", "kwargs", "message"),
    [
        (shares(10, -1), 5, {}, "negativas"),
        (np.array([1.5, 2.0]), 5, {}, "cantidades enteras"),
        (np.array([[1, 2]]), 5, {}, "vector"),
        (shares(10), -1, {}, "oferta"),
        (shares(10), 5, {"unit": 0}, "lote"),
        (shares(10), 5, {"method": "sorteo"}, "método"),
        (shares(10), 5, {"remainder": "azar"}, "residuo"),
        (shares(2**62, 2**62), 5, {}, "demanda total"),
    ],
)
def test_bad_input_is_refused(
    demand: NDArray[Any], supply: int, kwargs: dict[str, Any], message: str
) -> None:
    arguments: dict[str, Any] = {"method": "proporcional", "remainder": "primero_radicado"}
    with pytest.raises(AdjudicationError, match=message):
        allocate(demand, supply, **(arguments | kwargs))


def test_awards_are_read_only_and_the_demand_untouched() -> None:
    demand = shares(10, 50, 200, 1_000)
    out = allocate(demand, 600, "proporcional", "primero_radicado")
    assert not out.awards.flags.writeable
    assert demand.tolist() == [10, 50, 200, 1_000]


def test_other_integer_types_are_accepted() -> None:
    out = allocate(
        np.array([10, 50], dtype=np.uint16), 30, "igualitario_redistribucion", "primero_radicado"
    )
    assert out.awards.dtype == np.int64
    assert awards(out) == [10, 20]


# --- Properties, against the Fraction reference ----------------------------------------------


@st.composite
def offers(draw: st.DrawFn) -> dict[str, Any]:
    """A random offer: small demands (many ties), sometimes huge ones, any supply."""
    size = st.integers(0, 2_000) | st.integers(0, 20) | st.integers(0, 10**13)
    demand = draw(st.lists(size, max_size=30))
    method = draw(st.sampled_from(METHODS))
    return {
        "demand": demand,
        "supply": draw(st.integers(0, sum(demand) + 50)),
        "method": method,
        "remainder": draw(st.sampled_from(REMAINDERS)),
        "unit": draw(st.sampled_from([1, 1, 2, 3, 10, 100])),
        "linear_percent": draw(st.integers(1, 100)) if method == "lineal_proporcional" else None,
    }


def run(offer: dict[str, Any], demand: list[int] | None = None) -> AllocationResult:
    arguments = offer | {
        "demand": np.array(offer["demand"] if demand is None else demand, dtype=np.int64)
    }
    return allocate(**arguments)


@settings(max_examples=300, deadline=None)
@given(offers())
def test_agrees_with_the_fraction_reference(offer: dict[str, Any]) -> None:
    out = run(offer)
    expected = reference_allocate(**offer)
    assert awards(out) == expected.awards
    assert out.level == expected.level


@settings(max_examples=200, deadline=None)
@given(offers())
def test_total_bounds_and_floors(offer: dict[str, Any]) -> None:
    demand, supply, unit = offer["demand"], offer["supply"], offer["unit"]
    out = run(offer)
    got = awards(out)
    assert all(0 <= a <= d for a, d in zip(got, demand, strict=True))
    lots = [d // unit for d in demand]
    if sum(demand) <= supply:
        assert got == demand
        return
    assert out.total == unit * min(supply // unit, sum(lots))
    assert all(a % unit == 0 for a in got)
    # Nobody is below the method's floor: the equal share, the prorate, the linear tranche.
    acceptants = len([x for x in lots if x > 0])
    supply_lots, total_lots = supply // unit, sum(lots)
    if offer["method"] == "igualitario_redistribucion" and total_lots > supply_lots:
        floors = [min(x, supply_lots // acceptants) for x in lots]
    elif offer["method"] == "proporcional" and total_lots > supply_lots:
        floors = [x * supply_lots // total_lots for x in lots]
    elif offer["method"] == "lineal_proporcional" and total_lots > supply_lots:
        each = supply_lots * offer["linear_percent"] // 100 // acceptants
        floors = [min(x, each) for x in lots]
    else:
        floors = lots
    assert all(a >= f * unit for a, f in zip(got, floors, strict=True))


@settings(max_examples=150, deadline=None)
@given(offers(), st.randoms(use_true_random=False))
def test_order_only_decides_the_left_over_lots(offer: dict[str, Any], rnd: Any) -> None:
    demand = offer["demand"]
    out = run(offer)
    assert awards(run(offer)) == awards(out)  # deterministic
    order = list(range(len(demand)))
    rnd.shuffle(order)
    shuffled_demand = [demand[i] for i in order]
    shuffled = run(offer, shuffled_demand)
    back = [0] * len(demand)
    for position, i in enumerate(order):
        back[i] = int(shuffled.awards[position])
    # Same total; each acceptant differs by at most the one left-over lot.
    assert sum(back) == out.total
    assert all(abs(a - b) <= offer["unit"] for a, b in zip(back, awards(out), strict=True))
    # Un-permuting the permuted demand gives back the same array, hence the same awards.
    restored = [0] * len(demand)
    for position, i in enumerate(order):
        restored[i] = shuffled_demand[position]
    assert awards(run(offer, restored)) == awards(out)
    # Where every demand differs, the largest-request rule needs no tie-break at all.
    if offer["remainder"] == "mayor_solicitud" and len(set(demand)) == len(demand):
        assert back == awards(out)


@settings(max_examples=150, deadline=None)
@given(offers())
def test_equal_demands_differ_only_by_a_left_over_lot(offer: dict[str, Any]) -> None:
    # Acceptants asking the same are told apart only by filing order: their awards differ by
    # at most one lot, and the earlier filed never gets less. Under "mayor_solicitud" too,
    # since equal requests go by filing order.
    out = run(offer)
    groups: dict[int, list[int]] = {}
    for i, d in enumerate(offer["demand"]):
        groups.setdefault(d, []).append(i)
    for members in groups.values():
        in_order = [int(out.awards[i]) for i in members]
        assert in_order == sorted(in_order, reverse=True)
        assert in_order[0] - in_order[-1] <= offer["unit"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("remainder", REMAINDERS)
def test_agrees_with_the_reference_on_a_larger_seeded_offer(
    method: Method, remainder: Remainder
) -> None:
    rng = np.random.default_rng(226)
    demand = np.concatenate(
        [rng.integers(1, 500, 2_500), rng.integers(1, 200_000, 500), rng.integers(0, 5, 500)]
    ).astype(np.int64)
    supply = int(demand.sum()) * 2 // 5
    percent = percent_for(method)
    for unit in (1, 100):
        out = allocate(demand, supply, method, remainder, unit, percent)
        expected = reference_allocate(demand.tolist(), supply, method, remainder, unit, percent)
        assert awards(out) == expected.awards
        assert out.level == expected.level
