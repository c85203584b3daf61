"""Brokers' API tokens checked against the database at most once every few seconds.

Why: a broker's system sends every single acceptance with its token; looking the token up
on each request cost a database round trip, which under load (the server busy storing
batches) took longer than filing the acceptance itself. A token found valid is remembered
for ``TOKEN_SECONDS``, by its SHA-256 only (never the token), in each service process.

What this costs, and why it is acceptable: a token revoked through the service stops
working at once in the process that revoked it (``forget``); in the service's other
processes, or when revoked from the command line, it is still accepted for at most
``TOKEN_SECONDS``. A token that is not valid is never remembered, so a new one works at
once. docs/web.md states the window.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from sqlalchemy import Engine

from democratiza.web.security.auth import Principal, digest, revoke_token, token_principal

TOKEN_SECONDS = 2.0
MAX_TOKENS = 10_000  # brokers have a few tokens each; a bound against a flood of new ones


class TokenCache:
    def __init__(
        self, seconds: float = TOKEN_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.seconds = seconds
        self.clock = clock
        self._known: dict[str, tuple[Principal, float]] = {}
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
        """The token's broker, or ``None`` if the token is unknown or revoked."""
        found = self.remembered(token)
        if found is not None:
            return found
        key = digest(token)
        now = self.clock()
        with engine.connect() as conn:
            found = token_principal(conn, token)
        with self._lock:
            if found is None:
                self._known.pop(key, None)
                return None
            if len(self._known) >= MAX_TOKENS:
                self._known.clear()
            self._known[key] = (found, now + self.seconds)
        return found

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
