"""Write a columnar frame into a table: COPY on PostgreSQL, chunked INSERTs on SQLite.

Inside the caller's transaction, so a failure leaves nothing; the database's refusal comes
back as ``BulkWriteRefused`` with its first line (the driver's own errors are not wrapped by
SQLAlchemy on the COPY path).

Why binary COPY for large writes: in text (CSV) form the server spends about a third of a
large import reading numbers, dates and flags back out of their digits; in binary form each
value arrives as the server stores it (an ``int8`` as 8 bytes, a date as days since 2000),
and encoding it here (``pgpq``, from the frame's Arrow columns) costs less than writing CSV.
Why one INSERT for a few rows (up to ``JSON_ROWS``): a COPY is two round trips, an INSERT
whose values are one JSON parameter is one. Why CSV for small ones: the binary form has a
fixed cost (casting to the columns' widths,
converting to Arrow: about 1,3 ms for any frame up to a few hundred rows, against 0,3 ms of
CSV for 30 rows), which a group of single acceptances would pay on each of its writes. From
``BINARY_ROWS`` rows on, binary costs less on both sides.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl
from pgpq import ArrowToPostgresBinaryEncoder
from sqlalchemy import (
    BigInteger,
    Boolean,
    Connection,
    Date,
    DateTime,
    Integer,
    Row,
    String,
    Table,
    insert,
    text,
)
from sqlalchemy.exc import DBAPIError
from sqlalchemy.types import TypeEngine

if TYPE_CHECKING:
    import pyarrow as pa

INSERT_CHUNK = 20_000
# Rows of a binary COPY encoded and sent at once, and between two tellings of ``progress``:
# 200.000 acceptances are told ten times, each piece still one Arrow slice (no copy) and a
# few hundred kilobytes sent at once, while the server stores the one before.
COPY_PIECE_ROWS = 20_000
# SQLAlchemy's SQLite dialect stores a DateTime and a Date as this text (its storage formats).
SQLITE_DATETIME = "%Y-%m-%d %H:%M:%S%.6f"
SQLITE_DATE = "%Y-%m-%d"
# PostgreSQL's statement triggers (migration 0005) read the statement's new rows from a
# store kept in ``work_mem`` (4 MB by default) and written to a temporary file beyond it.
# 50.000 acceptances take about 13 MB: writing and reading that file back cost the server
# about a tenth of what storing the rows costs. Large writes raise it for their transaction.
TRANSITION_ROWS = 10_000
TRANSITION_MEMORY = "64MB"
BINARY_ROWS = 1_000  # from this many rows on, binary COPY; below, CSV
JSON_ROWS = 100  # up to this many rows, one INSERT of a JSON parameter (``_insert_json``)
# Each column type and the Polars type sent for it in binary; the first that fits wins
# (``BigInteger`` is an ``Integer``, ``Text`` a ``String``).
WIRE_TYPES: list[tuple[type[TypeEngine[Any]], pl.DataType]] = [
    (BigInteger, pl.Int64()),
    (Integer, pl.Int32()),
    (Boolean, pl.Boolean()),
    (DateTime, pl.Datetime("us")),
    (Date, pl.Date()),
    (String, pl.String()),
]


# Rows written so far, of the write's total (``write_rows``' ``progress``).
Written = Callable[[int, int], None]


class BulkWriteRefused(Exception):
    pass


def write_rows(
    conn: Connection, table: Table, rows: pl.DataFrame, progress: Written | None = None
) -> None:
    """Write ``rows`` into ``table``; ``progress``, if given, told the rows written so far
    after each piece and the total at the end (never row by row)."""
    if rows.is_empty():
        return
    total = rows.height
    if conn.dialect.name != "postgresql":
        _insert_sqlite(conn, table, rows, progress)
        return
    if rows.height <= JSON_ROWS:
        _insert_json(conn, table, rows)
        if progress:
            progress(total, total)
        return
    statement = f"COPY {table.name} ({', '.join(rows.columns)}) FROM STDIN"
    parts: Iterator[tuple[bytes, int]]
    if rows.height >= BINARY_ROWS:
        parts = _binary(table, rows)
        statement += " WITH (FORMAT binary)"
    else:
        buffer = io.BytesIO()
        rows.write_csv(buffer, include_header=False, datetime_format="%Y-%m-%d %H:%M:%S%.f")
        parts = iter([(buffer.getvalue(), 0)])
        statement += " WITH (FORMAT csv)"
    if rows.height > TRANSITION_ROWS:
        conn.exec_driver_sql(f"SET LOCAL work_mem = '{TRANSITION_MEMORY}'")
    raw = conn.connection.driver_connection
    import psycopg

    try:
        with raw.cursor() as cursor, cursor.copy(statement) as copy:  # type: ignore[union-attr]
            for part, sent in parts:
                copy.write(part)
                if progress and sent:
                    progress(sent, total)
    except psycopg.Error as exc:
        raise BulkWriteRefused(str(exc).strip().splitlines()[0]) from None
    if progress:  # the COPY ended: the server has stored every row (and run its triggers)
        progress(total, total)


def _insert_json(conn: Connection, table: Table, rows: pl.DataFrame) -> None:
    """A few rows in one INSERT whose values are one JSON parameter (written by Polars).

    Why not COPY for a few rows: COPY is two round trips (the server first answers that it
    is ready for the data), and a group of single acceptances writes three tables; one
    statement is one. Each value is read by the column's own type
    (``json_populate_recordset`` on the table's row type), as COPY reads it.
    """
    names = ", ".join(rows.columns)
    statement = (
        f"INSERT INTO {table.name} ({names}) SELECT {names} "
        f"FROM json_populate_recordset(NULL::{table.name}, CAST(:rows AS json))"
    )
    try:
        conn.execute(text(statement), {"rows": rows.write_json()})
    except DBAPIError as exc:  # refused as a COPY is: its first line, the caller decides
        raise BulkWriteRefused(str(exc.orig).strip().splitlines()[0]) from None


def _insert_sqlite(
    conn: Connection, table: Table, rows: pl.DataFrame, progress: Written | None = None
) -> None:
    """Chunked INSERTs of the rows' values as the driver takes them (``sqlite_values``),
    ``progress`` told the rows written after each chunk.

    Why not SQLAlchemy's ``insert`` with a dict per row: binding each value through its
    type took two thirds of a large batch's write (100.000 acceptances: about 4 of 6 s),
    and on SQLite that time holds the database's one write lock from every other broker.
    """
    total = rows.height
    converted = sqlite_values(table, rows)
    if converted is None:  # a column type without a text form here: SQLAlchemy binds it
        for start in range(0, total, INSERT_CHUNK):
            conn.execute(insert(table), rows.slice(start, INSERT_CHUNK).to_dicts())
            if progress:
                progress(min(total, start + INSERT_CHUNK), total)
        return
    names = ", ".join(rows.columns)
    marks = ", ".join("?" for _ in rows.columns)
    statement = f"INSERT INTO {table.name} ({names}) VALUES ({marks})"
    for start in range(0, total, INSERT_CHUNK):
        conn.exec_driver_sql(statement, converted.slice(start, INSERT_CHUNK).rows())
        if progress:
            progress(min(total, start + INSERT_CHUNK), total)


def sqlite_values(table: Table, rows: pl.DataFrame) -> pl.DataFrame | None:
    """The rows with each value as SQLAlchemy's SQLite dialect binds it (``None`` if a
    column's type or values are not among those handled here).

    Dates and times become the dialect's text (``SQLITE_DATETIME``, ``SQLITE_DATE``), so a
    row reads back alike whichever path wrote it; integers, flags (stored as 0/1 either way)
    and text go as they are.
    """
    columns = []
    for name in rows.columns:
        kind, dtype = table.c[name].type, rows.schema[name]
        column = pl.col(name)
        if isinstance(kind, DateTime):
            if not (
                dtype == pl.Date or (isinstance(dtype, pl.Datetime) and dtype.time_zone is None)
            ):
                return None
            column = column.cast(pl.Datetime("us")).dt.strftime(SQLITE_DATETIME)
        elif isinstance(kind, Date):
            if not (dtype == pl.Date or isinstance(dtype, pl.Datetime)):
                return None
            column = column.dt.strftime(SQLITE_DATE)
        elif not isinstance(kind, Integer | Boolean | String):
            return None
        columns.append(column)
    return rows.select(columns)


def written_columns(table: Table) -> list[str]:
    """The columns a bulk write of new rows fills: all but the id the database draws."""
    return [c.name for c in table.columns if c.name != "id"]


def _binary(table: Table, rows: pl.DataFrame) -> Iterator[tuple[bytes, int]]:
    """The rows in PostgreSQL's binary COPY format, each column cast to its wire type.

    Each part comes with the rows sent once it is written, where a piece of
    ``COPY_PIECE_ROWS`` ends before the last (0 for the others). Cast here, before the COPY
    starts, so a value that does not fit refuses the write before anything is sent; encoded
    piece by piece as the parts are taken, so the server stores one piece while the next is
    encoded, and a bar, if any, is told as they go.
    """
    try:
        wire = rows.select(pl.col(c).cast(wire_type(table.c[c].type)) for c in rows.columns)
    except pl.exceptions.InvalidOperationError as exc:  # say, a number too large for int4
        first = str(exc).strip().splitlines()[0]
        raise BulkWriteRefused(f"un valor no cabe en el tipo de su columna: {first}") from None
    arrow = wire.to_arrow(compat_level=pl.CompatLevel.oldest())
    return _encoded(arrow, COPY_PIECE_ROWS)


def _encoded(arrow: pa.Table, piece_rows: int) -> Iterator[tuple[bytes, int]]:
    encoder = ArrowToPostgresBinaryEncoder(arrow.schema)
    yield encoder.write_header(), 0  # the encoder wants header, batches, end, in order
    total = arrow.num_rows
    for start in range(0, total, piece_rows):
        batches = arrow.slice(start, piece_rows).to_batches()
        for batch in batches[:-1]:
            yield encoder.write_batch(batch), 0
        sent = start + piece_rows
        yield encoder.write_batch(batches[-1]), sent if sent < total else 0
    yield encoder.finish(), 0


def wire_type(column_type: TypeEngine[Any]) -> pl.DataType:
    """The Polars type whose Arrow form ``pgpq`` sends as this column's binary value.

    Binary COPY has no conversions: an ``int4`` column reads exactly 4 bytes, so an
    ``Integer`` column is sent as Int32 and a ``BigInteger`` one as Int64.
    """
    for kind, dtype in WIRE_TYPES:
        if isinstance(column_type, kind):
            return dtype
    raise TypeError(f"sin tipo binario para la columna de tipo {column_type!r}")


def rows_with_keys(
    conn: Connection,
    table: Table,
    keys: pl.DataFrame,
    returned: Sequence[str],
    where: Mapping[str, object],
) -> list[Row[Any]]:
    """The rows of ``table`` matching ``where`` whose text columns ``keys.columns`` equal
    one row of ``keys``: each key looked up in the index that starts with ``where``'s
    columns and the keys' columns.

    Why written out on PostgreSQL: the keys go as one JSON parameter (written by Polars, not
    value by value by the driver), and each is one probe of the index. Left to the planner
    (IN lists, ``= ANY``), the lookups became one read of the whole offer while the table
    had no statistics yet (a new database, before autovacuum first analyses it): 60 ms
    instead of 2 for a group of single acceptances, and growing with the table. OFFSET 0
    keeps the planner from merging the probes into such a read. On SQLite the keys go the
    same way (``json_each``): bound one by one in IN lists of 2.000, they took 2,4 s of a
    375.905-row batch's write transaction (which holds every other writer back), now 0,7 s.
    """
    names = list(keys.columns)
    if conn.dialect.name == "postgresql":
        fixed = [f"{column} = :w_{column}" for column in where]
        matched = [f"{column} = k.{column}" for column in names]
        statement = text(
            f"SELECT t.{', t.'.join(returned)} "
            f"FROM json_to_recordset(CAST(:keys AS json)) AS k"
            f"({', '.join(f'{column} text' for column in names)}) "
            f"CROSS JOIN LATERAL (SELECT {', '.join(returned)} FROM {table.name} "
            f"WHERE {' AND '.join(fixed + matched)} OFFSET 0) AS t"
        )
        values = {f"w_{column}": value for column, value in where.items()}
        return list(conn.execute(statement, {"keys": keys.write_json(), **values}))
    # SQLite: the same, the keys read from one JSON text by ``json_each``; CROSS JOIN makes
    # them the outer loop, so each key is one probe of the index.
    fixed = [f"t.{column} = :w_{column}" for column in where]
    matched = [f"t.{column} = json_extract(k.value, '$.{column}')" for column in names]
    statement = text(
        f"SELECT t.{', t.'.join(returned)} FROM json_each(:keys) AS k "
        f"CROSS JOIN {table.name} AS t WHERE {' AND '.join(fixed + matched)}"
    )
    values = {f"w_{column}": value for column, value in where.items()}
    return list(conn.execute(statement, {"keys": keys.write_json(), **values}))


def insert_with_new_ids(
    conn: Connection, table: Table, rows: Sequence[Mapping[str, Any]], schema: pl.Schema
) -> list[int]:
    """Insert rows whose ``id`` the database assigns; their ids, in the rows' order.

    On PostgreSQL, a few rows (single acceptances filed together, each its own batch) go in
    one INSERT … RETURNING whose values are one JSON parameter: one round trip, where drawing
    the ids first and then a COPY took three (a many-row INSERT with a parameter per value
    cost more to build and for the driver to rewrite than to run). Many rows: the ids are
    drawn from the table's own sequence in one query and the rows go by COPY.
    """
    if conn.dialect.name != "postgresql":
        inserted = conn.execute(
            insert(table).returning(table.c.id, sort_by_parameter_order=True), list(rows)
        )
        return [int(row.id) for row in inserted]
    frame = pl.DataFrame(list(rows), schema=schema)
    if frame.height <= JSON_ROWS:
        # One statement: the ids drawn in the rows' order (the sort comes before the
        # output's ``nextval``), so in increasing order, and written with the rows.
        sequence = f"nextval(pg_get_serial_sequence('{table.name}', 'id'))"
        names = ", ".join(frame.columns)
        statement = (
            f"INSERT INTO {table.name} (id, {names}) SELECT {sequence}, {names} "
            f"FROM json_populate_recordset(NULL::{table.name}, CAST(:rows AS json)) "
            "WITH ORDINALITY AS r ORDER BY r.ordinality RETURNING id"
        )
        try:
            inserted = conn.execute(text(statement), {"rows": frame.write_json()})
        except DBAPIError as exc:
            raise BulkWriteRefused(str(exc.orig).strip().splitlines()[0]) from None
        return sorted(int(value) for value in inserted.scalars())
    drawn = conn.execute(
        text("SELECT nextval(pg_get_serial_sequence(:table, 'id')) FROM generate_series(1, :n)"),
        {"table": table.name, "n": len(rows)},
    )
    ids = [int(value) for value in drawn.scalars()]
    write_rows(conn, table, frame.with_columns(pl.Series("id", ids)))
    return ids
