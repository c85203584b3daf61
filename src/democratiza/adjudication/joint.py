"""Joint caps: what a group of categories may get together, applied at adjudication.

Some decrees cap a group of Destinatarios as a whole (e.g. all pension and severance funds
together at most a percentage of the shares offered). The rule, in whole shares:

1. for each cap, in the order of the file, the group's valid demand (what each member's
   limits leave) is added up; if it fits in the cap, nothing changes;
2. otherwise the cap is shared among the group's members by the program's own method,
   remainder and lot, exactly as an oversubscribed offer of that many shares would be,
   each person one acceptant (their filings in the group added up, ``allocation.persons``),
   and each filing's demand becomes its part of its person's share, in order of receipt
   (never more than it asked);
3. then the whole offer is adjudicated as usual on those demands, again per person.

So the group never gets more than its cap, whatever the rest of the demand, and nobody
outside the group is affected. Groups that share a category apply in turn, each on the
demand the earlier left.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from democratiza.adjudication.adjudicate import AllocationResult, allocate_program
from democratiza.allocation.persons import Keys, Persons, divide, persons_of, totals
from democratiza.money import decimal_percent, group
from democratiza.programs.schema import JointCap, Program
from democratiza.words import word

Share = Callable[[NDArray[np.int64], int], AllocationResult]


def by_person(
    demand: NDArray[np.int64], keys: Keys | Persons, supply: int, share: Share
) -> AllocationResult:
    """``share`` run on the persons' totals, each person's award divided among their filings
    in order of receipt (``allocation.persons``); awards in the order of ``demand``. A
    caller that shares one population many times (the designer) gives the ``Persons``."""
    persons = keys if isinstance(keys, Persons) else persons_of(keys)
    result = share(totals(persons, demand), supply)
    awards = divide(persons, result.awards, demand)
    awards.flags.writeable = False
    return replace(result, awards=awards)


@dataclass(frozen=True)
class GroupOutcome:
    """One cap's group: its members' valid demand, the cap, and how it was shared (or None
    when the demand fitted)."""

    members: int  # persons with a filing in the group
    demand: int
    cap: int
    shared: AllocationResult | None


def within_joint_caps(
    demand: NDArray[np.int64],
    keys: Keys | Persons,
    categories: Sequence[str],
    caps: Sequence[tuple[Collection[str], int]],
    share: Share,
) -> tuple[NDArray[np.int64], list[GroupOutcome]]:
    """The demand once every cap (its categories, its shares) holds; see the module doc."""
    capped = demand.copy()
    kinds = np.asarray(categories, dtype=object)
    keys = keys.label if isinstance(keys, Persons) else np.asarray(keys)
    outcomes = []
    for members_of, cap in caps:
        members = np.isin(kinds, list(members_of))
        total = int(capped[members].sum())
        persons = int(np.unique(keys[members]).size)
        if total <= cap:
            outcomes.append(GroupOutcome(persons, total, cap, None))
            continue
        shared = by_person(capped[members], keys[members], cap, share)
        capped[members] = shared.awards
        outcomes.append(GroupOutcome(persons, total, cap, shared))
    return capped, outcomes


def caps_of(program: Program, supply: int) -> list[tuple[Collection[str], int]]:
    return [(cap.categories, cap.shares(supply)) for cap in program.allocation.joint_caps]


def allocate_offer(
    demand: NDArray[np.int64],
    keys: Keys | Persons,
    categories: Sequence[str],
    supply: int,
    program: Program,
) -> AllocationResult:
    """The adjudication of ``supply`` shares under the program, one acceptant per person
    (``keys``): its joint caps first, then ``allocate_program``; the result's notes start
    with each cap's, with its article."""
    return allocate_with_caps(demand, keys, categories, supply, program)[0]


def allocate_with_caps(
    demand: NDArray[np.int64],
    keys: Keys | Persons,
    categories: Sequence[str],
    supply: int,
    program: Program,
) -> tuple[AllocationResult, list[tuple[JointCap, GroupOutcome]]]:
    """``allocate_offer``, and what each joint cap did (for the adjudication's record)."""
    rule = program.allocation

    def share(wanted: NDArray[np.int64], cap: int) -> AllocationResult:
        return allocate_program(wanted, cap, rule)

    if not rule.joint_caps:
        return by_person(demand, keys, supply, share), []
    capped, outcomes = within_joint_caps(demand, keys, categories, caps_of(program, supply), share)
    result = by_person(capped, keys, supply, share)
    done = list(zip(rule.joint_caps, outcomes, strict=True))
    notes = [line for cap, outcome in done for line in cap_notes(program, cap, outcome)]
    return replace(result, notes=(*notes, *result.notes)), done


def cap_notes(program: Program, cap: JointCap, outcome: GroupOutcome) -> list[str]:
    """What a joint cap did, in Spanish, with its article."""
    where = program.cite(cap.citation)
    size = (
        f"tope de {group(outcome.cap)} acciones ({decimal_percent(cap.share.percent)} de las "
        f"acciones ofrecidas, {word('redondeo', cap.share.rounding)})"
    )
    head = f"Tope conjunto «{cap.name}» ({where}): demanda válida del grupo de"
    if outcome.shared is None:
        return [f"{head} {group(outcome.demand)} acciones ≤ {size}: no se reduce."]
    lines = [
        f"{head} {group(outcome.demand)} acciones > {size}: el tope se reparte entre sus "
        f"{group(outcome.members)} aceptantes con el método del programa, antes de "
        "adjudicar la oferta."
    ]
    return lines + [f"«{cap.name}»: {note}" for note in outcome.shared.notes[1:]]
