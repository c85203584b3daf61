"""The next piece made while the one before is used (``tables.ahead``): the same pieces in
the same order, an error where it happened, and nothing left running when the reader stops."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from democratiza.tables.ahead import Ahead


def test_the_items_come_in_their_order() -> None:
    with Ahead(iter(range(50))) as items:
        assert list(items) == list(range(50))


def test_an_error_is_raised_where_the_item_it_prevented_was_wanted() -> None:
    def pieces() -> Iterator[int]:
        yield 1
        yield 2
        raise ValueError("la tercera pieza no se pudo leer")

    seen = []
    with Ahead(pieces()) as items, pytest.raises(ValueError, match="tercera pieza"):
        for item in items:
            seen.append(item)
    assert seen == [1, 2]


def test_a_reader_that_stops_early_stops_the_thread_and_closes_the_source() -> None:
    closed = threading.Event()
    made = []

    def pieces() -> Iterator[int]:
        try:
            for n in range(1000):
                made.append(n)
                yield n
        finally:
            closed.set()

    with Ahead(pieces()) as items:
        for item in items:
            if item == 3:
                break
    assert closed.is_set()  # the file behind the pieces is closed when the reader stops
    assert len(made) <= 3 + 1 + 2  # at most one piece ahead, in the queue and in the making
    assert not any(t.name == "pieza-siguiente" and t.is_alive() for t in threading.enumerate())
