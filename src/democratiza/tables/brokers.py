"""A broker's file: read, typed, holding only that broker's own rows, none from the future.

Acceptances and orders are filed by a sociedad comisionista de bolsa for its own clients; a
row naming another broker refuses the whole file, as a bad cell does. The time a broker
declares for a row is kept, but the order of receipt is the system's (the radicado): a row
declaring a time after the batch was received is refused, with the reason.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import polars as pl

from democratiza.tables.errors import InputError, InputRejected
from democratiza.tables.format import FileFormat
from democratiza.tables.parse import parse
from democratiza.tables.readers import read_table


def read_broker_file(path: Path, fmt: FileFormat, broker: str, received: datetime) -> pl.DataFrame:
    """The file's rows typed by ``fmt``; refused whole if any cell is bad, any row foreign,
    or any row declares a time after ``received``."""
    frame = parse(read_table(path), fmt)
    refuse_foreign_rows(frame, broker, str(path))
    refuse_declared_after(frame, fmt, received, str(path))
    return frame


def declared_after(
    source: str, row: int, column: str, declared: datetime, received: datetime
) -> InputError:
    """A row whose declared filing time is later than the batch's receipt."""
    return InputError(
        source,
        row,
        column,
        f"la hora declarada ({declared:%Y-%m-%dT%H:%M:%S}) es posterior a la recepción del "
        f"lote ({received:%Y-%m-%dT%H:%M:%S}); el orden de radicación lo da la recepción",
    )


def refuse_declared_after(
    frame: pl.DataFrame, fmt: FileFormat, received: datetime, source: str
) -> None:
    """Refuse the file if any row declares a filing time after ``received``."""
    column = fmt.declared_time
    if column is None:
        return
    late = frame.filter(pl.col(column) > received)
    if late.height:
        raise InputRejected(
            [
                declared_after(source, row, column, declared, received)
                for row, declared in late.select("fila", column).iter_rows()
            ]
        )


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
