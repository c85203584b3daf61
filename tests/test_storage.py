"""The migrated database is exactly the schema the code describes, on both databases."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine

from democratiza.storage.database import migrate
from democratiza.storage.schema import metadata


def test_migrations_create_exactly_the_described_schema(engine: Engine) -> None:
    with engine.connect() as conn:
        differences = compare_metadata(MigrationContext.configure(conn), metadata)
    assert differences == []


def test_migrating_twice_changes_nothing(engine: Engine) -> None:
    migrate(engine)
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
