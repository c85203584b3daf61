"""Left-over lots: after the floors, hand them out one at a time to acceptants still short.

"Still short" means awarded fewer lots than they asked for. Each left-over lot goes to a
different such acceptant, in the program's order:

- ``primero_radicado``: the earliest filed first, i.e. the order of the array (the caller
  sorts acceptances by filing time before adjudicating);
- ``mayor_solicitud``: the largest valid quantity (in shares, as filed) first; equal
  quantities in filing order.

With the three methods of this package there are always fewer left-over lots than
acceptants still short (see ``methods``), so one pass suffices and nobody gets two. The loop
below would start a new round over those still short if that were ever not so.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import NDArray

Remainder = Literal["primero_radicado", "mayor_solicitud"]
REMAINDERS: tuple[Remainder, ...] = ("primero_radicado", "mayor_solicitud")


def hand_out(
    awards: NDArray[np.int64],
    lots: NDArray[np.int64],
    demand: NDArray[np.int64],
    count: int,
    remainder: Remainder,
) -> NDArray[np.int64]:
    """``awards`` plus ``count`` single lots for the first acceptants still short, in order."""
    awards = awards.copy()
    while count > 0:
        short = np.flatnonzero(awards < lots)
        if short.size == 0:
            raise AssertionError("quedan lotes sin adjudicar y nadie con cantidad pendiente")
        chosen = first_in_order(short, demand, min(count, short.size), remainder)
        awards[chosen] += 1
        count -= chosen.size
    return awards


def first_in_order(
    candidates: NDArray[np.intp], demand: NDArray[np.int64], count: int, remainder: Remainder
) -> NDArray[np.intp]:
    """The first ``count`` of ``candidates`` (ascending positions) in the remainder order.

    For ``mayor_solicitud`` no full sort is needed: the ``count``-th largest quantity is the
    threshold; everyone above it is in, and the rest of the places go to those exactly at
    it, earliest filed first. The result is the same set a stable sort would give.
    """
    if count >= candidates.size:
        return candidates
    if remainder == "primero_radicado":
        return candidates[:count]
    keys = demand[candidates]
    threshold = np.partition(keys, keys.size - count)[keys.size - count]
    above = candidates[keys > threshold]
    at = candidates[keys == threshold][: count - above.size]
    return np.concatenate([above, at])
