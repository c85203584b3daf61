"""One acceptant is one person: a person's filings are shared out as one, then divided.

The decrees give each acceptant, not each filing, its part of an oversubscribed offer
(``fuentes.md`` §3: each acceptant gets ``min(demand, L)``). A person who files with two
brokers is still one acceptant, so every method runs on the persons' totals:

1. each person's demand is the sum of their filings' (valid, already within the person's
   limits); the persons are in the order of their first filing received, so a tie-break
   "earliest filed" reads the person's earliest filing;
2. the method, the remainder hand-out and the lot apply to those totals, exactly as to
   single filings (a lot is a lot of the person's award);
3. the person's award is divided among their filings **in order of receipt**: the earliest
   received filing gets as much of the award as it asked for, the next what is left, and so
   on (the same order in which the person's filings consume the person's limit,
   ``rules.person``). Splitting a demand across brokers therefore never changes the total a
   person gets.

All of it is exact integer arithmetic (``numpy`` Int64 sums, never floating weights).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

Keys = NDArray[np.integer[Any]]  # each filing's person: equal numbers, one person


@dataclass(frozen=True, eq=False)
class Persons:
    """Which filings are one person's. ``label[i]``: filing ``i``'s person, ``0, 1, …`` in the
    order of each person's first filing; ``order``: the filings grouped by person (in that
    order), each person's in order of receipt; ``starts``: where each person's group begins
    in ``order``."""

    label: NDArray[np.intp]
    order: NDArray[np.intp]
    starts: NDArray[np.intp]

    @property
    def count(self) -> int:
        return int(self.starts.size)

    @property
    def one_filing_each(self) -> bool:
        """Every person filed once: the persons are the filings, in the same order."""
        return self.count == self.label.size


def persons_of(keys: Keys) -> Persons:
    """The persons of filings given in order of receipt, ``keys[i]`` filing ``i``'s person
    (any number per person: equal numbers are one person)."""
    if keys.size == 0:
        empty = np.zeros(0, dtype=np.intp)
        return Persons(empty, empty, empty)
    if _numbered_once_each(keys):
        return _one_each(keys.size)
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    if first.size == keys.size:  # one filing each: person i is filing i (no second sort)
        return _one_each(keys.size)
    rank = np.empty(first.size, dtype=np.intp)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size, dtype=np.intp)
    label = rank[inverse.reshape(-1)]
    order = np.argsort(label, kind="stable")  # stable: each person's in order of receipt
    sizes = np.bincount(label, minlength=first.size)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
    return Persons(label, order, starts)


def _one_each(count: int) -> Persons:
    """Every person filed once: person ``i`` is filing ``i``."""
    same = np.arange(count, dtype=np.intp)
    return Persons(same, same, same)


def _numbered_once_each(keys: Keys) -> bool:
    """Whether the keys are the numbers ``0 … n−1`` of ``n`` filings, each once, told by one
    count instead of a sort. Why: the persons' numbers (``rules.person.person_keys``) are
    such numbers, and in most offers everyone files once; the sort of ``np.unique`` was
    most of the per-person allocation's time."""
    if keys.dtype.kind not in "iu" or int(keys.min()) < 0 or int(keys.max()) >= keys.size:
        return False
    return int(np.bincount(keys, minlength=keys.size).max()) == 1


def totals(persons: Persons, demand: NDArray[np.int64]) -> NDArray[np.int64]:
    """Each person's demand, the sum of their filings' (in the persons' order)."""
    if persons.one_filing_each:
        return demand.astype(np.int64, copy=True)
    summed: NDArray[np.int64] = np.add.reduceat(
        demand[persons.order].astype(np.int64), persons.starts
    )
    return summed


def divide(
    persons: Persons, awards: NDArray[np.int64], demand: NDArray[np.int64]
) -> NDArray[np.int64]:
    """Each filing's part of its person's award, in order of receipt (see the module doc):
    ``min(filing's demand, award − what the person's earlier filings took)``, never below 0."""
    if persons.one_filing_each:
        return np.minimum(awards, demand).astype(np.int64)
    out = np.zeros(demand.size, dtype=np.int64)
    grouped = demand[persons.order].astype(np.int64)
    running = np.cumsum(grouped)
    before = running - grouped  # what every earlier filing asked, all persons
    own_start = np.repeat(before[persons.starts], np.diff(np.append(persons.starts, grouped.size)))
    earlier = before - own_start  # what the person's earlier filings asked
    award = np.repeat(awards, np.diff(np.append(persons.starts, grouped.size)))
    out[persons.order] = np.clip(award - earlier, 0, grouped)
    return out
