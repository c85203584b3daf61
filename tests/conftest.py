"""Database fixtures: every storage test runs on SQLite and on PostgreSQL.

PostgreSQL is the one at 127.0.0.1:5432 (database ``test``) unless DEMOCRATIZA_TEST_PG says
otherwise; where no server answers, those tests are skipped with the reason shown.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import OperationalError

from democratiza.storage.database import make_engine, migrate

PG_URL = os.environ.get("DEMOCRATIZA_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def _fresh_postgres() -> Engine:
    engine = make_engine(PG_URL)
    try:
        with engine.begin() as conn:
            conn.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
            conn.execute(text("CREATE SCHEMA public"))
    except OperationalError as exc:
        pytest.skip(f"PostgreSQL no responde en {PG_URL}: {exc.orig}")
    return engine


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'democratiza.db'}"
    else:
        _fresh_postgres().dispose()
        yield PG_URL


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    engine = make_engine(db_url)
    migrate(engine)
    yield engine
    engine.dispose()
