"""Rows that are never changed in place: a change is a new version, the old one is kept.

Acceptances and orders are irrevocable once filed: a correction or a withdrawal makes the
current version history (``vigente`` false) and stores the next one; auditors read all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, Table, insert, update

RETIRE_CHUNK = 5_000  # ids per UPDATE, below SQLite's limit of bound parameters


def retire(conn: Connection, table: Table, ids: Sequence[int]) -> None:
    """The current versions with these ids become history (their next ones follow)."""
    for start in range(0, len(ids), RETIRE_CHUNK):
        chunk = ids[start : start + RETIRE_CHUNK]
        conn.execute(update(table).where(table.c.id.in_(chunk)).values(vigente=False))


def supersede(conn: Connection, table: Table, current: Mapping[Any, Any], **changes: Any) -> None:
    """Store the next version of ``current`` (a whole row, with its id) with ``changes``."""
    retire(conn, table, [current["id"]])
    following = {k: v for k, v in current.items() if k != "id"}
    following.update(version=current["version"] + 1, vigente=True, **changes)
    conn.execute(insert(table).values(**following))
