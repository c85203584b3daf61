"""Write a columnar frame into a table: COPY on PostgreSQL, chunked INSERTs on SQLite.

Inside the caller's transaction, so a failure leaves nothing; the database's refusal comes
back as ``BulkWriteRefused`` with its first line (the driver's own errors are not wrapped by
SQLAlchemy on the COPY path).
"""

from __future__ import annotations

import io

import polars as pl
from sqlalchemy import Connection, Table, insert

INSERT_CHUNK = 20_000


class BulkWriteRefused(Exception):
    pass


def write_rows(conn: Connection, table: Table, rows: pl.DataFrame) -> None:
    if rows.is_empty():
        return
    if conn.dialect.name != "postgresql":
        for start in range(0, rows.height, INSERT_CHUNK):
            conn.execute(insert(table), rows.slice(start, INSERT_CHUNK).to_dicts())
        return
    buffer = io.BytesIO()
    rows.write_csv(buffer, include_header=False, datetime_format="%Y-%m-%d %H:%M:%S%.f")
    statement = f"COPY {table.name} ({', '.join(rows.columns)}) FROM STDIN WITH (FORMAT csv)"
    raw = conn.connection.driver_connection
    import psycopg

    try:
        with raw.cursor() as cursor, cursor.copy(statement) as copy:  # type: ignore[union-attr]
            copy.write(buffer.getvalue())
    except psycopg.Error as exc:
        raise BulkWriteRefused(str(exc).strip().splitlines()[0]) from None
