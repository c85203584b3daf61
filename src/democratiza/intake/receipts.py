"""Has this broker batch been received already? One answer for every kind of batch.

Acceptances, orders and payments all come in batches a broker names; a batch sent again
with the same name and the same bytes stores nothing new (it is answered from what was
stored), and the same name with other bytes is refused: the broker must use a new name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
from sqlalchemy import Connection, Row, Table, select

from democratiza.intake.errors import InputError, InputRejected


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
