"""Worked examples and properties of the Segunda Etapa clearing (fuentes.md §4).

Prices are centavos per share (the GEB minimum price, COP 2.018, is 201.800), quantities are
shares. Every example gives the arithmetic in the comment; the properties check both
mechanisms against the plain ``Fraction`` reference in ``tests/clearing_reference.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from democratiza.stages.clearing import (
    ALL_BELOW_MINIMUM,
    NO_ORDERS,
    ClearingError,
    ClearingResult,
    clear,
    demand_curve,
    dutch_price,
)
from democratiza.vocabulary import MECHANISMS, Mechanism
from tests.clearing_reference import reference_clear, reference_demand_curve

MINIMUM = 201_800  # COP 2.018 in centavos


def column(*values: int) -> NDArray[np.int64]:
    return np.array(values, dtype=np.int64)


def ranks(n: int) -> NDArray[np.int64]:
    return np.arange(n, dtype=np.int64)


def allocations(result: ClearingResult) -> list[int]:
    return [int(a) for a in result.allocations]


def dutch(
    prices: NDArray[np.int64],
    quantities: NDArray[np.int64],
    offered: int,
    lot: int = 1,
    entry: NDArray[np.int64] | None = None,
) -> ClearingResult:
    entry = ranks(prices.size) if entry is None else entry
    return clear(prices, quantities, entry, offered, MINIMUM, lot, "subasta_holandesa")


def book(
    prices: NDArray[np.int64],
    quantities: NDArray[np.int64],
    offered: int,
    cutoff: int,
    lot: int = 1,
    entry: NDArray[np.int64] | None = None,
) -> ClearingResult:
    entry = ranks(prices.size) if entry is None else entry
    return clear(prices, quantities, entry, offered, MINIMUM, lot, "construccion_libro", cutoff)


# --- Dutch auction: undersubscribed ----------------------------------------------------------


def test_dutch_undersubscribed_everyone_filled_at_the_minimum_price() -> None:
    # Demand at COP 2.018 or more: 300.000 + 200.000 + 100.000 = 600.000 < 1.000.000 offered.
    # No price covers the offer: the price is the minimum and every order at or above it is
    # filled. The order at COP 2.000 is below the minimum and gets nothing.
    out = dutch(
        column(210_000, 205_000, 201_800, 200_000),
        column(300_000, 200_000, 100_000, 50_000),
        1_000_000,
    )
    assert out.price == MINIMUM
    assert allocations(out) == [300_000, 200_000, 100_000, 0]
    assert (out.demand_at_price, out.filled_above, out.prorated_at_price) == (
        100_000,
        500_000,
        None,
    )
    assert (out.void, out.reason, out.total) == (False, None, 600_000)
    assert out.notes == (
        "Subasta holandesa: la demanda a precio mínimo o superior (600.000 acciones) no cubre "
        "la oferta de 1.000.000: se adjudica a cada orden su cantidad al precio mínimo de "
        "$ 2.018 por acción.",
        "2 órdenes a precio superior reciben su cantidad completa: 500.000 acciones.",
        "1 orden al precio recibe su cantidad completa: 100.000 acciones.",
        "1 orden por debajo del precio mínimo: sin acciones.",
        "Todas las órdenes adjudicadas pagan el precio único de $ 2.018 por acción: "
        "600.000 acciones por $ 1.210.800.000.",
        "Quedan 400.000 acciones de la oferta sin adjudicar.",
    )


def test_dutch_undersubscribed_with_no_order_at_the_minimum() -> None:
    # 300.000 + 200.000 = 500.000 < 500.001: the price drops to the minimum, COP 2.018, though
    # nobody bid it; everyone is filled. (With 500.000 offered the price is COP 2.050, the
    # marginal bid: see the exactly covered example. That jump is the rule as stated.)
    out = dutch(column(210_000, 205_000), column(300_000, 200_000), 500_001)
    assert out.price == MINIMUM
    assert allocations(out) == [300_000, 200_000]
    assert (out.demand_at_price, out.filled_above) == (0, 500_000)


# --- Dutch auction: exactly covered ----------------------------------------------------------


def test_dutch_exactly_covered_price_is_the_marginal_bid() -> None:
    # Down from the top: 300.000 at COP 2.100 < 500.000; + 200.000 at COP 2.050 = 500.000,
    # which covers the offer: the price is COP 2.050. Both orders are filled in full; the
    # 100.000 at COP 2.018 are below the price and get nothing.
    out = dutch(
        column(210_000, 205_000, 201_800), column(300_000, 200_000, 100_000), 500_000, lot=100
    )
    assert out.price == 205_000
    assert allocations(out) == [300_000, 200_000, 0]
    assert (out.demand_at_price, out.filled_above, out.prorated_at_price) == (
        200_000,
        300_000,
        None,
    )
    assert out.notes[0] == (
        "Subasta holandesa: precio de adjudicación de $ 2.050 por acción, el mayor precio al "
        "que la demanda a ese precio o superior (500.000 acciones) cubre la oferta de 500.000; "
        "por encima de él la demanda es de 300.000 acciones."
    )
    assert "1 orden con precio inferior al de adjudicación: sin acciones." in out.notes
    assert out.total == 500_000


def test_dutch_exactly_covered_at_the_minimum_price() -> None:
    # 300.000 + 200.000 + 100.000 = 600.000 = the offer, reached at COP 2.018.
    out = dutch(column(210_000, 205_000, 201_800), column(300_000, 200_000, 100_000), 600_000)
    assert out.price == MINIMUM
    assert allocations(out) == [300_000, 200_000, 100_000]
    assert out.notes[-1].endswith("600.000 acciones por $ 1.210.800.000.")


def test_dutch_orders_at_the_price_that_fit_are_filled_in_shares() -> None:
    # Lots of 100, but the orders at the price exactly complete the offer: 250 + 100 + 75 =
    # 425; nobody is prorated, so the odd 75 shares are filled as asked.
    out = dutch(column(210_000, 205_000, 205_000), column(250, 100, 75), 425, lot=100)
    assert out.price == 205_000
    assert allocations(out) == [250, 100, 75]


# --- Dutch auction: oversubscribed, prorate at the margin ------------------------------------


def test_dutch_oversubscribed_prorate_in_lots_at_the_margin() -> None:
    # Offer 1.000.000 in lots of 100. Down the book: 300.000 at COP 2.100; 550.000 with
    # COP 2.060; 1.100.000 with COP 2.050 ≥ 1.000.000: the price is COP 2.050.
    # Above it 550.000, filled in full. Left for the orders at COP 2.050: 450.000 = 4.500 lots.
    # They ask, in whole lots: 150.050 → 1.500, 300.000 → 3.000, 99.950 → 999: 5.499 lots.
    # Floors of lots × 4.500 / 5.499: 1.227,49 → 1.227; 2.454,99 → 2.454; 817,51 → 817;
    # 4.498 in all, 2 lots left: to the largest orders, 300.000 and then 150.050.
    # The order at COP 2.030 is below the price, the one at COP 2.000 below the minimum.
    out = dutch(
        column(210_000, 206_000, 205_000, 205_000, 205_000, 203_000, 200_000),
        column(300_000, 250_000, 150_050, 300_000, 99_950, 100_000, 50_000),
        1_000_000,
        lot=100,
        entry=column(0, 1, 3, 2, 4, 5, 6),
    )
    assert out.price == 205_000
    assert allocations(out) == [300_000, 250_000, 122_800, 245_500, 81_700, 0, 0]
    assert (out.demand_at_price, out.filled_above, out.total) == (550_000, 550_000, 1_000_000)
    assert out.prorated_at_price == (450_000, 549_900)
    assert out.notes[1:] == (
        "2 órdenes a precio superior reciben su cantidad completa: 550.000 acciones.",
        "3 órdenes al precio piden 550.000 acciones y quedan 450.000 por adjudicar: se prorratean.",
        "Se adjudica en lotes de 100 acciones: estas órdenes cuentan sus lotes completos "
        "(5.499 lotes) y lo disponible son 4.500 lotes; 100 acciones pedidas que no completan "
        "un lote no se adjudican.",
        "Prorrateo: cada orden recibe el 81,83 % de lo que pide, redondeado hacia abajo a "
        "lotes completos de 100 acciones.",
        "Residuo del redondeo: 2 lotes de 100 acciones. Se reparte de uno en uno, nunca dos "
        "a la misma orden, entre las que aún no reciben toda su cantidad, de mayor a menor "
        "cantidad pedida (a igual cantidad, por orden de ingreso).",
        "1 orden con precio inferior al de adjudicación: sin acciones.",
        "1 orden por debajo del precio mínimo: sin acciones.",
        "Todas las órdenes adjudicadas pagan el precio único de $ 2.050 por acción: "
        "1.000.000 acciones por $ 2.050.000.000.",
    )


def test_dutch_left_over_ties_go_by_time_of_entry_not_by_position() -> None:
    # Offer 10 shares, lot 1, three orders of 5 at one price: 10 / 15 of 5 = 3,33 → 3 each,
    # 1 left; equal quantities, so the earliest entry gets it: rank 0, the last row.
    out = dutch(column(205_000, 205_000, 205_000), column(5, 5, 5), 10, entry=column(7, 3, 0))
    assert allocations(out) == [3, 3, 4]
    assert out.prorated_at_price == (10, 15)


def test_dutch_part_of_a_lot_above_the_price_is_filled() -> None:
    # Above the price orders are filled in shares: the 150 at COP 2.100 gets all 150 though
    # the lot is 100. Left: 300 − 150 = 150 = 1 lot (50 unsold); the two orders at COP 2.050
    # ask 2 + 2 lots: 1 × 2 / 4 = 0,5 → 0 each, the lot left to the earliest entry.
    out = dutch(column(210_000, 205_000, 205_000), column(150, 200, 200), 300, lot=100)
    assert allocations(out) == [150, 100, 0]
    assert (out.total, out.prorated_at_price) == (250, (100, 400))
    assert "Quedan 50 acciones de la oferta sin adjudicar." in out.notes


def test_oversubscribed_in_shares_but_not_in_whole_lots() -> None:
    # At the price 150 + 150 = 300 > 250 left, but in lots of 100 it is 1 + 1 ≤ 2: one lot
    # each, 50 unsold although 100 shares asked at the price go unfilled.
    out = dutch(column(205_000, 205_000), column(150, 150), 250, lot=100)
    assert out.price == 205_000
    assert allocations(out) == [100, 100]
    assert out.prorated_at_price is None
    assert (
        "La demanda en lotes completos cabe en lo disponible: cada orden recibe sus lotes "
        "completos." in out.notes
    )


def test_offer_smaller_than_a_lot_sells_nothing_at_the_margin() -> None:
    out = dutch(column(205_000), column(5_000), 50, lot=100)
    assert (out.price, allocations(out), out.void) == (205_000, [0], False)
    assert out.notes[-1] == "No se adjudican acciones: lo disponible no completa un lote."


def test_prorate_beyond_int64_products_is_exact() -> None:
    # 3 × 10¹² lots × 10¹² lots overflows Int64: the floors are taken in Int128, still exact.
    prices = column(205_000, 205_000, 205_000)
    quantities = column(3 * 10**12, 10**12 + 7, 5)
    out = dutch(prices, quantities, 10**12)
    expected = reference_clear(
        prices.tolist(), quantities.tolist(), [0, 1, 2], 10**12, MINIMUM, 1, "subasta_holandesa"
    )
    assert allocations(out) == expected.allocations
    assert out.total == 10**12


# --- Void ------------------------------------------------------------------------------------


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_all_orders_below_the_minimum_price_is_void(mechanism: Mechanism) -> None:
    cutoff = MINIMUM if mechanism == "construccion_libro" else None
    out = clear(
        column(201_799, 150_000), column(5_000, 8_000), ranks(2), 100, MINIMUM, 1, mechanism, cutoff
    )
    assert (out.void, out.reason, out.price) == (True, ALL_BELOW_MINIMUM, None)
    assert allocations(out) == [0, 0]
    assert (out.demand_at_price, out.filled_above, out.prorated_at_price) == (0, 0, None)
    assert out.notes == (
        "Etapa desierta: todas las órdenes están por debajo del precio mínimo; no se "
        "adjudican acciones.",
    )


def test_empty_book_is_void() -> None:
    out = dutch(column(), column(), 1_000)
    assert (out.void, out.reason, allocations(out)) == (True, NO_ORDERS, [])
    assert out.notes == ("Etapa desierta: no hay órdenes; no se adjudican acciones.",)


# --- Book-building ---------------------------------------------------------------------------


def test_book_building_geb_2018_undersubscribed_at_the_minimum() -> None:
    # GEB 2018 Segunda Etapa: 953.714.705 shares sold at COP 2.018, less than the
    # 1.836.235.403 − 19.040.484 = 1.817.194.919 left after the Primera Etapa. The seller's
    # cut-off is the minimum; every order at or above it is filled and pays COP 2.018,
    # those who bid more too.
    offered = 1_836_235_403 - 19_040_484
    out = book(
        column(201_800, 203_000, 210_000),
        column(900_000_000, 53_709_705, 5_000),
        offered,
        cutoff=MINIMUM,
        lot=5_000,
    )
    assert allocations(out) == [900_000_000, 53_709_705, 5_000]
    assert (out.price, out.total) == (MINIMUM, 953_714_705)
    assert out.notes[0] == (
        "Construcción del libro: precio de corte fijado por el vendedor de $ 2.018 por acción "
        "(precio mínimo $ 2.018); la demanda a ese precio o superior es de 953.714.705 "
        "acciones frente a una oferta de 1.817.194.919."
    )
    assert out.notes[-2:] == (
        "Todas las órdenes adjudicadas pagan el precio único de $ 2.018 por acción: "
        "953.714.705 acciones por $ 1.924.596.274.690.",
        "Quedan 863.480.214 acciones de la oferta sin adjudicar.",
    )


def test_book_building_prorate_at_the_cutoff() -> None:
    # Cut-off COP 2.050, offer 600 in lots of 100. Above: 300, filled. Left 300 = 3 lots for
    # two orders of 4 lots at the cut-off: 4 × 3 / 8 = 1,5 → 1 each, 1 lot left; equal
    # quantities, so the earlier entry (rank 3, the third row) gets it. The COP 2.030 order is
    # above the minimum but below the cut-off: nothing.
    out = book(
        column(210_000, 205_000, 205_000, 203_000),
        column(300, 400, 400, 500),
        600,
        cutoff=205_000,
        lot=100,
        entry=column(0, 5, 3, 1),
    )
    assert allocations(out) == [300, 100, 200, 0]
    assert (out.price, out.demand_at_price, out.filled_above) == (205_000, 800, 300)
    assert (out.prorated_at_price, out.prorated_above) == ((300, 800), None)
    assert "1 orden con precio inferior al de corte: sin acciones." in out.notes


def test_book_building_demand_above_the_cutoff_exceeds_the_offer() -> None:
    # Cut-off COP 2.050, offer 800 in lots of 100; above the cut-off 600 + 500 = 1.100 > 800.
    # Those above share the offer: 6 × 8 / 11 = 4,36 → 4; 5 × 8 / 11 = 3,64 → 3; 1 lot left
    # to the larger order. The 1.000 at the cut-off get nothing: a higher bid has priority.
    out = book(
        column(210_000, 206_000, 205_000), column(600, 500, 1_000), 800, cutoff=205_000, lot=100
    )
    assert allocations(out) == [500, 300, 0]
    assert (out.filled_above, out.demand_at_price, out.total) == (800, 1_000, 800)
    assert (out.prorated_above, out.prorated_at_price) == ((800, 1_100), None)
    assert out.notes[1] == (
        "2 órdenes por encima del precio de corte piden 1.100 acciones, más que la oferta: "
        "se prorratean, y las órdenes al precio de corte no reciben acciones."
    )


def test_book_building_no_order_reaches_the_cutoff() -> None:
    # Not void (orders reach the minimum), but the seller's cut-off leaves everyone out.
    out = book(column(210_000, 205_000), column(300, 400), 600, cutoff=220_000)
    assert (out.void, out.price, allocations(out)) == (False, 220_000, [0, 0])
    assert out.notes[-1] == "Ninguna orden alcanza el precio de corte: no se adjudican acciones."


def test_cutoff_below_the_minimum_is_refused() -> None:
    with pytest.raises(ClearingError) as error:
        book(column(210_000), column(300), 600, cutoff=201_000)
    assert str(error.value) == (
        "el precio de corte ($ 2.010) no puede ser inferior al precio mínimo ($ 2.018)"
    )


# --- Demand curve ----------------------------------------------------------------------------


def test_demand_curve_from_high_to_low() -> None:
    prices = column(205_000, 210_000, 203_000, 205_000, 200_000)
    quantities = column(150_050, 300_000, 100_000, 300_000, 50_000)
    assert demand_curve(prices, quantities) == [
        (210_000, 300_000),
        (205_000, 750_050),
        (203_000, 850_050),
        (200_000, 900_050),
    ]
    assert demand_curve(column(), column()) == []


def test_dutch_price_is_the_first_point_of_the_curve_that_covers_the_offer() -> None:
    prices = column(205_000, 210_000, 203_000, 205_000)
    quantities = column(150_050, 300_000, 100_000, 300_000)
    curve = demand_curve(prices, quantities)
    for offered in (1, 300_000, 300_001, 750_050, 750_051, 850_050):
        first = next(price for price, cumulative in curve if cumulative >= offered)
        assert dutch_price(prices, quantities, offered, MINIMUM) == first
    assert dutch_price(prices, quantities, 850_051, MINIMUM) == MINIMUM


# --- Checks on the input ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"prices": column(205_000, 205_000)}, "mismo largo"),
        ({"quantities": column(0)}, "cantidades deben ser enteros positivos"),
        ({"prices": column(0)}, "precios deben ser enteros positivos"),
        ({"prices": np.array([2050.0])}, "precios: se espera un vector de enteros"),
        ({"quantities": np.array([[1]])}, "cantidades: se espera un vector"),
        (
            {"prices": column(205_000, 205_000), "quantities": column(1, 1), "entry": column(0)},
            "mismo largo",
        ),
        (
            {"prices": column(205_000, 205_000), "quantities": column(1, 1), "entry": column(4, 4)},
            "orden de ingreso tiene valores repetidos",
        ),
        ({"offered": 0}, "la oferta debe ser"),
        ({"offered": 10.0}, "la oferta debe ser"),
        ({"lot": 0}, "el lote debe ser"),
        ({"minimum": 0}, "el precio mínimo debe ser"),
        ({"mechanism": "sobre_cerrado"}, "mecanismo de adjudicación desconocido"),
        ({"cutoff": 205_000}, "el precio de corte solo se usa en la construcción del libro"),
        ({"mechanism": "construccion_libro"}, "necesita el precio de corte"),
        ({"mechanism": "construccion_libro", "cutoff": True}, "precio de corte debe ser"),
        (
            {"prices": column(205_000, 205_000), "quantities": column(2**62, 2**62)},
            "demanda total supera",
        ),
    ],
)
def test_bad_input_is_refused(arguments: dict[str, Any], message: str) -> None:
    values: dict[str, Any] = {
        "prices": column(205_000),
        "quantities": column(300),
        "entry": None,
        "offered": 100,
        "minimum": MINIMUM,
        "lot": 1,
        "mechanism": "subasta_holandesa",
        "cutoff": None,
    } | arguments
    entry = values["entry"]
    if entry is None:
        entry = ranks(np.asarray(values["quantities"]).shape[0])
    with pytest.raises(ClearingError, match=message):
        clear(
            values["prices"],
            values["quantities"],
            entry,
            values["offered"],
            values["minimum"],
            values["lot"],
            values["mechanism"],
            values["cutoff"],
        )


def test_allocations_are_read_only_and_the_book_untouched() -> None:
    prices, quantities = column(210_000, 205_000), column(300, 400)
    out = dutch(prices, quantities, 500)
    assert not out.allocations.flags.writeable
    assert (prices.tolist(), quantities.tolist()) == ([210_000, 205_000], [300, 400])


def test_other_integer_types_are_accepted() -> None:
    minimum: Any = np.int64(MINIMUM)
    lot: Any = np.int32(1)
    out = clear(
        np.array([210_000, 205_000], dtype=np.uint32),
        np.array([300, 400], dtype=np.int32),
        np.array([1, 0], dtype=np.uint8),
        500,
        minimum,
        lot,
        "subasta_holandesa",
    )
    assert out.allocations.dtype == np.int64
    assert (out.price, allocations(out)) == (205_000, [300, 200])
    assert isinstance(out.price, int)


# --- Properties, against the Fraction reference ----------------------------------------------


@st.composite
def books(draw: st.DrawFn) -> dict[str, Any]:
    """A random book: prices on a few ticks around the minimum (many ties), small quantities
    (many equal) or sometimes huge ones, entry ranks in any order, any offer and cut-off."""
    n = draw(st.integers(0, 25))
    tick = draw(st.sampled_from([1, 100, 5_000]))
    minimum = 201_800
    prices = draw(
        st.lists(st.integers(-3, 8).map(lambda k: minimum + k * tick), min_size=n, max_size=n)
    )
    size = st.integers(1, 2_000) | st.integers(1, 20) | st.integers(1, 10**13)
    quantities = draw(st.lists(size, min_size=n, max_size=n))
    entry = draw(st.permutations(list(range(n))))
    spacing = draw(st.sampled_from([1, 7]))
    mechanism = draw(st.sampled_from(MECHANISMS))
    cutoff = None
    if mechanism == "construccion_libro":
        cutoff = draw(st.integers(0, 10).map(lambda k: minimum + k * tick))
    return {
        "prices": prices,
        "quantities": quantities,
        "entry_order": [e * spacing for e in entry],
        "offered": draw(st.integers(1, sum(quantities) + 50)),
        "minimum_price": minimum,
        "lot": draw(st.sampled_from([1, 1, 2, 3, 10, 100])),
        "mechanism": mechanism,
        "cutoff_price": cutoff,
    }


def run(case: dict[str, Any]) -> ClearingResult:
    arrays = {
        key: np.array(case[key], dtype=np.int64) for key in ("prices", "quantities", "entry_order")
    }
    return clear(**(case | arrays))


def demand_at_or_above(case: dict[str, Any], price: int, strictly: bool = False) -> int:
    return sum(
        q
        for p, q in zip(case["prices"], case["quantities"], strict=True)
        if (p > price if strictly else p >= price)
    )


@settings(max_examples=400, deadline=None)
@given(books())
def test_agrees_with_the_fraction_reference(case: dict[str, Any]) -> None:
    out = run(case)
    expected = reference_clear(**case)
    assert allocations(out) == expected.allocations
    assert (out.price, out.void, out.reason) == (expected.price, expected.void, expected.reason)
    assert (out.demand_at_price, out.filled_above) == (
        expected.demand_at_price,
        expected.filled_above,
    )
    assert out.prorated_at_price == expected.prorated_at_price
    assert out.prorated_above == expected.prorated_above


@settings(max_examples=300, deadline=None)
@given(books())
def test_invariants(case: dict[str, Any]) -> None:
    out = run(case)
    got = allocations(out)
    prices, quantities, lot = case["prices"], case["quantities"], case["lot"]
    offered, minimum = case["offered"], case["minimum_price"]
    assert got == allocations(run(case))  # deterministic
    assert all(0 <= a <= q for a, q in zip(got, quantities, strict=True))
    if out.void:
        assert out.price is None and not any(got)
        assert all(p < minimum for p in prices)
        return
    price = out.price
    assert price is not None and price >= minimum
    # Every filled order bid at least the price.
    assert all(p >= price for p, a in zip(prices, got, strict=True) if a > 0)

    # The price: the Dutch one is the highest order price ≥ minimum whose demand at or above
    # covers the offer, i.e. the one order price with D⁺(P) < offered ≤ D(P).
    covering = demand_at_or_above(case, price)
    strictly = demand_at_or_above(case, price, strictly=True)
    if case["mechanism"] == "subasta_holandesa":
        if demand_at_or_above(case, minimum) < offered:
            assert price == minimum
        else:
            assert price in prices
            assert strictly < offered <= covering
            candidates = [p for p in set(prices) if p >= minimum]
            assert price == max(p for p in candidates if demand_at_or_above(case, p) >= offered)
    else:
        assert price == case["cutoff_price"]

    # The total, exactly (see the module doc).
    at = [i for i, p in enumerate(prices) if p == price]
    above = [i for i, p in enumerate(prices) if p > price]
    if covering <= offered:
        assert out.total == covering
        assert all(got[i] == quantities[i] for i in at + above)
    elif strictly <= offered:
        lots_at = sum(quantities[i] // lot for i in at)
        assert out.total == strictly + lot * min((offered - strictly) // lot, lots_at)
        assert all(got[i] == quantities[i] for i in above)
        assert all(got[i] % lot == 0 for i in at)  # whole lots at the margin
    else:
        lots_above = sum(quantities[i] // lot for i in above)
        assert out.total == lot * min(offered // lot, lots_above)
        assert all(got[i] % lot == 0 for i in above)
        assert all(got[i] == 0 for i in at)
    assert out.total <= offered
    if lot == 1:
        assert out.total == min(offered, covering)


@settings(max_examples=200, deadline=None)
@given(books(), st.randoms(use_true_random=False))
def test_the_row_order_does_not_matter(case: dict[str, Any], rnd: Any) -> None:
    # Ties are broken by the entry rank, never by the position in the arrays: shuffling the
    # rows (each with its rank) shuffles the allocations the same way.
    out = run(case)
    order = list(range(len(case["prices"])))
    rnd.shuffle(order)
    shuffled = case | {
        key: [case[key][i] for i in order] for key in ("prices", "quantities", "entry_order")
    }
    again = run(shuffled)
    assert allocations(again) == [allocations(out)[i] for i in order]
    assert again.price == out.price


@settings(max_examples=200, deadline=None)
@given(books())
def test_a_higher_or_larger_order_at_the_margin_never_gets_fewer_lots(case: dict[str, Any]) -> None:
    # At the margin the floors grow with the lots asked, and the left-over lots go to the
    # largest first: among the margin orders, more lots asked never means fewer lots awarded.
    out = run(case)
    if out.void or out.price is None:
        return
    lot = case["lot"]
    margin = [
        i
        for i, p in enumerate(case["prices"])
        if (p > out.price if out.prorated_above is not None else p == out.price)
    ]
    for i in margin:
        for j in margin:
            if case["quantities"][i] // lot > case["quantities"][j] // lot:
                assert out.allocations[i] >= out.allocations[j]


@settings(max_examples=200, deadline=None)
@given(books())
def test_demand_curve_agrees_with_the_reference(case: dict[str, Any]) -> None:
    prices = np.array(case["prices"], dtype=np.int64)
    quantities = np.array(case["quantities"], dtype=np.int64)
    curve = demand_curve(prices, quantities)
    assert curve == reference_demand_curve(case["prices"], case["quantities"])
    assert all(isinstance(p, int) and isinstance(c, int) for p, c in curve)


@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.parametrize("lot", [1, 100, 5_000])
@pytest.mark.parametrize("share", [3, 5, 12])  # the offer, in tenths of the demand
def test_agrees_with_the_reference_on_a_larger_seeded_book(
    mechanism: Mechanism, lot: int, share: int
) -> None:
    rng = np.random.default_rng(226)
    n = 4_000
    prices = (201_800 + rng.integers(0, 40, n) * 500).astype(np.int64)
    quantities = np.concatenate(
        [rng.integers(5_000, 20_000, n - 400), rng.integers(20_000, 5_000_000, 400)]
    ).astype(np.int64)
    quantities[rng.random(n) < 0.3] = 10_000  # many equal orders
    entry = rng.permutation(n).astype(np.int64)
    offered = int(quantities.sum()) * share // 10
    cutoff = 201_800 + 15 * 500 if mechanism == "construccion_libro" else None
    out = clear(prices, quantities, entry, offered, MINIMUM, lot, mechanism, cutoff)
    expected = reference_clear(
        prices.tolist(),
        quantities.tolist(),
        entry.tolist(),
        offered,
        MINIMUM,
        lot,
        mechanism,
        cutoff,
    )
    assert allocations(out) == expected.allocations
    assert out.price == expected.price
    assert out.prorated_at_price == expected.prorated_at_price
