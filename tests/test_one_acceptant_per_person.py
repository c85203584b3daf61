"""One acceptant is one person: filings with two brokers are shared out as one filing would be.

Worked example (issue 27 point 6): in an oversubscribed equal-shares offer, a person who
files 6.000.000 shares with each of two brokers is one acceptant asking 12.000.000, exactly
like a person who files 12.000.000 once; the person's award is then divided among the two
filings in order of receipt (the earliest received takes what it asked, the later the rest).
"""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from sqlalchemy import Engine, select

from democratiza.adjudication.adjudicate import allocate_program
from democratiza.adjudication.joint import allocate_offer
from democratiza.adjudication.record import _person_notes, adjudicate
from democratiza.allocation.persons import divide, persons_of, totals
from democratiza.filing.batches import import_batch
from democratiza.offers.lifecycle import advance, create_offer, load_offer
from democratiza.programs.schema import Program
from democratiza.rules.engine import CompiledProgram, frame_from_rows
from democratiza.rules.person import per_person
from democratiza.storage.schema import acceptances
from democratiza.tables.acceptances import COLUMNS
from democratiza.verification.package import FIRST_STAGE
from democratiza.verification.recompute import recomputed
from tests.test_family_variations import FAMILY, acceptance
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


def one_person(*filings: tuple[str, int], salaries: tuple[int, ...] = ()) -> pl.DataFrame:
    """One worker's filings (way of paying, shares), in order of receipt, decided by the
    family's program and summed by the person rule. The worker earns $ 5.000.000 a month:
    10 × $ 5.000.000 / $ 1.000 = 50.000 shares, above 50 minimum salaries (39.062 shares), the
    person's limit; paying in instalments finances at most $ 8.000.000 / $ 800 = 10.000."""
    rows = [
        {
            **acceptance(
                1,
                "trabajador_activo",
                quantity,
                salario_mensual=salaries[i] if salaries else 500_000_000,
            ),
            "referencia": f"EJ-{i}",
            "forma_pago": paying,
        }
        for i, (paying, quantity) in enumerate(filings)
    ]
    decided = CompiledProgram(family_offer()).evaluate(frame_from_rows(rows))
    numbered = decided.with_columns(
        pl.Series("radicado", [f"R-{i + 1}" for i in range(decided.height)]),
        pl.Series("recepcion", range(1, decided.height + 1)),
        pl.col("decision").cast(pl.String),
    )
    return per_person(numbered)


def test_a_cap_of_instalments_never_cuts_the_same_persons_cash_filing() -> None:
    # 25.000 in cash, then 15.000 in instalments (10.000 at intake, the financed cap): the
    # cash filing is held to the person's limit of 39.062 only, and the two fit in it.
    people = one_person(("contado", 25_000), ("cuotas", 15_000))
    assert people["cantidad_persona"].to_list() == [25_000, 10_000]
    assert people["consumido_por"].to_list() == [None, None]
    assert people["decision"].to_list() == ["aceptada", "reducida"]  # the latter at intake


def test_the_instalment_cap_adds_up_only_the_persons_instalment_filings() -> None:
    # 6.000 in instalments, 2.000 cash, 6.000 in instalments: the financed cap of 10.000
    # leaves 4.000 for the last; the cash filing between them does not use it.
    people = one_person(("cuotas", 6_000), ("contado", 2_000), ("cuotas", 6_000))
    assert people["cantidad_persona"].to_list() == [6_000, 2_000, 4_000]
    assert people["consumido_por"].to_list() == [None, None, "R-1"]
    assert people["regla_limitante"].to_list()[2] == "ej-5.4"


def test_the_persons_limit_still_adds_up_every_filing_whatever_its_way_of_paying() -> None:
    # 35.000 in cash, then 10.000 in instalments: the person's 39.062 leaves 4.062.
    people = one_person(("contado", 35_000), ("cuotas", 10_000))
    assert people["cantidad_persona"].to_list() == [35_000, 4_062]
    assert people["consumido_por"].to_list() == [None, "R-1"]
    assert people["regla_limitante"].to_list()[1] != "ej-5.4"


