"""Database fixtures: every storage test runs on SQLite and on PostgreSQL.

PostgreSQL is the server at 127.0.0.1:5432 unless DEMOCRATIZA_TEST_PG names another (any
database of it: the run only uses it to create its own). Each test run creates a database of
its own with a unique name and drops it at the end, so two runs at once on the same server
never touch each other's tables; under pytest-xdist (``make test``) each worker is a run of
its own, and its name says which. Where no server answers, those tests are skipped with the
reason shown.

The command line's tables are as wide as ``COLUMNS`` says (rich, typer), read each time
they print: every test starts with 80 (``columns``), so that what it reads does not depend on
the terminal (or the lack of one) that the run, or an xdist worker, was started from; a test
gives another width with ``CliRunner.invoke(env=…)``. It is never set while the modules are
imported (all of them here, before any test): a console made with ``COLUMNS`` set keeps that
width, whatever a test gives.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

# Before anything of democratiza is imported (see above): a terminal, or a CI runner, that sets
# COLUMNS would otherwise fix the width of every console made at import, ``cli.common.err``
# first, and wrap what the tests read.
os.environ.pop("COLUMNS", None)

from sqlalchemy import Engine, make_url, text
from sqlalchemy.exc import OperationalError

from democratiza.cli.main import COMMANDS, loaded
from democratiza.storage.database import make_engine, migrate

SERVER_URL = os.environ.get("DEMOCRATIZA_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "solo")  # gw0, gw1… under xdist
RUN_DATABASE = f"democratiza_prueba_{WORKER}_{os.getpid()}_{uuid.uuid4().hex[:8]}"
# Every command's module imported now, with ``COLUMNS`` unset: ``democratiza`` imports a
# command's module only when it runs (``cli.main.COMMANDS``), and a module first imported
# inside a test would make its console with that test's width and keep it for the others.
for _name in COMMANDS:
    loaded(_name)


@pytest.fixture(autouse=True)
def columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """80 columns, what a run without a terminal gets (CI's), unless the test says otherwise."""
    monkeypatch.setenv("COLUMNS", "80")


def _admin() -> Engine:
    return make_engine(SERVER_URL).execution_options(isolation_level="AUTOCOMMIT")


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """This run's own PostgreSQL database, created now and dropped when the run ends."""
    admin = _admin()
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{RUN_DATABASE}"'))
    except OperationalError as exc:
        admin.dispose()
        pytest.skip(f"PostgreSQL no responde en {SERVER_URL}: {exc.orig}")
    url = make_url(SERVER_URL).set(database=RUN_DATABASE).render_as_string(hide_password=False)
    yield url
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{RUN_DATABASE}" WITH (FORCE)'))
    admin.dispose()


def fresh_postgres(url: str) -> None:
    """An empty schema in this run's database, for one test."""
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'democratiza.db'}"
    else:
        url: str = request.getfixturevalue("pg_url")
        fresh_postgres(url)
        yield url


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    engine = make_engine(db_url)
    migrate(engine)
    yield engine
    engine.dispose()
