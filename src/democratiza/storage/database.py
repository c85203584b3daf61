"""Where the data lives: a SQLite file by default, PostgreSQL when a URL says so.

The schema is created and upgraded only by Alembic migrations (``migrate``), never by
``metadata.create_all``, so the embedded default and production run the same DDL.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sqlalchemy import CursorResult, Engine, create_engine, event

DEFAULT_URL = "sqlite:///democratiza.db"
MIGRATIONS = Path(__file__).parent / "migrations"


def database_url(explicit: str | None = None) -> str:
    return explicit or os.environ.get("DEMOCRATIZA_DB") or DEFAULT_URL


def make_engine(url: str | None = None) -> Engine:
    url = database_url(url)
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    engine = create_engine(url)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(dbapi_connection: object, _record: object) -> None:
    cursor = dbapi_connection.cursor()  # type: ignore[attr-defined]
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")  # readers never block the one writer
    cursor.execute("PRAGMA busy_timeout=30000")
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