def test_on_the_database_a_persons_cash_filing_is_not_cut_by_their_instalment_cap(
    engine: Engine, tmp_path: Path
) -> None:
    # One worker (same identification) files 30.000 in cash with broker A, then 15.000 in
    # instalments with broker B, and a second worker 20.000 in instalments twice with A.
    # Not oversubscribed: each filing gets what the person's limits leave it.
    window: dict[str, object] = {"fecha_aviso": "2018-01-02", "fecha_cierre": "2018-03-16"}
    with engine.begin() as conn:
        stored = create_offer(conn, "familia", str(FAMILY), window, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "apertura")
    salary = {"salario_mensual": "5000000"}
    first = [
        acceptance(1, "trabajador_activo", 30_000, **salary),
        {**acceptance(2, "trabajador_activo", 6_000, forma_pago="cuotas", **salary)},
        {**acceptance(3, "trabajador_activo", 6_000, forma_pago="cuotas", **salary)},
    ]
    first[2]["numero_identificacion"] = first[1]["numero_identificacion"]
    second = [acceptance(4, "trabajador_activo", 15_000, forma_pago="cuotas", **salary)]
    second[0]["comisionista"] = "Otra Bolsa"
    second[0]["numero_identificacion"] = first[0]["numero_identificacion"]
    import_batch(engine, "familia", batch(tmp_path / "a.csv", first), "Casa de Bolsa", "A1", "x")
    import_batch(engine, "familia", batch(tmp_path / "b.csv", second), "Otra Bolsa", "B1", "x")
    with engine.begin() as conn:
        advance(conn, load_offer(conn, "familia"), "cerrada", "oficina", "cierre")
    done = adjudicate(engine, "familia", "oficina", "adjudicación", date(2018, 3, 20))
    # Cash 30.000 kept (not cut to the 10.000 the financed cap leaves an instalment filing);
    # the same person's instalments 9.062, what their 39.062 leaves after the cash filing.
    # The other worker: 6.000, then 4.000, what the financed cap leaves after the first.
    assert done.results["adjudicada"].to_list() == [30_000, 6_000, 4_000, 9_062]
    notes = done.header["notas"]
    assert isinstance(notes, list)
    person = [n for n in notes if n.startswith("Reducidas")]
    assert len(person) == 2 and all("radicaciones anteriores" in n for n in person)
    assert "Saldo financiado en cuotas" in person[0] or "Saldo financiado en cuotas" in person[1]


