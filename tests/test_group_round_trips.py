"""The round trips to the database of a group of single acceptances, counted.

Why a count: the time a group waits on the database is mostly its round trips (each one a
wake-up of the server's process, costly on a loaded machine), and a new check that adds a
query to every group shows here as a number, where a timed test would only be noise. What
one group of 30 filings of three brokers asks, on PostgreSQL:

- outside a transaction: the offer's stored version (its row's state, parameters and program
  hash with its price adjustments, in one query: the offer itself is read only when it has
  changed, ``offers.lifecycle.current_offer``), and which batch ids are stored;
- in one transaction: its brokers' batch numbers, the batches (ids drawn and rows written in
  one statement), the acceptances being corrected, the acceptances, the audit chain's lock,
  its last entry and the new entries; then the commit.

A resent group is answered from what was stored: reads only, no transaction; a filing that
was not accepted reads its row once more, to tell its reason as its first answer did.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from sqlalchemy import Engine, event

from democratiza.filing.singles import process_group, single_filing
from democratiza.filing.store import BatchResult
from tests.test_single_filings import open_offer, sample_rows

BROKERS = ["Casa de Bolsa", "Acciones y Valores", "Valores del Centro"]


@contextmanager
def round_trips(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """Statements, transactions committed, and COPYs sent while inside."""
    seen: Counter[str] = Counter()

    def statement(*_: Any) -> None:
        seen["sentencias"] += 1

    def committed(*_: Any) -> None:
        seen["commit"] += 1

    copy = psycopg.Cursor.copy

    def counted_copy(self: psycopg.Cursor[Any], *args: Any, **kwargs: Any) -> Any:
        seen["copy"] += 1
        return copy(self, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "copy", counted_copy)
    listeners = [("before_cursor_execute", statement), ("commit", committed)]
    for name, listener in listeners:
        event.listen(engine, name, listener)
    try:
        yield seen
    finally:
        for name, listener in listeners:
            event.remove(engine, name, listener)


def group(first: int) -> list[Any]:
    """Thirty filings of the sample's rows from ``first`` on, ten of each of three brokers."""
    rows = [{k: v for k, v in row.items() if k != "comisionista"} for row in sample_rows()]
    return [
        single_filing("central", rows[k], BROKERS[k % 3], f"s-{k}", "banco")
        for k in range(first, first + 30)
    ]


def test_a_group_of_thirty_asks_the_database_a_fixed_number_of_times(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_offer(engine, "central")
    # Done before: what a process does once, and each broker's first batch of the offer
    # (which creates the broker's counter).
    process_group(engine, group(100))
    with round_trips(engine, monkeypatch) as seen:
        outcomes = process_group(engine, group(0))
    assert all(isinstance(o, BatchResult) and o.created for o in outcomes)
    if engine.dialect.name == "postgresql":
        assert seen["sentencias"] == 9 and seen["commit"] == 1 and seen["copy"] == 0
    else:  # SQLite, in the process: no advisory lock, and a batch's INSERT per filing
        assert seen["sentencias"] == 8 + 29 and seen["commit"] == 1

    with round_trips(engine, monkeypatch) as seen:
        again = process_group(engine, group(0))
    assert all(isinstance(o, BatchResult) and not o.created for o in again)
    # Each resent filing: its batch and its rows read; one not accepted, its row read once
    # more to tell its reason again (on PostgreSQL streamed with COPY; nothing is written).
    told = sum(
        1 for o in again if isinstance(o, BatchResult) and o.decisions["decision"][0] != "aceptada"
    )
    assert 0 < told < 30
    assert seen["commit"] == 0
    if engine.dialect.name == "postgresql":
        assert seen["sentencias"] == 2 + 2 * 30 and seen["copy"] == told
    else:
        assert seen["sentencias"] == 2 + 2 * 30 + told and seen["copy"] == 0
