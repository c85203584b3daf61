"""The login lockout and the limits per address, kept in PostgreSQL for every process.

Why: kept in each process's memory, with three service processes (or three machines behind
a proxy) a guesser got three times the attempts, one lot from each. On PostgreSQL every
process reads and writes the same rows instead (``fallos_de_entrada``,
``intentos_por_direccion``), with the very arithmetic and words of the in-memory ones
(``lockout.after_failure``, ``throttle.refusal``), so the numbers are the single process's
whichever process is asked. Time is the database's clock, the same for every machine.

Each change to a pair (account-and-address, or group-and-address) is made in one short
transaction holding a transaction-scoped advisory lock on that pair, so two processes
counting the same pair at once count it twice, never once. Only the guarded doors pay
the round trips (logins, the public lookup of a result, the verifier); nothing on a
broker's filings. SQLite, one machine, keeps the in-memory ones (``limits_for``).
"""

from __future__ import annotations

from sqlalchemy import Connection, Engine, delete, func, insert, select, text, update

from democratiza.storage.schema import address_attempts, login_failures
from democratiza.web.security.lockout import (
    FIRST_WAIT,
    FORGET_AFTER,
    FREE_FAILURES,
    LONGEST_WAIT,
    Failures,
    Lockout,
    LoginWaits,
    after_failure,
    seconds_left,
)
from democratiza.web.security.throttle import GUARDED, AttemptLimit, Throttle, refusal

MICRO = 1_000_000
_NOW = text("SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint")
_LOCK = text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))")


def database_clock(conn: Connection) -> int:
    """The database's clock, in microseconds (the same for every process and machine)."""
    return int(conn.execute(_NOW).scalar_one())


def lock_pair(conn: Connection, key: str) -> None:
    """Hold the transaction-scoped advisory lock of ``key`` until the transaction ends."""
    conn.execute(_LOCK, {"key": key})


class SharedLockout:
    """``lockout.Lockout``'s rule, with its counts in ``fallos_de_entrada``."""

    def __init__(
        self,
        engine: Engine,
        free: int = FREE_FAILURES,
        first: float = FIRST_WAIT,
        longest: float = LONGEST_WAIT,
    ) -> None:
        self.engine, self.free, self.first, self.longest = engine, free, first, longest

    def wait(self, login: str, address: str) -> int:
        t = login_failures.c
        with self.engine.connect() as conn:
            now = database_clock(conn)
            until = conn.execute(
                select(t.espera_hasta).where(t.login == login, t.direccion == address)
            ).scalar()
        found = None if until is None else Failures(0, 0.0, until / MICRO)
        return seconds_left(found, now / MICRO)

    def failed(self, login: str, address: str) -> int:
        t = login_failures.c
        with self.engine.begin() as conn:
            lock_pair(conn, f"entrada:{login}\n{address}")
            now = database_clock(conn)
            # A pair with no failure for an hour is forgotten, whoever's (the table stays small).
            conn.execute(delete(login_failures).where(t.ultimo <= now - int(FORGET_AFTER * MICRO)))
            row = conn.execute(
                select(t.fallos, t.ultimo, t.espera_hasta).where(
                    t.login == login, t.direccion == address
                )
            ).first()
            before = None if row is None else Failures(row[0], row[1] / MICRO, row[2] / MICRO)
            after, wait = after_failure(before, now / MICRO, self.free, self.first, self.longest)
            values = {
                "fallos": after.count,
                "ultimo": now,
                "espera_hasta": now + wait * MICRO if wait else now,
            }
            if row is None:
                conn.execute(
                    insert(login_failures).values(login=login, direccion=address, **values)
                )
            else:
                where = (t.login == login) & (t.direccion == address)
                conn.execute(update(login_failures).where(where).values(**values))
        return wait

    def succeeded(self, login: str, address: str) -> None:
        t = login_failures.c
        with self.engine.begin() as conn:
            lock_pair(conn, f"entrada:{login}\n{address}")
            conn.execute(delete(login_failures).where(t.login == login, t.direccion == address))


class SharedThrottle:
    """``throttle.Throttle``'s rule, with the attempts in ``intentos_por_direccion``."""

    def __init__(self, engine: Engine, limit: int = 20, window: float = 60.0) -> None:
        self.engine, self.limit, self.window = engine, limit, window

    def attempt(self, route_name: str, address: str) -> None:
        group = GUARDED.get(route_name)
        if group is None:
            return
        t = address_attempts.c
        with self.engine.begin() as conn:
            lock_pair(conn, f"intentos:{group}\n{address}")
            now = database_clock(conn)
            conn.execute(
                delete(address_attempts).where(t.momento <= now - int(self.window * MICRO))
            )
            count, oldest = conn.execute(
                select(func.count(), func.min(t.momento)).where(
                    t.grupo == group, t.direccion == address
                )
            ).one()
            if count >= self.limit:
                raise refusal(oldest / MICRO, now / MICRO, self.window)
            conn.execute(
                insert(address_attempts).values(grupo=group, direccion=address, momento=now)
            )


def limits_for(engine: Engine) -> tuple[LoginWaits, AttemptLimit]:
    """The lockout and the limits per address for the service on this database."""
    if engine.dialect.name == "postgresql":
        return SharedLockout(engine), SharedThrottle(engine)
    return Lockout(), Throttle()
