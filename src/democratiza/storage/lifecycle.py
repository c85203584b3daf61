"""The life of a row with states (an offer, a stage): every move is an event with its reason.

Offers and later stages live the same way: a state that moves only to the next one (or, for
a stage, to desierta), only from the state the caller saw, and only with a reason; every
move and every other event (an interruption, a creation) is a row of the kind's events table
with who, when and why, and an entry of the audit log. ``Life`` says which tables and words
a kind uses; the rest is here once.

Why the WHERE on the old state: two clerks moving the same offer at once both read
"abierta"; only one UPDATE finds it still so, and the other is told, instead of both
recording a transition.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Table, insert, update

from democratiza.storage import audit


@dataclass(frozen=True)
class Life:
    """How one kind of row lives: its tables, its next states and the words for it."""

    rows: Table  # the rows with a state (``ofertas``, ``etapas``), with ``id`` and ``estado``
    events: Table  # their events: ``tipo``, ``de_estado``, ``a_estado``, who, when and why
    owner: str  # the events' column naming the row (``oferta_id``, ``etapa_id``)
    noun: str  # "oferta", "etapa": the audit action's prefix and the messages' subject
    audit_path: str  # the row in the audit log, from its ``id`` or ``code``: "ofertas/{id}"
    next: Mapping[str, str]  # each state's next one
    error: type[Exception]  # what a refused move raises, with a message for the person
    details: bool = False  # the events table keeps each event's ``detalle``


@dataclass(frozen=True)
class Row:
    """One row of a kind: its id and the code people know it by."""

    id: int
    code: str


def canonical_json(values: Mapping[str, Any]) -> str:
    """The text a stored dict is kept as: sorted keys, accents as written."""
    return json.dumps(values, sort_keys=True, ensure_ascii=False, default=str)


def move_state(conn: Connection, table: Table, row_id: int, seen: str, target: str) -> bool:
    """Set ``estado`` to ``target`` if it is still ``seen``; whether this call changed it."""
    changed = conn.execute(
        update(table).where(table.c.id == row_id, table.c.estado == seen).values(estado=target)
    ).rowcount
    return bool(changed == 1)


def record_event(
    conn: Connection,
    life: Life,
    row: Row,
    kind: str,
    states: tuple[str | None, str | None],
    who: str,
    why: str,
    detail: Mapping[str, Any] | None = None,
) -> None:
    """One event of the row, refused without a reason."""
    if not why.strip():
        raise life.error(f"Todo cambio de la {life.noun} debe decir por qué.")
    before, after = states
    values: dict[str, Any] = {
        life.owner: row.id,
        "tipo": kind,
        "de_estado": before,
        "a_estado": after,
        "quien": who,
        "cuando": datetime.now(),
        "por_que": why,
    }
    if life.details:
        values["detalle"] = canonical_json(detail) if detail else None
    conn.execute(insert(life.events).values(**values))
    changed: dict[str, Any] = {"estado": after, "por_que": why}
    if life.details:
        changed["detalle"] = detail
    seen = {"estado": before} if before or life.details else None
    where = life.audit_path.format(id=row.id, code=row.code)
    audit.append(conn, who, f"{life.noun}.{kind}", where, seen, changed)


def move(
    conn: Connection,
    life: Life,
    row: Row,
    states: tuple[str, str],
    who: str,
    why: str,
    kind: str = "transicion",
    detail: Mapping[str, Any] | None = None,
) -> None:
    """Move the row from the state seen to ``target``, refused if it changed meanwhile."""
    seen, target = states
    if not move_state(conn, life.rows, row.id, seen, target):
        raise life.error(f"La {life.noun} '{row.code}' cambió de estado mientras tanto.")
    record_event(conn, life, row, kind, (seen, target), who, why, detail)


def advance(
    conn: Connection,
    life: Life,
    row: Row,
    states: tuple[str, str],
    who: str,
    why: str,
    detail: Mapping[str, Any] | None = None,
) -> None:
    """Move the row to its next state; any other move is refused and nothing changes."""
    seen, target = states
    if life.next.get(seen) != target:
        raise life.error(f"La {life.noun} '{row.code}' está {seen}; no puede pasar a {target}.")
    move(conn, life, row, states, who, why, detail=detail)
