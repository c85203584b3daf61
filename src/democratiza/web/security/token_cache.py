"""Brokers' API tokens checked against the database at most once every few seconds.

Why: a broker's system sends every single acceptance with its token; looking the token up
on each request cost a database round trip, which under load (the server busy storing
batches) took longer than filing the acceptance itself. A token found valid is remembered
for ``TOKEN_SECONDS``, by its SHA-256 only (never the token), in each service process.

What this costs, and why it is acceptable: a token revoked through the service stops
working at once in the process that revoked it (``forget``). On PostgreSQL the revocation
also notifies every process (``auth.REVOKED``, sent when the revocation commits, from the
service or the command line), and each process's listener forgets the token within
milliseconds (``RevocationListener``); only while a listener is reconnecting, or on
SQLite from the command line, is a revoked token still accepted for at most
``TOKEN_SECONDS``. A token that is not valid is never remembered, so a new one works at
once. docs/web.md states the window.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import psycopg
from sqlalchemy import Engine

from democratiza.web.security.auth import (
    REVOKED,
    Principal,
    digest,
    revoke_token,
    token_principals,
)

TOKEN_SECONDS = 2.0
RECONNECT_SECONDS = 1.0  # a listener that lost its connection tries again after this
LISTEN_SECONDS = 0.5  # how often a listener looks whether it must stop
MAX_TOKENS = 10_000  # brokers have a few tokens each; a bound against a flood of new ones
REFRESH_AHEAD = 0.5  # a check also checks the tokens whose window ends within half a window
REFRESH_AT_ONCE = 500  # ... at most this many of them in one query


class _Flight:
    """One query checking these tokens (``asked``, by SHA-256); ``valid`` once ``done``."""

    def __init__(self, asked: frozenset[str]) -> None:
        self.asked = asked
        self.valid: dict[str, Principal] = {}
        self.error: BaseException | None = None  # what made the query fail, if it did
        self.done = threading.Event()


class TokenCache:
    def __init__(
        self, seconds: float = TOKEN_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.seconds = seconds
        self.clock = clock
        self._known: dict[str, tuple[Principal, float]] = {}
        self._flights: list[_Flight] = []  # the queries under way, each with its tokens
        self._lock = threading.Lock()

    def remembered(self, token: str) -> Principal | None:
        """The token's broker if found valid within the window (no database: ``None``)."""
        key = digest(token)
        with self._lock:
            known = self._known.get(key)
        if known is not None and known[1] > self.clock():
            return known[0]
        return None

    def principal(self, engine: Engine, token: str) -> Principal | None:
        """The token's broker, or ``None`` if the token is unknown or revoked.

        The query that checks it also checks again every remembered token whose window ends
        within ``REFRESH_AHEAD`` of its own: fifty brokers each re-checked on their own every
        two seconds were 25 queries a second (each with a worker thread's hop), where the
        tokens checked together soon fall into a few such queries. Then their windows end
        together, and each is missed by a request of its own in a thread of its own, at once:
        a token already being checked by a query under way waits for that query's answer
        instead of asking the same question again. No token is remembered a moment longer
        than ``seconds`` after the database said it was valid.
        """
        found = self.remembered(token)
        if found is not None:
            return found
        key = digest(token)
        now = self.clock()
        with self._lock:
            joined = next((f for f in self._flights if key in f.asked), None)
            if joined is None:
                pending = {k for f in self._flights for k in f.asked}
                soon = [
                    k
                    for k, (_, until) in self._known.items()
                    if k != key and k not in pending and until <= now + self.seconds * REFRESH_AHEAD
                ][:REFRESH_AT_ONCE]
                mine = _Flight(frozenset([key, *soon]))
                self._flights.append(mine)
        if joined is not None:
            joined.done.wait()
            if joined.error is not None:
                raise joined.error
            return joined.valid.get(key)
        try:
            with engine.connect() as conn:
                mine.valid = token_principals(conn, list(mine.asked))
        except BaseException as error:  # the requests waiting on this query fail with it
            mine.error = error
            raise
        else:
            with self._lock:
                if len(self._known) >= MAX_TOKENS:
                    self._known.clear()
                for k in mine.asked:
                    if k in mine.valid:
                        self._known[k] = (mine.valid[k], now + self.seconds)
                    else:
                        self._known.pop(k, None)
        finally:
            with self._lock:
                self._flights.remove(mine)
            mine.done.set()
        return mine.valid.get(key)

    def clear(self) -> None:
        with self._lock:
            self._known.clear()

    def forget(self, token_id: int) -> None:
        """Drop a revoked token at once (this process; the others within the window)."""
        prefix = f"token:{token_id}:"
        with self._lock:
            for key in [k for k, (p, _) in self._known.items() if p.who.startswith(prefix)]:
                del self._known[key]


def revoke(engine: Engine, tokens: TokenCache, token_id: int, who: str) -> None:
    """Revoke a token in the database and forget it at once in this process.

    Raises ``AuthError`` if there is no valid token with that number.
    """
    with engine.begin() as conn:
        revoke_token(conn, token_id, who)
    tokens.forget(token_id)


class RevocationListener:
    """On PostgreSQL, a thread that forgets each token revoked by any process.

    Why a connection of its own, outside the pool: it waits on ``LISTEN`` for as long as
    the service runs (``start`` and ``stop`` from the application's lifespan). Dropping a
    token from the cache is always safe: the worst a lost notice costs is the
    ``TOKEN_SECONDS`` window, never a wrong answer; after a reconnection the cache starts
    again from the database. On SQLite it does nothing.
    """

    def __init__(self, engine: Engine, tokens: TokenCache) -> None:
        self.tokens = tokens
        self.url = None
        if engine.dialect.name == "postgresql":
            self.url = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self.url is None or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._listen, name="tokens-revocados", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2 * LISTEN_SECONDS)

    def _listen(self) -> None:
        assert self.url is not None
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True) as conn:
                    conn.execute(f"LISTEN {REVOKED}")
                    self.tokens.clear()  # notices missed while away: ask the database again
                    while not self._stop.is_set():
                        for notice in conn.notifies(timeout=LISTEN_SECONDS):
                            if notice.payload.isdigit():
                                self.tokens.forget(int(notice.payload))
            except psycopg.Error:
                self._stop.wait(RECONNECT_SECONDS)
