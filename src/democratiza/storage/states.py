"""A row's state changed only from the state the caller saw (offers, stages).

Why the WHERE on the old state: two clerks moving the same offer at once both read
"abierta"; only one UPDATE finds it still so, and the other is told, instead of both
recording a transition.
"""

from __future__ import annotations

from sqlalchemy import Connection, Table, update


def move_state(conn: Connection, table: Table, row_id: int, seen: str, target: str) -> bool:
    """Set ``estado`` to ``target`` if it is still ``seen``; whether this call changed it."""
    changed = conn.execute(
        update(table).where(table.c.id == row_id, table.c.estado == seen).values(estado=target)
    ).rowcount
    return bool(changed == 1)