def batch(path: Path, rows: list[dict[str, Any]]) -> Path:
    """A broker's batch file of these acceptances (the format's columns, in its order)."""

    def cell(value: object) -> str:
        if value is True:
            return "si"
        if isinstance(value, datetime):
            return value.isoformat(timespec="minutes")
        return "" if value is None else str(value)

    names = [c.name for c in COLUMNS]
    lines = [",".join(names), *(",".join(cell(r.get(n)) for n in names) for r in rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_reduction_by_a_smaller_limit_a_later_filing_brings_says_so() -> None:
    # 30.000 with a salary of $ 5.000.000, then 5.000 with a certificate of $ 2.000.000: the
    # person's limit is the smaller, 10 × $ 2.000.000 / $ 1.000 = 20.000. The first filing is
    # cut to it though nothing was filed before it; the second finds it used.
    people = one_person(
        ("contado", 30_000), ("contado", 5_000), salaries=(500_000_000, 200_000_000)
    )
    assert people["cantidad_persona"].to_list() == [20_000, 0]
    assert people["consumido_por"].to_list() == ["", "R-1"]
    notes = _person_notes(family_offer().program, people)
    assert notes == [
        "Reducidas en la adjudicación porque las radicaciones anteriores de la misma persona "
        "usaron el límite «Diez veces el salario mensual certificado» (Decreto de ejemplo art. "
        "4.1): R-2.",
        "Reducidas en la adjudicación por el límite «Diez veces el salario mensual certificado» "
        "(Decreto de ejemplo art. 4.1), el menor que traen las radicaciones de la misma persona "
        "(se toma el menor monto), sin radicaciones anteriores que lo usaran: R-1.",
    ]


def without_instalment_cap(folder: Path) -> Path:
    """The family's program file without its cap on the financed balance (art. 5.4): no limit
    of it then concerns one way of paying only."""
    text = FAMILY.read_text(encoding="utf-8")
    cap = (
        "  - id: ej-5.4\n    nombre: Saldo financiado en cuotas\n    tope_financiado: cuotas\n"
        "    cita: {norma: ejemplo, ref: art. 5.4}\n"
    )
    maximum = (
        '      monto_maximo_financiado: {valor: "8000000.00", '
        "cita: {norma: ejemplo, ref: art. 5.4}}\n"
    )
    assert cap in text and maximum in text
    path = folder / "familia-sin-tope-financiado.yaml"
    path.write_text(text.replace(cap, "").replace(maximum, ""), encoding="utf-8")
    return path


def test_without_a_cap_of_a_way_of_paying_the_general_limit_is_not_stored_twice(
    engine: Engine, tmp_path: Path
) -> None:
    # The same worker (salary $ 5.000.000: a limit of 39.062 shares, 50 minimum salaries)
    # files 30.000 with broker A, then 15.000 with broker B. The program caps no way of
    # paying, so the limit whatever the way of paying is the smallest limit itself: it is
    # stored once (limite_general NULL) and the person's second filing still gets only
    # the 9.062 the first left, with the first named as the one that used them.
    window: dict[str, object] = {"fecha_aviso": "2018-01-02", "fecha_cierre": "2018-03-16"}
    path = without_instalment_cap(tmp_path)
    with engine.begin() as conn:
        stored = create_offer(conn, "sin-tope", str(path), window, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "apertura")
    assert not stored.program.caps_a_way_of_paying
    salary = {"salario_mensual": "5000000"}
    first = [acceptance(1, "trabajador_activo", 30_000, **salary)]
    second = [acceptance(2, "trabajador_activo", 15_000, forma_pago="cuotas", **salary)]
    second[0]["comisionista"] = "Otra Bolsa"
    second[0]["numero_identificacion"] = first[0]["numero_identificacion"]
    import_batch(engine, "sin-tope", batch(tmp_path / "a.csv", first), "Casa de Bolsa", "A1", "x")
    import_batch(engine, "sin-tope", batch(tmp_path / "b.csv", second), "Otra Bolsa", "B1", "x")
    with engine.connect() as conn:
        stored_rows = conn.execute(
            select(
                acceptances.c.limite_minimo,
                acceptances.c.limite_general,
                acceptances.c.regla_general,
            ).order_by(acceptances.c.recepcion)
        ).all()
    assert [tuple(r) for r in stored_rows] == [(39_062, None, None), (39_062, None, None)]
    with engine.begin() as conn:
        advance(conn, load_offer(conn, "sin-tope"), "cerrada", "oficina", "cierre")
    done = adjudicate(engine, "sin-tope", "oficina", "adjudicación", date(2018, 3, 20))
    assert done.results["adjudicada"].to_list() == [30_000, 9_062]
    notes = done.header["notas"]
    assert isinstance(notes, list)
    (person,) = [n for n in notes if n.startswith("Reducidas")]
    assert "radicaciones anteriores" in person
    assert "«Cincuenta salarios mínimos de 2018» (Decreto de ejemplo art." in person


@pytest.mark.parametrize(("method", "linear"), METHODS)
def test_persons_numbered_once_each_are_shared_out_as_their_filings_are(
    method: str, linear: int | None
) -> None:
    # Five persons who filed once each, numbered 0…4 as the adjudication numbers them (in
    # no particular order): the count that tells them apart skips the grouping, and the
    # awards are exactly those of the same persons under other numbers (which are grouped
    # the long way) and of the filings shared out with no person at all.
    demand = np.array([6_000_000, 900_000, 2_500_001, 4_000_000, 7_777_777], dtype=np.int64)
    rule = program(method, "mayor_solicitud", linear)
    numbered = persons_of(np.array([3, 0, 4, 1, 2], dtype=np.uint32))
    assert numbered.one_filing_each
    assert numbered.label.tolist() == numbered.order.tolist() == [0, 1, 2, 3, 4]
    awards = allocate_offer(demand, numbered, [], 10_000_000, rule).awards.tolist()
    apart = np.array([30, 1, 40, 10, 20], dtype=np.int64)  # not 0…4: np.unique tells them
    assert allocate_offer(demand, apart, [], 10_000_000, rule).awards.tolist() == awards
    alone = allocate_program(demand, 10_000_000, rule.allocation).awards.tolist()
    assert awards == alone and sum(awards) == 10_000_000


def test_numbers_below_the_count_but_repeated_are_still_one_person() -> None:
    # 0…2 for three filings, but person 1 filed twice: the count finds the repeat, and the
    # two filings are one acceptant (the first takes what it asked, the second the rest).
    persons = persons_of(np.array([1, 0, 1], dtype=np.uint32))
    assert not persons.one_filing_each
    demand = np.array([100, 50, 30], dtype=np.int64)
    assert totals(persons, demand).tolist() == [130, 50]
    assert divide(persons, np.array([110, 50], dtype=np.int64), demand).tolist() == [100, 50, 10]
