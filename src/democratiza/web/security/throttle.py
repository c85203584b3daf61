"""A limit on attempts per client address, for the doors someone could try by brute force.

Why: the per-account lockout stops guessing one person's password, but not trying many
logins from one place, nor guessing a stranger's result by radicado and identification
(personal data, Ley 1581 de 2012). Each guarded route belongs to a group; a client address
may make ``limit`` attempts per group in any ``window`` seconds, then gets 429 with the
wait in Spanish. Here in memory, for one process (SQLite: one machine); with PostgreSQL
every process counts in the database instead (``shared_limits``), refusing with the same
words (``refusal``), so the limit holds whatever process is asked.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Protocol

from democratiza.web.errors import TooManyRequests

# Route name → group: the login page, the public lookup of a result (API and page), and the
# public verifier (each attempt recomputes a whole adjudication).
GUARDED = {
    "pag.entrar.enviar": "entrar",
    "api.resultado": "resultado",
    "pag.resultado.consultar": "resultado",
    "pag.verificar.enviar": "verificar",
}


class AttemptLimit(Protocol):
    """What a guarded route needs: in memory (``Throttle``) or shared (``shared_limits``)."""

    def attempt(self, route_name: str, address: str) -> None: ...


def refusal(oldest: float, now: float, window: float) -> TooManyRequests:
    """The 429 for an address whose oldest attempt in the window was at ``oldest``."""
    wait = max(1, math.ceil(window - (now - oldest)))
    return TooManyRequests(f"Demasiados intentos desde esta dirección; espere {wait} segundos.")


class Throttle:
    def __init__(
        self, limit: int = 20, window: float = 60.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit, self.window, self.clock = limit, window, clock
        self._seen: dict[tuple[str, str], deque[float]] = {}
        self._lock = threading.Lock()

    def attempt(self, route_name: str, address: str) -> None:
        """Count one attempt; refuse (429) when the address has used up its window."""
        group = GUARDED.get(route_name)
        if group is None:
            return
        now = self.clock()
        with self._lock:
            seen = self._seen.setdefault((group, address), deque())
            while seen and now - seen[0] >= self.window:
                seen.popleft()
            if len(seen) >= self.limit:
                raise refusal(seen[0], now, self.window)
            seen.append(now)
