"""Has this broker batch been received already? One answer for every kind of batch.

And what a broker is told when the database refuses a batch's write.

Acceptances, orders and payments all come in batches a broker names; a batch sent again
with the same name and the same bytes stores nothing new (it is answered from what was
stored), and the same name with other bytes is refused: the broker must use a new name.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import polars as pl
from sqlalchemy import Connection, Row, Table, select
from sqlalchemy.exc import DBAPIError

from democratiza.tables.errors import InputError, InputRejected


def previous_batch(
    conn: Connection,
    table: Table,
    scope: dict[str, Any],
    broker: str,
    batch: str,
    digest: str,
    path: Path | str,
) -> Row[Any, Any, Any] | None:
    """The stored batch (``id``, ``filas``) with this name, or ``None``; other bytes refused."""
    row = conn.execute(
        select(table.c.id, table.c.huella, table.c.filas).where(
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


def foreign_row(source: str, row: int, broker: str) -> InputError:
    """A row that names another broker than the one whose batch it came in."""
    return InputError(
        source, row, "comisionista", f"la fila es de otro comisionista; el lote es de {broker}"
    )


def refuse_foreign_rows(frame: pl.DataFrame, broker: str, source: str) -> None:
    """A broker files only its own rows: any other broker's row refuses the whole batch."""
    foreign = frame.filter(pl.col("comisionista") != broker)
    if foreign.height:
        raise InputRejected([foreign_row(source, row, broker) for row in foreign["fila"]])


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
    """What a broker is told when the database refuses a batch: the reason's first line."""
    reason = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
    return refused_message(reason)


def refused_message(reason: str) -> str:
    return (
        f"La base de datos rechazó la escritura del lote ({reason}); no se guardó nada del "
        "lote y la oferta quedó como estaba."
    )
