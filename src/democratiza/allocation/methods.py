"""The three ways to share an oversubscribed offer, in whole lots.

Every function here takes the acceptants' demands in lots (``lots[i] ≥ 0``), the supply in
lots, and is only called when the offer is oversubscribed: ``sum(lots) > supply``. Each
returns awards with ``0 ≤ award ≤ lots`` that add up to exactly ``supply``.

- **Equal shares with redistribution** (water-filling, "constrained equal awards"): each
  acceptant gets ``min(lots, L)``, with ``L`` the largest whole level whose total fits in the
  supply. What a small acceptant does not need is thereby shared by the larger ones.
- **Proportional**: each gets ``⌊lots × supply / total demand⌋``.
- **Linear, then proportional** (Real Decreto 1066/2007 art. 38, the Spanish OPA rule): a
  tranche of ``p %`` of the supply (floored to whole lots) is split equally: each of the ``n``
  acceptants with a demand gets ``min(lots, t)``, ``t = ⌊tranche / n⌋``. The rest of the
  supply (including what the linear tranche did not give out) is prorated on the unfilled
  demand: ``⌊unfilled × rest / total unfilled⌋``.

After the floors, the lots still over are handed out one at a time (``remainder.hand_out``).
There are always fewer of them than acceptants still short, so nobody gets two:

- water-filling: raising the level by one would exceed the supply, so the lots over are
  fewer than the acceptants above the level, and each of those is short;
- a prorate of ``R`` lots on a base of ``U > R``: the lots over are the sum of the dropped
  fractions, each below one, so fewer than the acceptants with a fraction, each of whom is
  short. For the proportional method ``U = total demand > supply = R``; for the linear
  method ``U = total demand − linear awards > supply − linear awards = R``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from democratiza.allocation.exact import scaled_floor
from democratiza.allocation.remainder import hand_out
from democratiza.vocabulary import Remainder


@dataclass(frozen=True, eq=False)
class Split:
    """A method's awards in lots and the figures that explain them (also in lots)."""

    awards: NDArray[np.int64]
    level: int | None  # water level, or each acceptant's linear tranche
    prorate: tuple[int, int] | None  # (lots prorated, demand they were prorated on)
    left_over: int  # lots handed out one at a time after the floors


def water_level(lots: NDArray[np.int64], supply: int) -> int:
    """Largest whole ``L`` with ``Σ min(lots, L) ≤ supply``; requires ``Σ lots > supply``.

    With the demands sorted, ``s₀ ≤ s₁ ≤ …``, the total at level ``sₖ`` is
    ``gₖ = s₀ + … + sₖ₋₁ + sₖ × (n − k)``, which grows with ``k``. If the first ``m`` of these
    fit, those ``m`` acceptants are filled and the other ``n − m`` share what is left
    equally: ``L = ⌊(supply − s₀ − … − sₘ₋₁) / (n − m)⌋``. No total exceeds ``Σ lots``
    (``sₖ × (n − k)`` is at most the sum of the ``n − k`` largest), so Int64 holds them.
    """
    s = np.sort(lots)
    n = s.size
    before = np.cumsum(s) - s
    totals = before + s * (n - np.arange(n, dtype=np.int64))
    m = int(np.searchsorted(totals, supply, side="right"))
    assert m < n, "the offer is oversubscribed, so the last total exceeds the supply"
    return (supply - int(before[m])) // (n - m)


def equal_with_redistribution(
    lots: NDArray[np.int64], supply: int, demand: NDArray[np.int64], remainder: Remainder
) -> Split:
    level = water_level(lots, supply)
    awards = np.minimum(lots, level)
    left = supply - int(awards.sum())
    return Split(hand_out(awards, lots, demand, left, remainder), level, None, left)


def proportional(
    lots: NDArray[np.int64],
    supply: int,
    demand: NDArray[np.int64],
    remainder: Remainder,
    ranks: NDArray[np.int64] | None = None,
) -> Split:
    """``ranks``: the time-of-entry ranks when the array is not in that order (``remainder``)."""
    total = int(lots.sum())
    awards = scaled_floor(lots, supply, total)
    left = supply - int(awards.sum())
    awards = hand_out(awards, lots, demand, left, remainder, ranks)
    return Split(awards, None, (supply, total), left)


def linear_then_proportional(
    lots: NDArray[np.int64],
    supply: int,
    demand: NDArray[np.int64],
    remainder: Remainder,
    linear_percent: int,
) -> Split:
    acceptants = int(np.count_nonzero(lots))
    tranche = supply * linear_percent // 100
    each = tranche // acceptants
    linear = np.minimum(lots, each)
    rest = supply - int(linear.sum())
    unfilled = lots - linear
    base = int(unfilled.sum())
    awards = linear + scaled_floor(unfilled, rest, base)
    left = supply - int(awards.sum())
    return Split(hand_out(awards, lots, demand, left, remainder), each, (rest, base), left)
