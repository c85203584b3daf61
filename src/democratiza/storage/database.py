"""Where the data lives: a SQLite file by default, PostgreSQL when a URL says so.

The schema is created and upgraded only by Alembic migrations (``migrate``), never by
``metadata.create_all``, so the embedded default and production run the same DDL.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sqlite3
from pathlib import Path
from typing import Any

import polars as pl
from sqlalchemy import Connection, CursorResult, Engine, Select, create_engine, event

DEFAULT_URL = "sqlite:///democratiza.db"
# How long SQLite waits for another writer before giving up (``storage.faults`` says so).
# Why so long: batches of 200.000 rows from several brokers at once queue for the one
# writer, each for seconds; each waits its turn instead of being refused.
SQLITE_WAIT_SECONDS = 600
MIGRATIONS = Path(__file__).parent / "migrations"
# psycopg logs "error ignored terminating <psycopg.Copy>" (English, on stderr) when a COPY is
# cut by a lost connection; the error itself is raised, and told in Spanish where caught.
logging.getLogger("psycopg").setLevel(logging.ERROR)


def database_url(explicit: str | None = None) -> str:
    return explicit or os.environ.get("DEMOCRATIZA_DB") or DEFAULT_URL


def sqlite_file(url: str) -> Path | None:
    """The file a plain ``sqlite:///path`` URL names (``None`` for any other URL)."""
    if not url.startswith("sqlite:///"):
        return None
    path = url.removeprefix("sqlite:///").split("?", 1)[0]
    return None if not path or path == ":memory:" or path.startswith("file:") else Path(path)


def archived(url: str) -> bool:
    """Whether the URL names an existing SQLite file that may not be written: the file or
    its folder without write permission (an archived copy), or on a read-only disk.

    Why the folder too: SQLite in WAL mode writes two files beside the database even to
    read it; in a folder that takes no new file, it can only read the file as immutable.
    """
    path = sqlite_file(url)
    if path is None or not path.is_file():
        return False
    folder = path.resolve().parent
    return not all(os.access(p, os.W_OK) and p.stat().st_mode & 0o222 for p in (path, folder))


def read_only(engine: Engine) -> bool:
    """Whether the engine reads an archived file (``make_engine`` opened it immutable)."""
    return engine.dialect.name == "sqlite" and engine.url.query.get("immutable") == "1"


def damage(engine: Engine, full: bool = False) -> str | None:
    """What SQLite's own check finds wrong in the file (``None`` if it is sound, is not yet
    made, or is PostgreSQL): ``quick_check`` (fast: pages and their structure) or, ``full``,
    ``integrity_check`` (also every index against its table). The file is opened read only
    for it, with none of the service's settings, so that checking writes nothing."""
    name = engine.url.database
    if engine.dialect.name != "sqlite" or not name:
        return None
    path = Path(name.removeprefix("file:"))
    if not path.is_file():
        return None
    pragma = "integrity_check" if full else "quick_check"
    extra = "&immutable=1" if read_only(engine) else ""
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro{extra}", uri=True)) as db:
            found = [str(r[0]) for r in db.execute(f"PRAGMA {pragma}(5)")]
    except sqlite3.DatabaseError:
        # Too damaged to be checked at all (not even a SQLite file): opening it for the
        # command fails the same way, and ``storage.faults`` tells that in Spanish.
        return None
    return None if found == ["ok"] else "; ".join(found)[:300]


def make_engine(url: str | None = None) -> Engine:
    url = database_url(url)
    options: dict[str, Any] = {}
    if archived(url):
        # Read only, as immutable: no lock, no journal, nothing written beside the file.
        path = sqlite_file(url)
        assert path is not None
        engine = create_engine(f"sqlite:///file:{path.resolve()}?mode=ro&immutable=1&uri=true")
        event.listen(engine, "connect", _read_only_pragmas)
        return engine
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
        # Why a larger pool: the web service checks a token or files from up to ~40 threads
        # at once; connections beyond the pool are closed on return, and opening one costs
        # the server a new process, which under load cost more than the queries themselves.
        # At most 30 per process (PostgreSQL allows 100 by default); more requests at once
        # wait for a connection.
        options = {"pool_size": 20, "max_overflow": 10}
    engine = create_engine(url, **options)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(dbapi_connection: object, _record: object) -> None:
    cursor = dbapi_connection.cursor()  # type: ignore[attr-defined]
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")  # readers never block the one writer
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_WAIT_SECONDS * 1000}")
    cursor.close()


def _read_only_pragmas(dbapi_connection: object, _record: object) -> None:
    cursor = dbapi_connection.cursor()  # type: ignore[attr-defined]
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def migrate(engine: Engine) -> None:
    """Bring the database to the latest schema (idempotent)."""
    # Imported here: Alembic takes half a second to import and most commands never migrate.
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def new_id(result: CursorResult[Any]) -> int:
    """The primary key an INSERT created."""
    key = result.inserted_primary_key
    assert key is not None, "an INSERT of one row always has a primary key"
    return int(key[0])


def read_frame(
    conn: Connection, statement: Select[Any], schema: dict[str, pl.DataType]
) -> pl.DataFrame:
    """A query's rows as a typed frame; PostgreSQL streams them with COPY (no row objects)."""
    if conn.dialect.name == "postgresql":
        sql = str(statement.compile(conn, compile_kwargs={"literal_binds": True}))
        buffer = io.BytesIO()
        raw = conn.connection.driver_connection
        assert raw is not None, "an open connection has its driver connection"
        with (
            raw.cursor() as cursor,
            cursor.copy(f"COPY ({sql}) TO STDOUT WITH (FORMAT csv)") as copy,
        ):
            for block in copy:
                buffer.write(block)
        if buffer.tell() == 0:
            return pl.DataFrame(schema=schema)
        text_schema = {name: pl.String() for name in schema}
        frame = pl.read_csv(buffer.getvalue(), has_header=False, schema=text_schema)
        return frame.select(_from_text(name, dtype) for name, dtype in schema.items())
    rows = conn.execute(statement).all()
    return pl.DataFrame([tuple(r) for r in rows], schema=schema, orient="row")


def _from_text(name: str, dtype: pl.DataType) -> pl.Expr:
    column = pl.col(name)
    if dtype == pl.Boolean():
        return (column == "t").alias(name)
    if isinstance(dtype, pl.Datetime):
        return column.str.to_datetime(time_unit="us").alias(name)
    if dtype == pl.Date():
        return column.str.to_date().alias(name)
    return column.cast(dtype).alias(name)
