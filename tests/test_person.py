"""One person, many acceptances (docs/lecturas.md): worked examples.

``recepcion`` is the order of receipt the system gave each filing (its radicado).
"""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from democratiza.rules import person as person_rules
from democratiza.rules.person import per_person


def filings() -> pl.DataFrame:
    # Person 1 files four times (one rejected); their smallest limit is 900 shares.
    return pl.DataFrame(
        {
            "tipo_identificacion": ["CC"] * 5,
            "numero_identificacion": ["1", "1", "1", "1", "2"],
            "recepcion": [3, 1, 2, 4, 5],
            "radicado": ["c", "a", "b", "d", "e"],
            "cantidad_permitida": [300, 500, 400, 100, 50],
            "limite_minimo": [1_000, 900, 1_200, None, None],
            "regla_limite": ["r1", "r9", "r12", None, None],
            "decision": ["aceptada", "aceptada", "reducida", "rechazada", "aceptada"],
            "regla_limitante": [None, None, "r12", None, None],
        }
    )


def test_the_limit_is_consumed_in_order_of_receipt_and_the_latest_is_reduced() -> None:
    out = per_person(filings()).select("radicado", "cantidad_persona", "usado_antes")
    assert out.rows() == [  # in the order of the input; c was received third
        ("c", 0, 900),  # received last among the valid ones: nothing left
        ("a", 500, 0),  # first received: all 500
        ("b", 400, 500),  # 500 + 400 = 900, exactly the limit
        ("d", 0, 900),  # rejected: takes nothing
        ("e", 50, 0),  # another person, no limit applied
    ]


def test_a_reduced_acceptance_names_the_filings_that_used_the_limit() -> None:
    out = per_person(filings()).select("radicado", "consumido_por")
    assert out.rows() == [("c", "a, b"), ("a", None), ("b", None), ("d", None), ("e", None)]


def test_an_acceptance_cut_by_the_persons_limit_is_reduced_by_the_rule_behind_it() -> None:
    # c was accepted whole at intake; the person's limit of 900 (rule r9, carried by a)
    # leaves it nothing, so it is reduced by r9. b keeps its own intake reduction.
    out = per_person(filings()).select("radicado", "decision", "regla_limitante")
    assert out.rows() == [
        ("c", "reducida", "r9"),
        ("a", "aceptada", None),
        ("b", "reducida", "r12"),
        ("d", "rechazada", None),
        ("e", "aceptada", None),
    ]


Filing = tuple[int, int, int, int | None, bool]  # person, received, asked, limit, rejected


def plain_per_person(drawn: list[Filing]) -> dict[str, int]:
    """Deliberately plain: each person's valid acceptances in order of receipt, taking what
    is left of the smallest limit any of them carries."""
    out: dict[str, int] = {}
    people: dict[int, list[tuple[int, str, int, int | None, bool]]] = {}
    for i, (person, day, asked, limit, rejected) in enumerate(drawn):
        people.setdefault(person, []).append((day, f"R{i:04d}", asked, limit, rejected))
    for filings_of_one in people.values():
        filings_of_one.sort(key=lambda f: (f[0], f[1]))
        limits = [f[3] for f in filings_of_one if not f[4] and f[3] is not None]
        limit = min(limits) if limits else None
        given_so_far = 0
        for _day, radicado, asked, _limit, rejected in filings_of_one:
            wanted = 0 if rejected else asked
            got = wanted if limit is None else max(0, min(wanted, limit - given_so_far))
            given_so_far += got
            out[radicado] = got
    return out


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 6),
            st.integers(1, 28),
            st.integers(0, 5_000),
            st.one_of(st.none(), st.integers(0, 8_000)),
            st.booleans(),
        ),
        min_size=1,
        max_size=60,
    )
)
def test_per_person_agrees_with_a_plain_loop(drawn: list[Filing]) -> None:
    rows: list[dict[str, object]] = [
        {
            "tipo_identificacion": "CC",
            "numero_identificacion": str(person),
            "recepcion": day * 1_000 + i,  # unique, in the drawn order within a day
            "radicado": f"R{i:04d}",
            "cantidad_permitida": asked,
            "limite_minimo": limit,
            "regla_limite": None if limit is None else "r",
            "decision": "rechazada" if rejected else "aceptada",
            "regla_limitante": None,
        }
        for i, (person, day, asked, limit, rejected) in enumerate(drawn)
    ]
    schema = {
        "limite_minimo": pl.Int64,
        "cantidad_permitida": pl.Int64,
        "regla_limite": pl.String,
        "regla_limitante": pl.String,
    }
    out = per_person(pl.DataFrame(rows, schema_overrides=schema))
    found = dict(zip(out["radicado"], out["cantidad_persona"], strict=True))
    assert found == plain_per_person(drawn)


def test_persons_whose_hashes_collide_are_still_told_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    """Persons are grouped by a 64-bit hash; were two hashes equal, the exact ranking is used."""
    expected = per_person(filings()).rows()
    monkeypatch.setattr(person_rules, "PERSON_HASH", pl.lit(7, dtype=pl.UInt64))  # all collide
    assert per_person(filings()).rows() == expected
