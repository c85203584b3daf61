"""Counts as a person reads them: thousands with dots and the noun agreeing with the number."""

from __future__ import annotations

import pytest

from democratiza.words import count, filed, orders_filed


@pytest.mark.parametrize(
    ("n", "said"),
    [(1, "1 aceptación radicada"), (2, "2 aceptaciones radicadas"),
     (200_000, "200.000 aceptaciones radicadas"), (0, "0 aceptaciones radicadas")],
)  # fmt: skip
def test_a_batch_says_how_many_acceptances_in_agreement(n: int, said: str) -> None:
    assert filed(n) == said


def test_orders_and_refusals_agree_in_number() -> None:
    assert orders_filed(1) == "1 orden radicada"
    assert orders_filed(12_500) == "12.500 órdenes radicadas"
    assert count(1, "rechazada", "rechazadas") == "1 rechazada"
