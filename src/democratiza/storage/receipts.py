"""Broker batches are stored once: the resend check, the one-transaction write, the refusals.

Acceptances, orders and payments all come in batches a broker names; a batch sent again
with the same name and the same bytes stores nothing new (it is answered from what was
stored), and the same name with other bytes is refused: the broker must use a new name.
A batch is written in one transaction (``store_once``): a refusal of the database leaves
nothing, and is told to the broker in one message.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine, Row, Table, select
from sqlalchemy.exc import DBAPIError, IntegrityError

from democratiza.storage.bulk import BulkWriteRefused
from democratiza.storage.faults import database_fault
from democratiza.tables.errors import InputError, InputRejected


def previous_batch(
    conn: Connection,
    table: Table,
    scope: dict[str, Any],
    broker: str,
    batch: str,
    digest: str,
    path: Path | str,
) -> Row[Any, Any, Any, Any] | None:
    """The stored batch (``id``, ``filas``, ``numero``) with this name, or ``None``; other
    bytes refused."""
    row = conn.execute(
        select(table.c.id, table.c.huella, table.c.filas, table.c.numero).where(
            *(table.c[name] == value for name, value in scope.items()),
            table.c.comisionista == broker,
            table.c.lote == batch,
        )
    ).first()
    if row is not None and row.huella != digest:
        raise InputRejected(
            [
                InputError(
                    str(path),
                    None,
                    None,
                    f"el lote '{batch}' de {broker} ya se recibió con otro contenido; "
                    "use un identificador de lote nuevo",
                )
            ]
        )
    return row


def file_hash(path: Path) -> str:
    """SHA-256 of a file as sent: a batch resent with the same bytes is recognised by it."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class StorageError(Exception):
    """The database refused the write; the transaction was rolled back whole."""


def refused_write(exc: DBAPIError) -> str:
    """What a broker is told when the database refuses a batch: a failure of the database
    itself in Spanish (``storage.faults``), any other refusal with its reason's first line."""
    known = database_fault(exc)
    if known is not None:
        return known
    reason = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
    return refused_message(reason)


def refused_message(reason: str) -> str:
    return (
        f"La base de datos rechazó la escritura del lote ({reason}); no se guardó nada del "
        "lote y la oferta quedó como estaba."
    )


Answer = TypeVar("Answer")
Owner = TypeVar("Owner")


def look_up(
    engine: Engine,
    path: Path,
    load: Callable[[Connection], Owner],
    resent: Callable[[Connection, Owner, str], Answer | None],
) -> tuple[Owner, str, Answer | None]:
    """What a received batch belongs to (an offer, a stage), its file's hash, and the
    stored answer if the same batch was received before (``None`` if it is new)."""
    digest = file_hash(path)
    with engine.connect() as conn:
        owner = load(conn)
        return owner, digest, resent(conn, owner, digest)


def store_once(
    engine: Engine,
    store: Callable[[Connection], Answer],
    resent: Callable[[Connection], Answer | None],
) -> Answer:
    """Store a batch in one transaction; the same batch stored meanwhile is answered as resent.

    ``store`` writes the batch in the transaction it is given and answers it; ``resent``
    answers a batch already stored (``None`` if it is not). If another process stored the
    same batch between the caller's check and this write, its unique key refuses this one
    and the broker gets the stored answer; any other refusal of the database is a
    ``StorageError``, and nothing of the batch was written.
    """
    try:
        with engine.begin() as conn:
            return store(conn)
    except IntegrityError as exc:
        with engine.connect() as conn:
            done = resent(conn)
        if done is None:
            raise StorageError(refused_write(exc)) from None
        return done
    except DBAPIError as exc:
        raise StorageError(refused_write(exc)) from None
    except BulkWriteRefused as exc:
        raise StorageError(refused_message(str(exc))) from None
