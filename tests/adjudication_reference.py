"""A deliberately plain reference of the adjudication rules, with ``Fraction`` and loops.

It shares no code with ``democratiza.adjudication``: it works one acceptant at a time on
Python lists, the way the rule would be done by hand, and finds the water level by the
textbook procedure (serve the smallest request while it is below an equal share of what is
left) instead of by sorting and searching. The property tests check the vectorised module
against it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import floor


@dataclass(frozen=True)
class ReferenceResult:
    awards: list[int]  # shares
    level: int | None  # shares: water level, or each acceptant's linear tranche


def reference_allocate(
    demand: list[int],
    supply: int,
    method: str,
    remainder: str,
    unit: int = 1,
    linear_percent: int | None = None,
) -> ReferenceResult:
    # Everyone fits: everyone gets what they asked for, whole lots or not.
    if sum(demand) <= supply:
        return ReferenceResult(list(demand), None)

    # Otherwise count in whole lots; a part of a lot is never awarded.
    lots = [d // unit for d in demand]
    supply_lots = supply // unit
    if sum(lots) <= supply_lots:
        return ReferenceResult([x * unit for x in lots], None)

    level: int | None
    if method == "igualitario_redistribucion":
        level = _equal_level(lots, supply_lots)
        awards = [min(x, level) for x in lots]
    elif method == "proporcional":
        level = None
        total = sum(lots)
        awards = [floor(Fraction(x * supply_lots, total)) for x in lots]
    elif method == "lineal_proporcional":
        assert linear_percent is not None
        acceptants = len([x for x in lots if x > 0])
        tranche = floor(Fraction(supply_lots * linear_percent, 100))
        level = floor(Fraction(tranche, acceptants))
        linear = [min(x, level) for x in lots]
        rest = supply_lots - sum(linear)
        unfilled = [x - y for x, y in zip(lots, linear, strict=True)]
        base = sum(unfilled)
        awards = [
            y + floor(Fraction(u * rest, base)) for y, u in zip(linear, unfilled, strict=True)
        ]
    else:
        raise ValueError(method)

    # Left-over lots, one at a time, to those still short, in the remainder order; round
    # again if lots are still left after everyone short got one.
    order = list(range(len(demand)))
    if remainder == "mayor_solicitud":
        order.sort(key=lambda i: (-demand[i], i))
    left = supply_lots - sum(awards)
    while left > 0:
        for i in order:
            if left > 0 and awards[i] < lots[i]:
                awards[i] += 1
                left -= 1
    return ReferenceResult([a * unit for a in awards], None if level is None else level * unit)


def _equal_level(lots: list[int], supply: int) -> int:
    """Whole part of the level λ at which Σ min(lots, λ) = supply.

    Take the requests from the smallest: while a request is no more than an equal share of
    what is left among those not yet served, serve it in full; the first that is more sets
    the level at that equal share.
    """
    waiting = sorted(x for x in lots if x > 0)
    left = Fraction(supply)
    for served, request in enumerate(waiting):
        share = left / (len(waiting) - served)
        if request > share:
            return floor(share)
        left -= request
    raise AssertionError("only called when demand exceeds supply")
