"""A withdrawn acceptance, as it is shown: its last version stores "rechazada" with nothing
permitted (that is how it leaves the adjudication), but nobody refused it."""

from __future__ import annotations

from itertools import product

from sqlalchemy import create_engine, literal, select

from democratiza.web.api.offer_figures import decision_in_sql
from democratiza.words import WITHDRAWN, decision_of, decision_read


def test_a_withdrawn_acceptance_is_shown_as_withdrawn_never_as_rejected() -> None:
    assert decision_of("rechazada", WITHDRAWN) == "retirada"
    assert decision_read("rechazada", WITHDRAWN) == "retirada por su comisionista"


def test_any_other_state_keeps_the_decision_it_got() -> None:
    assert decision_of("rechazada", "radicada") == "rechazada"
    assert decision_of("reducida", "reevaluada") == "reducida"
    assert decision_read("aceptada", "corregida") == "aceptada"


def test_the_api_and_the_pages_read_the_same_withdrawn_word() -> None:
    # The API answers the identifier (``decision_of``), a page writes its word
    # (``decision_read``): the same rule, so they cannot disagree.
    for decision, state in [("rechazada", WITHDRAWN), ("reducida", "radicada")]:
        assert decision_read(decision, state) == decision_read(decision_of(decision, state), None)


def test_the_databases_count_of_decisions_reads_them_as_decision_of_does() -> None:
    """The API's figures count decisions in SQL (``decision_in_sql``): for every decision and
    every state an acceptance can have, it answers what ``decision_of`` answers."""
    decisions = ["aceptada", "reducida", "rechazada"]
    states = ["radicada", "corregida", WITHDRAWN, "reevaluada"]
    pairs = list(product(decisions, states))
    with create_engine("sqlite://").connect() as conn:
        shown = [
            conn.execute(select(decision_in_sql(literal(d), literal(s)))).scalar_one()
            for d, s in pairs
        ]
    assert shown == [decision_of(d, s) for d, s in pairs]
    assert shown.count(WITHDRAWN) == len(decisions)  # one per decision: the withdrawn state
