"""On PostgreSQL the lockout, the limits per address and the turns are the database's, so two
service processes (here two engines, each its own pool, as two processes have) count as one."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine

from democratiza.storage import advisory
from democratiza.storage.database import make_engine, migrate
from democratiza.web.errors import TooManyRequests
from democratiza.web.security.auth import create_token, revoke_token
from democratiza.web.security.lockout import Lockout
from democratiza.web.security.shared_limits import SharedLockout, SharedThrottle, limits_for
from democratiza.web.security.throttle import Throttle
from democratiza.web.security.token_cache import RevocationListener, TokenCache
from tests.conftest import fresh_postgres


@pytest.fixture
def two(pg_url: str) -> Iterator[tuple[Engine, Engine]]:
    fresh_postgres(pg_url)
    first, second = make_engine(pg_url), make_engine(pg_url)
    migrate(first)
    yield first, second
    first.dispose()
    second.dispose()


def test_failed_logins_from_two_processes_count_together(two: tuple[Engine, Engine]) -> None:
    one, other = SharedLockout(two[0]), SharedLockout(two[1])
    # Four failures in one process and the fifth in the other: the fifth starts the 30 s.
    assert [one.failed("ana", "10.0.0.1") for _ in range(4)] == [0, 0, 0, 0]
    assert other.failed("ana", "10.0.0.1") == 30
    assert 29 <= one.wait("ana", "10.0.0.1") <= 30
    assert one.wait("ana", "10.0.0.2") == 0  # another address: its own count
    assert other.wait("otra", "10.0.0.1") == 0  # another account: its own count
    one.succeeded("ana", "10.0.0.1")  # a success in either clears it for both
    assert other.wait("ana", "10.0.0.1") == 0 and other.failed("ana", "10.0.0.1") == 0


def test_failures_at_the_same_moment_are_each_counted(two: tuple[Engine, Engine]) -> None:
    """Ten at once from two processes: the lock per pair counts ten, never fewer."""
    locks = [SharedLockout(two[n % 2]) for n in range(10)]
    waits: list[int] = []
    threads = [
        threading.Thread(target=lambda lo=lo: waits.append(lo.failed("ana", "10.0.0.9")))
        for lo in locks
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Failures 1-4 wait nothing; the 5th to the 10th wait 30 s, 1, 2, 4, 8 and 15 minutes.
    assert sorted(waits) == [0, 0, 0, 0, 30, 60, 120, 240, 480, 900]


def test_attempts_per_address_hold_across_processes(two: tuple[Engine, Engine]) -> None:
    one, other = SharedThrottle(two[0], limit=3), SharedThrottle(two[1], limit=3)
    one.attempt("pag.entrar.enviar", "10.0.0.1")
    other.attempt("pag.entrar.enviar", "10.0.0.1")
    one.attempt("pag.entrar.enviar", "10.0.0.1")
    with pytest.raises(TooManyRequests, match="Demasiados intentos desde esta dirección; espere"):
        other.attempt("pag.entrar.enviar", "10.0.0.1")
    other.attempt("api.resultado", "10.0.0.1")  # another group: its own count
    other.attempt("pag.entrar.enviar", "10.0.0.2")  # another address: its own count
    other.attempt("api.ofertas", "10.0.0.1")  # a route that is not guarded: never counted


def test_a_turn_is_one_process_at_a_time(two: tuple[Engine, Engine]) -> None:
    order: list[str] = []
    with advisory.turn(two[0], "lote:Casa de Bolsa"):
        with advisory.turn_if_free(two[1], "lote:Casa de Bolsa") as taken:
            assert not taken
        with advisory.turn_if_free(two[1], "lote:Otra") as taken:
            assert taken  # another broker's turn is free

        def second() -> None:
            with advisory.turn(two[1], "lote:Casa de Bolsa"):
                order.append("segundo")

        waiting = threading.Thread(target=second)
        waiting.start()
        time.sleep(0.3)
        order.append("primero")
    waiting.join(timeout=10)
    assert order == ["primero", "segundo"]


def test_sqlite_keeps_them_in_memory(tmp_path: object) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/x.db")
    lockout, throttle = limits_for(engine)
    assert isinstance(lockout, Lockout) and isinstance(throttle, Throttle)
    with advisory.turn_if_free(engine, "cifras:X") as taken:
        assert taken


def test_a_token_revoked_in_one_process_is_forgotten_by_the_others(
    two: tuple[Engine, Engine],
) -> None:
    """Without waiting for the cache's window (here a minute): the revocation's notice."""
    with two[0].begin() as conn:
        token_id, token = create_token(conn, "Casa de Bolsa", "pruebas", "oficina")
    tokens = TokenCache(seconds=60)
    listener = RevocationListener(two[1], tokens)
    listener.start()
    try:
        assert tokens.principal(two[1], token) is not None
        time.sleep(0.5)  # the listener is listening
        with two[0].begin() as conn:  # as the command line revokes: another process
            revoke_token(conn, token_id, "oficina")
        deadline = time.monotonic() + 10
        while tokens.remembered(token) is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert tokens.remembered(token) is None
        assert tokens.principal(two[1], token) is None
    finally:
        listener.stop()
