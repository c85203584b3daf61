"""``storage.bulk.write_rows``: what goes in is what the database keeps, value for value.

On PostgreSQL large writes travel in the binary COPY format, each value already in the
column's own width, smaller ones as CSV and a few rows as one INSERT of a JSON parameter;
these examples take every column type the schema uses through the three and read the rows
back, with the values that a text format has to escape or that sit at a type's edges.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime

import polars as pl
import pytest
from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Date,
    DateTime,
    Engine,
    Integer,
    MetaData,
    Numeric,
    String,
    Table,
    Text,
    select,
)

from democratiza.storage import bulk
from democratiza.storage.bulk import BulkWriteRefused, insert_with_new_ids, wire_type, write_rows
from democratiza.storage.database import make_engine

metadata = MetaData()
every_type = Table(
    "todos_los_tipos",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("entero", Integer),
    Column("grande", BigInteger),
    Column("marca", Boolean),
    Column("dia", Date),
    Column("momento", DateTime),
    Column("corto", String(40)),
    Column("largo", Text),
)

ROWS = pl.DataFrame(
    {
        "id": [1, 2, 3, 4],
        "entero": [0, -2_147_483_648, 2_147_483_647, None],
        "grande": [4_800_000_000, -9_223_372_036_854_775_808, 9_223_372_036_854_775_807, None],
        "marca": [True, False, None, True],
        "dia": [date(2018, 2, 26), date(1999, 12, 31), date(1, 1, 1), None],
        "momento": [
            datetime(2018, 2, 26, 14, 26, 22, 123456),
            datetime(1999, 12, 31, 23, 59, 59, 999999),
            datetime(2000, 1, 1),
            None,
        ],
        "corto": ["000001-000001", "", None, "Ñandú"],
        "largo": [
            'Pérez, "Ana"\nsegunda línea',
            "tab\taquí y barra \\N",
            "emoji 🙂 y \r retorno",
            None,
        ],
    },
    schema_overrides={"dia": pl.Date, "momento": pl.Datetime("us")},
)


@pytest.fixture(params=["binario", "csv", "json"])
def encoding(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every write in binary (from the first row on), as CSV, or as one INSERT of JSON."""
    monkeypatch.setattr(bulk, "BINARY_ROWS", 0 if request.param == "binario" else 10**9)
    monkeypatch.setattr(bulk, "JSON_ROWS", 10**9 if request.param == "json" else -1)
    return str(request.param)


@pytest.fixture
def table_engine(db_url: str, encoding: str) -> Iterator[Engine]:
    engine = make_engine(db_url)
    metadata.create_all(engine)
    yield engine
    metadata.drop_all(engine)
    engine.dispose()


def test_every_column_type_is_read_back_as_written(table_engine: Engine) -> None:
    with table_engine.begin() as conn:
        write_rows(conn, every_type, ROWS)
    with table_engine.connect() as conn:
        stored = conn.execute(select(every_type).order_by(every_type.c.id)).all()
    assert [tuple(row) for row in stored] == ROWS.rows()


def test_integers_of_a_narrower_type_are_widened_to_the_column(table_engine: Engine) -> None:
    narrow = ROWS.head(1).with_columns(pl.lit(7, dtype=pl.Int32).alias("grande"))
    with table_engine.begin() as conn:
        write_rows(conn, every_type, narrow)
    with table_engine.connect() as conn:
        assert conn.execute(select(every_type.c.grande)).scalars().all() == [7]


def test_a_number_too_large_for_its_column_refuses_the_whole_write(
    table_engine: Engine, encoding: str
) -> None:
    """An ``Integer`` column holds 4 bytes in PostgreSQL (SQLite's integers are all 8)."""
    if table_engine.dialect.name != "postgresql":
        pytest.skip("SQLite stores any 8-byte integer in an Integer column")
    too_large = ROWS.slice(1, 1).with_columns(pl.lit(2_147_483_648).alias("entero"))
    said = "no cabe en el tipo de su columna" if encoding == "binario" else "out of range"
    with pytest.raises(BulkWriteRefused, match=said), table_engine.begin() as conn:
        write_rows(conn, every_type, pl.concat([ROWS.head(1), too_large]))
    with table_engine.connect() as conn:
        assert conn.execute(select(every_type.c.id)).scalars().all() == []


def test_a_column_type_without_a_binary_form_is_named() -> None:
    with pytest.raises(TypeError, match="sin tipo binario"):
        wire_type(Numeric(12, 2))


def test_new_ids_come_back_in_the_rows_order(table_engine: Engine) -> None:
    """``insert_with_new_ids``: each row gets the id returned in its place, also when another
    write drew ids from the same sequence in between (ids are not the rows' positions)."""
    values = ROWS.drop("id")
    schema = values.schema
    with table_engine.begin() as conn:
        first = insert_with_new_ids(conn, every_type, values.head(1).to_dicts(), schema)
        # Written in an order unlike the natural one: the last row first.
        rows = values.reverse().to_dicts()
        ids = insert_with_new_ids(conn, every_type, rows, schema)
    assert len(set(ids)) == len(rows) and first[0] not in ids
    with table_engine.connect() as conn:
        stored = {row.id: row.corto for row in conn.execute(select(every_type))}
    assert [stored[i] for i in ids] == [row["corto"] for row in rows]


def test_a_write_told_piece_by_piece_keeps_every_value(
    table_engine: Engine, encoding: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``progress``, 12 rows in pieces of 5 are told at 5, 10 and 12 (binary COPY and
    SQLite's INSERTs go piece by piece; CSV and JSON, for fewer rows, in one) and read back
    value for value as a write in one piece."""
    monkeypatch.setattr(bulk, "COPY_PIECE_ROWS", 5)
    monkeypatch.setattr(bulk, "INSERT_CHUNK", 5)
    rows = pl.concat([ROWS] * 3).with_columns(pl.int_range(1, 13).alias("id"))
    told: list[tuple[int, int]] = []
    with table_engine.begin() as conn:
        write_rows(conn, every_type, rows, lambda done, total: told.append((done, total)))
    in_pieces = table_engine.dialect.name != "postgresql" or encoding == "binario"
    assert told == ([(5, 12), (10, 12), (12, 12)] if in_pieces else [(12, 12)])
    with table_engine.connect() as conn:
        stored = conn.execute(select(every_type).order_by(every_type.c.id)).all()
    assert [tuple(row) for row in stored] == rows.rows()


def test_a_binary_copy_in_pieces_is_the_whole_frames_encoding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One way to encode, with or without a bar: 12 rows in pieces of 5 are exactly the bytes
    of the 12 in one piece, and say the rows sent where the first two pieces end."""
    rows = pl.concat([ROWS] * 3).with_columns(pl.int_range(1, 13).alias("id"))
    monkeypatch.setattr(bulk, "COPY_PIECE_ROWS", 1_000)
    whole = list(bulk._binary(every_type, rows))
    monkeypatch.setattr(bulk, "COPY_PIECE_ROWS", 5)
    pieces = list(bulk._binary(every_type, rows))
    assert b"".join(part for part, _ in pieces) == b"".join(part for part, _ in whole)
    assert [sent for _, sent in pieces if sent] == [5, 10]
    assert [sent for _, sent in whole if sent] == []
