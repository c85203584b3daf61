"""Left-over lots: after the floors, hand them out one at a time to acceptants still short.

"Still short" means awarded fewer lots than they asked for. Each left-over lot goes to a
different such acceptant (or order), in the program's order:

- ``primero_radicado``: the earliest filed first;
- ``mayor_solicitud``: the largest valid quantity (in shares, as filed) first; equal
  quantities the earliest filed first.

"Earliest" is the order of the array (the Primera Etapa sorts acceptances by filing before
adjudicating), or, where the caller gives them, the ranks of their time of entry (a later
stage's orders at its margin). The Segunda Etapa's margin always takes ``mayor_solicitud``.

With the methods of this package there are always fewer left-over lots than acceptants
still short (see ``methods``), so one pass suffices and nobody gets two. The loop below
would start a new round over those still short if that were ever not so.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from democratiza.vocabulary import Remainder


def hand_out(
    awards: NDArray[np.int64],
    lots: NDArray[np.int64],
    demand: NDArray[np.int64],
    count: int,
    remainder: Remainder,
    ranks: NDArray[np.int64] | None = None,
) -> NDArray[np.int64]:
    """``awards`` plus ``count`` single lots for the first acceptants still short, in order."""
    awards = awards.copy()
    while count > 0:
        short = np.flatnonzero(awards < lots)
        if short.size == 0:
            raise AssertionError("quedan lotes sin adjudicar y nadie con cantidad pendiente")
        chosen = first_in_order(short, demand, min(count, short.size), remainder, ranks)
        awards[chosen] += 1
        count -= chosen.size
    return awards


def first_in_order(
    candidates: NDArray[np.intp],
    demand: NDArray[np.int64],
    count: int,
    remainder: Remainder,
    ranks: NDArray[np.int64] | None = None,
) -> NDArray[np.intp]:
    """The first ``count`` of ``candidates`` (ascending positions) in the remainder order.

    ``ranks``: each position's rank in time of entry (unique); ``None`` when the positions
    themselves are that order. For ``mayor_solicitud`` no full sort is needed: the
    ``count``-th largest quantity is the threshold; everyone above it is in, and the rest
    of the places go to those exactly at it, earliest first, found the same way. The result
    is the set a stable sort would give.
    """
    if count >= candidates.size:
        return candidates
    if remainder == "primero_radicado":
        if ranks is None:
            return candidates[:count]
        return _earliest(candidates, ranks, count)
    keys = demand[candidates]
    threshold = np.partition(keys, keys.size - count)[keys.size - count]
    above = candidates[keys > threshold]
    tied = candidates[keys == threshold]
    places = count - above.size
    if ranks is None:
        tied = tied[:places]
    elif places < tied.size:
        tied = _earliest(tied, ranks, places)
    return np.concatenate([above, tied])


def _earliest(
    candidates: NDArray[np.intp], ranks: NDArray[np.int64], count: int
) -> NDArray[np.intp]:
    """The ``count`` candidates with the lowest ranks, in ascending position."""
    own = ranks[candidates]
    last = np.partition(own, count - 1)[count - 1]
    chosen: NDArray[np.intp] = candidates[own <= last]
    return chosen
