"""A deliberately plain reference of the Segunda Etapa clearing rules, with ``Fraction`` and loops.

It shares no code with ``democratiza.stages``: it works on Python lists, one order at a time,
the way the rule would be done by hand. The Dutch price is found by walking down the distinct
prices from the highest and adding up the demand until it covers the offer; the margin is
prorated with ``Fraction`` and the left-over lots handed out by walking a list sorted by
(largest quantity, earliest entry). The property tests check the vectorised module against it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import floor


@dataclass(frozen=True)
class ReferenceClearing:
    price: int | None
    allocations: list[int]
    demand_at_price: int
    filled_above: int
    prorated_at_price: tuple[int, int] | None
    prorated_above: tuple[int, int] | None
    void: bool
    reason: str | None


def reference_clear(
    prices: list[int],
    quantities: list[int],
    entry_order: list[int],
    offered: int,
    minimum_price: int,
    lot: int,
    mechanism: str,
    cutoff_price: int | None = None,
) -> ReferenceClearing:
    n = len(prices)
    if n == 0:
        return ReferenceClearing(None, [], 0, 0, None, None, True, "no hay órdenes")
    if all(p < minimum_price for p in prices):
        reason = "todas las órdenes están por debajo del precio mínimo"
        return ReferenceClearing(None, [0] * n, 0, 0, None, None, True, reason)

    if mechanism == "subasta_holandesa":
        price = reference_dutch_price(prices, quantities, offered, minimum_price)
    elif mechanism == "construccion_libro":
        assert cutoff_price is not None and cutoff_price >= minimum_price
        price = cutoff_price
    else:
        raise ValueError(mechanism)

    above = [i for i in range(n) if prices[i] > price]
    at = [i for i in range(n) if prices[i] == price]
    demand_above = sum(quantities[i] for i in above)
    demand_at = sum(quantities[i] for i in at)
    allocations = [0] * n
    prorated_at: tuple[int, int] | None = None
    prorated_above: tuple[int, int] | None = None

    if demand_above > offered:
        # More demand above the cut-off than the offer: those above share it, those at get 0.
        prorated_above = _prorate(above, quantities, entry_order, offered, lot, allocations)
        filled_above = sum(allocations[i] for i in above)
    else:
        for i in above:
            allocations[i] = quantities[i]
        filled_above = demand_above
        rest = offered - demand_above
        if demand_at <= rest:
            for i in at:
                allocations[i] = quantities[i]
        else:
            prorated_at = _prorate(at, quantities, entry_order, rest, lot, allocations)
    return ReferenceClearing(
        price, allocations, demand_at, filled_above, prorated_at, prorated_above, False, None
    )


def reference_dutch_price(
    prices: list[int], quantities: list[int], offered: int, minimum_price: int
) -> int:
    """Walk down the prices at or above the minimum; stop when the demand so far covers."""
    demand_so_far = 0
    for price, asked in _by_price(prices, quantities):
        if price < minimum_price:
            break
        demand_so_far += asked
        if demand_so_far >= offered:
            return price
    return minimum_price


def reference_demand_curve(prices: list[int], quantities: list[int]) -> list[tuple[int, int]]:
    curve: list[tuple[int, int]] = []
    demand_so_far = 0
    for price, asked in _by_price(prices, quantities):
        demand_so_far += asked
        curve.append((price, demand_so_far))
    return curve


def _by_price(prices: list[int], quantities: list[int]) -> list[tuple[int, int]]:
    """``(price, shares asked at exactly that price)``, from the highest price down."""
    asked: dict[int, int] = {}
    for p, q in zip(prices, quantities, strict=True):
        asked[p] = asked.get(p, 0) + q
    return sorted(asked.items(), reverse=True)


def _prorate(
    members: list[int],
    quantities: list[int],
    entry_order: list[int],
    supply: int,
    lot: int,
    allocations: list[int],
) -> tuple[int, int] | None:
    """Share ``supply`` shares among ``members`` in whole lots; write into ``allocations``."""
    lots = {i: quantities[i] // lot for i in members}
    supply_lots = supply // lot
    asked = sum(lots.values())
    if asked <= supply_lots:
        for i in members:
            allocations[i] = lots[i] * lot
        return None
    awards = {i: floor(Fraction(lots[i] * supply_lots, asked)) for i in members}
    left = supply_lots - sum(awards.values())
    order = sorted(members, key=lambda i: (-quantities[i], entry_order[i]))
    while left > 0:
        for i in order:
            if left > 0 and awards[i] < lots[i]:
                awards[i] += 1
                left -= 1
    for i in members:
        allocations[i] = awards[i] * lot
    return (supply_lots * lot, asked * lot)
