"""Rows that are never changed in place: a change is a new version, the old one is kept.

Acceptances and orders are irrevocable once filed: a correction or a withdrawal makes the
current version history (``vigente`` false) and stores the next one; auditors read all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, Table, insert, select, update

from democratiza.storage import audit
from democratiza.words import WITHDRAWN

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


def withdrawn_radicados(conn: Connection, table: Table, scope: Mapping[str, Any]) -> list[str]:
    """The radicados whose current version in ``scope`` (an offer, a stage) was withdrawn."""
    found = conn.execute(
        select(table.c.radicado).where(
            *(table.c[name] == value for name, value in scope.items()),
            table.c.vigente,
            table.c.estado == WITHDRAWN,
        )
    ).scalars()
    return list(found)


def withdraw(
    conn: Connection,
    table: Table,
    scope: Mapping[str, Any],
    radicado: str,
    who: str,
    why: str,
    audit_entry: tuple[str, str],
    **changes: Any,
) -> bool:
    """Withdraw the current version of ``radicado``: a new version ``retirada``, audited.

    ``scope`` names the offer or stage it belongs to; ``audit_entry`` the audit log's action
    and path; ``changes`` what the withdrawn version records besides its state. Whether there
    was a current version to withdraw.
    """
    row = (
        conn.execute(
            select(table).where(
                *(table.c[name] == value for name, value in scope.items()),
                table.c.radicado == radicado,
                table.c.vigente,
            )
        )
        .mappings()
        .first()
    )
    if row is None:
        return False
    supersede(conn, table, row, estado=WITHDRAWN, **changes)
    action, where = audit_entry
    audit.append(
        conn,
        who,
        action,
        where,
        {"version": row["version"], "estado": row["estado"]},
        {"version": row["version"] + 1, "estado": WITHDRAWN, "motivo": why},
    )
    return True
