"""A broker's file: read, typed, and holding only that broker's own rows.

Acceptances and orders are filed by a sociedad comisionista de bolsa for its own clients; a
row naming another broker refuses the whole file, as a bad cell does.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from democratiza.tables.errors import InputError, InputRejected
from democratiza.tables.format import FileFormat
from democratiza.tables.parse import parse
from democratiza.tables.readers import read_table


def read_broker_file(path: Path, fmt: FileFormat, broker: str) -> pl.DataFrame:
    """The file's rows typed by ``fmt``; refused whole if any cell is bad or any row foreign."""
    frame = parse(read_table(path), fmt)
    refuse_foreign_rows(frame, broker, str(path))
    return frame


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
