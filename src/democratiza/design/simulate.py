"""Run every design on one population with the very code that runs a real offer.

Each design's acceptances are decided by ``rules.engine.CompiledProgram`` (the intake's
engine), summed per person by ``rules.person.per_person`` and shared out by
``adjudication.joint.allocate_offer`` (the adjudication's: joint caps, then the method), in
the order of receipt
(``recepcion``, ``storage.radicados``). Nothing here decides anything a real offer would decide
otherwise: the base design on an offer's own acceptances gives its stored adjudication.

Designs that differ only in how an oversubscribed offer is shared (method, remainder, lot,
shares offered) share one evaluation: only their allocation is computed again. The persons
are numbered once for the population (``rules.person.person_keys``), and every design's
limits per person and figures group by those numbers, not by the identification texts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import polars as pl
import polars.selectors as cs

from democratiza.adjudication.adjudicate import AllocationResult
from democratiza.adjudication.joint import allocate_offer
from democratiza.adjudication.record import (
    RESULT_COLUMNS,  # a design's results read as an adjudication's
)
from democratiza.allocation.persons import persons_of
from democratiza.design.designs import Design
from democratiza.programs.parameters import Offer
from democratiza.rules.engine import CompiledProgram
from democratiza.rules.person import ORDER, PERSON_KEY, per_person, person_keys

REQUEST_STREAM = 1  # the random stream of the requests, apart from the population's (0)
DECIDED_COLUMNS = [  # what the engine adds to each acceptance (the rest is the input's)
    "cantidad_permitida",
    "decision",
    "regla_limitante",
    "limite_minimo",
    "regla_limite",
    "limite_general",
    "regla_general",
]


@dataclass(frozen=True)
class DesignOutcome:
    """A design's adjudication of the population."""

    design: Design
    results: pl.DataFrame  # RESULT_COLUMNS, in order of receipt
    allocation: AllocationResult
    offered: int


def with_receipts(acceptances: pl.DataFrame) -> pl.DataFrame:
    """The acceptances with a radicado and an order of receipt: an offer's own, or, for a
    population from a file or a description, the order they are listed in."""
    if "radicado" not in acceptances.columns:
        number = pl.int_range(1, pl.len() + 1).cast(pl.String).str.zfill(6)
        acceptances = acceptances.with_columns((pl.lit("000001-") + number).alias("radicado"))
    if "recepcion" not in acceptances.columns:
        acceptances = acceptances.with_columns(pl.int_range(1, pl.len() + 1).alias("recepcion"))
    return acceptances


def requested(
    acceptances: pl.DataFrame, base: Offer, low: float, high: float, seed: int
) -> pl.DataFrame:
    """Each acceptant asks for a share of the limit the base design leaves them, drawn
    uniformly between ``low`` and ``high`` (above 1, more than they may buy), at least 1."""
    limits = CompiledProgram(base).evaluate(acceptances)["limite_minimo"]
    # A stream of its own: the population's figures were drawn from ``seed`` itself, and the
    # same draws again would tie each request to the figures (who files a return, say).
    share = np.random.default_rng([seed, REQUEST_STREAM]).uniform(low, high, acceptances.height)
    wanted = np.maximum(np.floor(limits.fill_null(0).to_numpy() * share), 1).astype(np.int64)
    return acceptances.with_columns(pl.Series("cantidad", wanted))


def _evaluation_key(offer: Offer) -> str:
    """What an evaluation depends on: the program without its allocation, and the offer."""
    program = json.loads(offer.program.model_dump_json(by_alias=True))
    program.pop("adjudicacion", None)
    program.get("parametros", {}).pop("acciones_ofrecidas", None)
    values = {k: str(v) for k, v in offer.values.items() if k != "acciones_ofrecidas"}
    return json.dumps([program, values], sort_keys=True)


def simulate(acceptances: pl.DataFrame, designs: list[Design]) -> list[DesignOutcome]:
    """Each design's adjudication of ``acceptances`` (typed, with ``cantidad``)."""
    # Once for every design: the order of receipt (so each evaluation's rows are already in
    # it) and the persons' numbers (so no design groups the identification texts again).
    rows = with_receipts(acceptances).sort(ORDER)
    rows = rows.with_columns(person_keys(rows))
    # The acceptances' own columns the results show, once, with the engine's Enum columns as
    # the figures read them (``checked_awards``): as texts.
    given = rows.select(
        *(c for c in RESULT_COLUMNS if c in rows.columns and c not in DECIDED_COLUMNS),
        *ORDER,
        PERSON_KEY,
    ).with_columns(cs.by_dtype(pl.Enum).cast(pl.String))
    evaluated: dict[str, tuple[pl.DataFrame, list[str]]] = {}
    # Whose filings are one acceptant: the same for every design (the population's persons).
    persons = persons_of(rows[PERSON_KEY].to_numpy())
    outcomes = []
    for design in designs:
        key = _evaluation_key(design.offer)
        if key not in evaluated:
            decided = CompiledProgram(design.offer).evaluate(rows).select(DECIDED_COLUMNS)
            # What the engine decided beside the acceptances' own columns: what the
            # adjudication reads and its results show.
            current = given.hstack(decided.with_columns(pl.col("decision").cast(pl.String)))
            evaluated[key] = (per_person(current), [])  # rows in the order of receipt
        people, categories = evaluated[key]
        offered = design.offer.values.get("acciones_ofrecidas")
        if not isinstance(offered, int):
            raise ValueError(f"el diseño «{design.name}» no tiene acciones_ofrecidas")
        demand = people["cantidad_persona"].to_numpy().astype(np.int64)
        if design.offer.program.allocation.joint_caps and not categories:
            # Only joint caps read the categories: listed once, for the designs that have them.
            categories.extend(people["categoria"].cast(pl.String).to_list())
        allocation = allocate_offer(demand, persons, categories, offered, design.offer.program)
        results = people.with_columns(pl.Series("adjudicada", allocation.awards)).select(
            RESULT_COLUMNS
        )
        outcomes.append(DesignOutcome(design, results, allocation, offered))
    return outcomes
