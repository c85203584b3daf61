"""Turns that every process on one PostgreSQL takes in order: advisory locks by name.

Why: a lock in a process's memory orders only that process's threads; with several service
processes (or machines) on one database, a broker's second batch sent to another process
did not wait for its first. PostgreSQL's session advisory locks are held by a connection,
so a process killed outright releases its turns with its connection, and nothing is written
for them. On SQLite (one machine, one process holds the service) there is nothing to take:
the callers' own locks in memory are the turn there.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, text

_TAKE = text("SELECT pg_advisory_lock(hashtextextended(:key, 0))")
_TRY = text("SELECT pg_try_advisory_lock(hashtextextended(:key, 0))")
_GIVE = text("SELECT pg_advisory_unlock(hashtextextended(:key, 0))")


def shared(engine: Engine) -> bool:
    """Whether processes share turns through this database (PostgreSQL)."""
    return engine.dialect.name == "postgresql"


@contextmanager
def turn(engine: Engine, key: str) -> Iterator[None]:
    """Wait for the turn named ``key`` among every process, and hold it inside the block."""
    if not shared(engine):
        yield
        return
    with engine.connect() as conn:
        conn.execute(_TAKE, {"key": key})
        conn.commit()  # the lock is the session's: no transaction stays open while held
        try:
            yield
        finally:
            conn.execute(_GIVE, {"key": key})
            conn.commit()


@contextmanager
def turn_if_free(engine: Engine, key: str) -> Iterator[bool]:
    """Take the turn ``key`` only if no process holds it; ``True`` inside if taken.

    On SQLite always ``True`` (the caller's own lock in memory decides).
    """
    if not shared(engine):
        yield True
        return
    with engine.connect() as conn:
        taken = bool(conn.execute(_TRY, {"key": key}).scalar_one())
        conn.commit()
        try:
            yield taken
        finally:
            if taken:
                conn.execute(_GIVE, {"key": key})
                conn.commit()
