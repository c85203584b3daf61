"""One acceptant is one person: filings with two brokers are shared out as one filing would be.

Worked example (issue 27 point 6): in an oversubscribed equal-shares offer, a person who
files 6.000.000 shares with each of two brokers is one acceptant asking 12.000.000, exactly
like a person who files 12.000.000 once; the person's award is then divided among the two
filings in order of receipt (the earliest received takes what it asked, the later the rest).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from democratiza.adjudication.joint import allocate_offer
from democratiza.allocation.persons import divide, persons_of, totals
from democratiza.programs.schema import Program
from democratiza.verification.package import FIRST_STAGE
from democratiza.verification.recompute import recomputed
from tests.test_family_variations import offer as family_offer

METHODS = [
    ("igualitario_redistribucion", None),
    ("proporcional", None),
    ("lineal_proporcional", 40),
]
REMAINDERS = ["primero_radicado", "mayor_solicitud"]

# Filings in order of receipt: (person, broker, demand). Persons 1, 3 and 5 file with both
# brokers; 5's later filing comes after everyone else's first.
FILINGS = [
    (1, "A", 6_000_000),
    (2, "A", 900_000),
    (3, "B", 2_500_001),
    (1, "B", 6_000_000),
    (4, "B", 4_000_000),
    (5, "A", 1_000),
    (3, "A", 2_499_999),
    (6, "B", 7_777_777),
    (5, "B", 3_000_003),
]
SUPPLY = 20_000_000


def merged() -> tuple[list[int], list[int]]:
    """Each person's filings as one filing, at the place of their first: persons, demands."""
    persons: list[int] = []
    demand: list[int] = []
    for person, _, quantity in FILINGS:
        if person in persons:
            demand[persons.index(person)] += quantity
        else:
            persons.append(person)
            demand.append(quantity)
    return persons, demand


def program(method: str, remainder: str, linear: int | None, unit: int = 1) -> Program:
    """The family's example program with this way of sharing and no joint cap."""
    base = family_offer().program
    rule = base.allocation.model_copy(
        update={
            "method": method,
            "remainder": remainder,
            "unit_shares": unit,
            "linear_percent": linear,
            "joint_caps": [],
        }
    )
    return base.model_copy(update={"allocation": rule})


def test_a_persons_award_is_divided_among_their_filings_in_order_of_receipt() -> None:
    keys = np.array([7, 9, 7, 8, 7], dtype=np.int64)
    demand = np.array([100, 50, 30, 20, 40], dtype=np.int64)
    persons = persons_of(keys)
    # Persons in the order of their first filing: 7, then 9, then 8.
    assert totals(persons, demand).tolist() == [170, 50, 20]
    # Person 7 gets 115: the first filing its 100, the second the 15 left, the third none.
    awards = divide(persons, np.array([115, 50, 0], dtype=np.int64), demand)
    assert awards.tolist() == [100, 50, 15, 0, 0]


@pytest.mark.parametrize(("method", "linear"), METHODS)
@pytest.mark.parametrize("remainder", REMAINDERS)
@pytest.mark.parametrize("unit", [1, 1_000])
def test_splitting_across_brokers_gives_the_same_total_as_one_filing(
    method: str, linear: int | None, remainder: str, unit: int
) -> None:
    rule = program(method, remainder, linear, unit)
    keys = np.array([p for p, _, _ in FILINGS], dtype=np.int64)
    demand = np.array([q for _, _, q in FILINGS], dtype=np.int64)
    categories = ["trabajador_activo"] * len(FILINGS)
    split = allocate_offer(demand, keys, categories, SUPPLY, rule).awards.tolist()

    persons, whole = merged()
    one = allocate_offer(
        np.array(whole, dtype=np.int64),
        np.array(persons),
        categories[: len(persons)],
        SUPPLY,
        rule,
    ).awards.tolist()
    assert sum(split) == sum(one) == SUPPLY // unit * unit
    for person, award in zip(persons, one, strict=True):
        own = [i for i, (p, _, _) in enumerate(FILINGS) if p == person]
        assert sum(split[i] for i in own) == award
        # In order of receipt: a later filing gets something only if the earlier got all.
        left = award
        for i in own:
            assert split[i] == min(FILINGS[i][2], left)
            left -= split[i]


def test_the_issues_example_two_filings_of_six_million_are_one_of_twelve() -> None:
    rule = program("igualitario_redistribucion", "primero_radicado", None)
    others = [3_000_000, 14_000_000, 9_000_000]
    split_keys = np.array([1, 2, 1, 3, 4])
    split = np.array([6_000_000, others[0], 6_000_000, others[1], others[2]], dtype=np.int64)
    one_keys = np.array([1, 2, 3, 4])
    one = np.array([12_000_000, *others], dtype=np.int64)
    cats = ["trabajador_activo"] * 5
    a = allocate_offer(split, split_keys, cats, 30_000_000, rule).awards.tolist()
    b = allocate_offer(one, one_keys, cats[:4], 30_000_000, rule).awards.tolist()
    # Level 9.000.000: the person asking 12.000.000 gets 9.000.000 either way (the first
    # filing its 6.000.000, the second 3.000.000); the others get the same as before.
    assert a[0] + a[2] == b[0] == 9_000_000
    assert (a[0], a[2]) == (6_000_000, 3_000_000)
    assert [a[1], a[3], a[4]] == b[1:] == [3_000_000, 9_000_000, 9_000_000]


def test_a_joint_cap_is_shared_per_person_and_its_note_counts_persons() -> None:
    # Pension fund 1 files 49.380 with two brokers, funds 2 and 3 once each: three persons in
    # the group, 148.140 shares above its cap of 98.765; each fund one acceptant.
    funds = "fondo_pensiones_cesantias"
    demand = np.array([24_690, 25_000, 49_380, 24_690, 49_380], dtype=np.int64)
    keys = np.array([1, 9, 2, 1, 3])
    categories = [funds, "trabajador_activo", funds, funds, funds]
    result = allocate_offer(demand, keys, categories, 9_876_543, family_offer().program)
    awards = result.awards.tolist()
    assert awards[0] + awards[3] == 32_922 and awards[2] == 32_922 and awards[4] == 32_921
    assert (awards[0], awards[3]) == (24_690, 8_232)  # in order of receipt
    assert awards[1] == 25_000
    assert "el tope se reparte entre sus 3 aceptantes" in result.notes[0]


@pytest.mark.parametrize(("method", "linear"), METHODS)
def test_the_package_verification_recomputes_per_person_from_the_pseudonyms(
    method: str, linear: int | None
) -> None:
    rule = program(method, "mayor_solicitud", linear)
    keys = np.array([p for p, _, _ in FILINGS], dtype=np.int64)
    demand = np.array([q for _, _, q in FILINGS], dtype=np.int64)
    categories = ["trabajador_activo"] * len(FILINGS)
    awards = allocate_offer(demand, keys, categories, SUPPLY, rule).awards
    table = pl.DataFrame(
        {
            "orden": range(1, len(FILINGS) + 1),
            "seudonimo": [f"s{p:031d}" for p in keys.tolist()],
            "categoria": categories,
            "cantidad_permitida": demand,
            "adjudicada": awards,
        }
    )
    parameters = {
        "tipo": FIRST_STAGE,
        "metodo": method,
        "residuo": "mayor_solicitud",
        "lote_acciones": 1,
        "porcentaje_lineal": linear,
        "acciones_ofrecidas": SUPPLY,
    }
    again = recomputed(parameters, table)
    assert again["adjudicada"].to_list() == awards.tolist()
