"""The audit log: every change, who made it and when, chained by hash so tampering shows.

Why a chain: the control bodies the decrees name (auditors) must be able to trust that the
record of an offer's life was not edited afterwards. Each entry's ``huella`` is the SHA-256
of the previous entry's ``huella`` and the canonical JSON of the entry itself; editing,
deleting or reordering any entry breaks every hash from there on, and ``verify`` names the
first broken entry.

Entries are written inside the same transaction as the change they record, so a change and
its entry commit or roll back together. Appends are serialised: on PostgreSQL by a
transaction-scoped advisory lock taken before reading the last entry; on SQLite by the
database's single writer. A UNIQUE ``huella_anterior`` makes a fork impossible even if that
serialisation were bypassed: the second entry chained to the same predecessor is refused.

An entry caused by a web request carries that request's id (``solicitud``: the
``X-Request-Id`` the service answered with), so an operator goes from a log line to the
changes it made and back. The id is inside the hash when there is one: the body hashed is
the same as before plus ``"solicitud"``, and an entry without one (every entry written
before the column existed, and those of the command line) hashes exactly as it always did,
so old chains verify unchanged.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import polars as pl
from sqlalchemy import Connection, func, insert, select, text

from democratiza.money import group
from democratiza.storage.bulk import write_rows
from democratiza.storage.schema import audit_log

ENTRY_SCHEMA = pl.Schema(
    {
        "id": pl.Int64(),
        "cuando": pl.Datetime("us"),
        "quien": pl.String(),
        "accion": pl.String(),
        "entidad": pl.String(),
        "antes": pl.String(),
        "despues": pl.String(),
        "huella_anterior": pl.String(),
        "huella": pl.String(),
        "solicitud": pl.String(),
    }
)
GENESIS = "0" * 64  # the "previous hash" of the first entry
LOCK_KEY = 226_1995  # pg_advisory_xact_lock key of the audit chain (Ley 226 de 1995)
VERIFY_CHUNK = 5_000
# The id of the web request being answered in this context (set by the service for each
# request, by a background job and by the bulk lane for the request that started them): the
# ``solicitud`` of the entries written meanwhile.
current_request: ContextVar[str | None] = ContextVar("current_request", default=None)


def canonical(value: Mapping[str, Any] | None) -> str | None:
    """Sorted keys, no spaces, UTF-8 kept: the same content always gives the same text."""
    if value is None:
        return None
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def entry_hash(
    previous: str,
    entry_id: int,
    when: datetime,
    who: str,
    action: str,
    entity: str,
    before: str | None,
    after: str | None,
    request: str | None = None,
) -> str:
    fields: dict[str, Any] = {
        "id": entry_id,
        "cuando": when.isoformat(timespec="microseconds"),
        "quien": who,
        "accion": action,
        "entidad": entity,
        "antes": before,
        "despues": after,
    }
    if request is not None:  # absent, the body is the one entries always had
        fields["solicitud"] = request
    body = canonical(fields)
    assert body is not None
    return hashlib.sha256(f"{previous}\n{body}".encode()).hexdigest()


def request_now() -> str | None:
    """The id of the request being answered here (``None`` outside one: the command line)."""
    return current_request.get()


@contextmanager
def acting_as(request: str | None) -> Iterator[None]:
    """Inside, the request being answered is ``request`` (``request_now``); after, the one before.

    The one place that sets and resets it: the service for each request, a background job and
    the bulk lane for the request that started them.
    """
    token = current_request.set(request)
    try:
        yield
    finally:
        current_request.reset(token)


@dataclass(frozen=True)
class Change:
    """One change to record: who, what, on which entity, before and after, and the request
    that caused it (by default the one being answered where the change is described)."""

    who: str
    action: str
    entity: str
    before: Mapping[str, Any] | None
    after: Mapping[str, Any] | None
    request: str | None = field(default_factory=request_now)


def append_many(conn: Connection, changes: Sequence[Change]) -> list[int]:
    """Record changes in the caller's transaction, chained in order; returns their numbers.

    The chain's lock (PostgreSQL: an advisory transaction lock, so two writers never fork
    the chain) and the read of the last entry are taken once for all the changes: a group of
    single acceptances pays three round trips instead of three each. The chain is exactly
    what appending them one by one would give.
    """
    if not changes:
        return []
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})
    last = conn.execute(
        select(audit_log.c.id, audit_log.c.huella).order_by(audit_log.c.id.desc()).limit(1)
    ).first()
    entry_id, previous = (1, GENESIS) if last is None else (int(last.id) + 1, str(last.huella))
    values, numbers = [], []
    for change in changes:
        # Whole microseconds survive both databases' DateTime unchanged.
        when = datetime.now()
        before, after = canonical(change.before), canonical(change.after)
        digest = entry_hash(
            previous,
            entry_id,
            when,
            change.who,
            change.action,
            change.entity,
            before,
            after,
            change.request,
        )
        values.append(
            {
                "id": entry_id,
                "cuando": when,
                "quien": change.who,
                "accion": change.action,
                "entidad": change.entity,
                "antes": before,
                "despues": after,
                "huella_anterior": previous,
                "huella": digest,
                "solicitud": change.request,
            }
        )
        numbers.append(entry_id)
        entry_id, previous = entry_id + 1, digest
    if len(values) == 1:
        conn.execute(insert(audit_log), values)
    else:
        # Many entries (a group of single acceptances): by COPY on PostgreSQL, cheaper than
        # building and rewriting a many-row INSERT; ``BulkWriteRefused`` if refused.
        write_rows(conn, audit_log, pl.DataFrame(values, schema=ENTRY_SCHEMA))
    return numbers


def append(
    conn: Connection,
    who: str,
    action: str,
    entity: str,
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any] | None,
) -> int:
    """Record one change in the caller's transaction; returns the entry's number."""
    return append_many(conn, [Change(who, action, entity, before, after)])[0]


@dataclass(frozen=True)
class Missed:
    """The first anchor a chain that verifies no longer holds, as data, for a caller that
    words it its own way (``verification.chain_head``: the head a package names)."""

    anchor: Anchor
    found: str | None  # the hash the chain holds at the anchored entry; None: it ends before
    held: int  # the last anchored entry before it that still holds (0: none)


@dataclass(frozen=True)
class ChainReport:
    entries: int
    broken_at: int | None  # the first entry that does not verify, or None
    reason: str | None  # why, in Spanish
    missed: Missed | None = None  # when it verifies but does not hold an anchor

    @property
    def ok(self) -> bool:
        return self.broken_at is None

    def message(self) -> str:
        if self.ok:
            return f"La cadena de auditoría está íntegra: {self.entries} entradas verificadas."
        return f"La cadena de auditoría está rota en la entrada {self.broken_at}: {self.reason}"


@dataclass(frozen=True)
class Anchor:
    """The number and hash of the last entry at some moment, kept outside the database.

    Why: the chain shows any entry altered, removed or reordered, but not the newest ones
    removed (what remains is a whole chain). An anchor written down elsewhere (the
    adjudication's minutes, an auditor's file) says how far the chain reached and with
    which hash; ``verify`` with it detects a chain cut short or rewritten from there.
    Written ``N:HASH``.
    """

    entries: int
    last_hash: str

    def text(self) -> str:
        return f"{self.entries}:{self.last_hash}"

    @classmethod
    def parse(cls, text: str) -> Anchor:
        number, _, digest = text.strip().partition(":")
        digest = digest.lower()
        if not number.isdigit() or len(digest) != 64 or digest.strip("0123456789abcdef"):
            raise ValueError(
                f"ancla no válida: '{text[:80]}' (se espera número:huella, la huella de 64 "
                "caracteres hexadecimales)"
            )
        return cls(int(number), digest)


def anchor(conn: Connection) -> Anchor:
    """The anchor of the chain as it is now (0 and the genesis hash when it is empty)."""
    last = conn.execute(
        select(audit_log.c.id, audit_log.c.huella).order_by(audit_log.c.id.desc()).limit(1)
    ).first()
    return Anchor(0, GENESIS) if last is None else Anchor(int(last.id), str(last.huella))


def locked_anchor(conn: Connection) -> Anchor:
    """The anchor as it is now, with the chain's lock taken for the rest of the transaction,
    so that no other writer appends before the caller's own entry: the anchor is then
    exactly the entry that entry will follow, and whatever the caller reads afterwards in the
    same transaction no other writer changes meanwhile, in any process.

    PostgreSQL: the chain's advisory transaction lock. SQLite: the database's one write lock,
    taken now (``BEGIN IMMEDIATE``) unless the transaction already wrote and so holds it (the
    driver begins a transaction only before its first write: a read before it sees no lock).
    """
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})
    elif conn.dialect.name == "sqlite" and not _writing(conn):
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    return anchor(conn)


def _writing(conn: Connection) -> bool:
    """Whether a SQLite connection is inside a transaction (so it holds the write lock)."""
    return bool(getattr(conn.connection.dbapi_connection, "in_transaction", False))


def verify(conn: Connection, anchored: Anchor | None = None) -> ChainReport:
    """Walk the chain from the first entry; stop at the first that does not verify.

    With an anchor, the chain must also still reach the anchored entry, with its hash.
    """
    return verify_entries(stored_chunks(conn), () if anchored is None else (anchored,))


def verify_entries(chunks: Iterable[Sequence[Any]], anchors: Sequence[Anchor] = ()) -> ChainReport:
    """``verify`` over entries from anywhere (the database, an auditor's export), in order,
    against any number of anchors (one per package published, say), in one walk.

    Each entry has the audit log's columns as attributes (``id``, ``cuando``, ``huella``…).
    Why several: one anchor says only that the chain was rewritten at its entry or before;
    several bound where. The first anchor the chain no longer reaches with its hash is
    named, and the last one before it that still holds says from which entry on the rewrite
    began. One anchor is the case of several with none before it: the same check, the same
    words.
    """
    report, found = walk(chunks, {a.entries for a in anchors if a.entries})
    if not report.ok:
        return report
    held = 0
    for kept in sorted(set(anchors), key=lambda a: a.entries):
        if not kept.entries:
            continue
        if kept.entries > report.entries:
            return ChainReport(
                report.entries,
                report.entries + 1,
                f"el ancla {kept.entries}:{kept.last_hash[:12]}… dice que la cadena llegaba a la "
                f"entrada {group(kept.entries)} y hoy termina en la {group(report.entries)}: "
                f"faltan las entradas {group(report.entries + 1)} a {group(kept.entries)}",
                Missed(kept, None, held),
            )
        if found.get(kept.entries) != kept.last_hash:
            since = "ninguna ancla anterior coincide"
            if held:
                since = f"la entrada anclada {group(held)} coincide"
            return ChainReport(
                report.entries,
                kept.entries,
                f"no es la entrada que se ancló: su huella no es la del ancla, y {since}: la "
                f"cadena fue reescrita desde una entrada entre la {group(held + 1)} y la "
                f"{group(kept.entries)} (comparada con un registro exportado antes, "
                "`democratiza auditoria verificar --cadena ARCHIVO`, se sabe desde cuál)",
                Missed(kept, found.get(kept.entries), held),
            )
        held = kept.entries
    return report


def stored_chunks(conn: Connection) -> Iterator[Sequence[Any]]:
    """The stored entries in order, ``VERIFY_CHUNK`` at a time."""
    after_id = 0
    while True:
        rows = conn.execute(
            select(audit_log)
            .where(audit_log.c.id > after_id)
            .order_by(audit_log.c.id)
            .limit(VERIFY_CHUNK)
        ).all()
        if not rows:
            return
        yield rows
        after_id = int(rows[-1].id)


def walk(
    chunks: Iterable[Sequence[Any]], keep: Collection[int] = ()
) -> tuple[ChainReport, dict[int, str]]:
    """The chain's report, and the hash of each entry in ``keep`` the walk reached."""
    previous, expected_id, seen = GENESIS, 1, 0
    kept: dict[int, str] = {}
    for rows in chunks:
        for row in rows:
            if row.id != expected_id:
                return ChainReport(
                    seen, expected_id, f"falta la entrada {expected_id} (sigue la {row.id})"
                ), kept
            if row.huella_anterior != previous:
                return ChainReport(
                    seen, row.id, "su huella anterior no es la huella de la entrada previa"
                ), kept
            again = entry_hash(
                previous,
                row.id,
                row.cuando,
                row.quien,
                row.accion,
                row.entidad,
                row.antes,
                row.despues,
                getattr(row, "solicitud", None),  # an export made before the column: none
            )
            if again != row.huella:
                return ChainReport(seen, row.id, "su contenido no corresponde a su huella"), kept
            if row.id in keep:
                kept[int(row.id)] = str(row.huella)
            previous, expected_id, seen = row.huella, expected_id + 1, seen + 1
    return ChainReport(seen, None, None), kept


def count(conn: Connection) -> int:
    return int(conn.execute(select(func.count()).select_from(audit_log)).scalar_one())


def entries(
    conn: Connection, limit: int = 100, before_id: int | None = None
) -> list[dict[str, Any]]:
    """The newest entries first (for the auditors' page and API), ``limit`` at a time."""
    query = select(audit_log).order_by(audit_log.c.id.desc()).limit(limit)
    if before_id is not None:
        query = query.where(audit_log.c.id < before_id)
    return [dict(r) for r in conn.execute(query).mappings()]
