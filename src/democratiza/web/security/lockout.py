"""Failed logins counted per account and client address, with a wait that doubles.

Why per account *and* address: a lock on the account alone let anyone lock a person out
(five wrong passwords from anywhere kept the owner out for 15 minutes), and, since only
existing accounts were ever locked, told which accounts exist. Here a login that does not
exist is counted exactly like one that does, and the owner, from another address, is not
held back by someone else's guesses. From the ``free``-th failure on, each failure makes
that account-and-address wait, twice as long each time (30 s, 1 min, 2 min, ... up to
15 min); a success clears the count, and a pair with no failure for an hour is forgotten.
Here in memory, for one process (SQLite: one machine); with PostgreSQL every process keeps
the counts in the database instead (``shared_limits``), with this same arithmetic
(``after_failure``, ``seconds_left``), so the numbers hold whatever process is asked.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

FREE_FAILURES = 5
FIRST_WAIT = 30.0  # seconds, after the fifth failure
LONGEST_WAIT = 15 * 60.0
FORGET_AFTER = 60 * 60.0
MAX_PAIRS = 100_000  # beyond this, forgotten pairs are dropped at once (memory stays bounded)


@dataclass(frozen=True)
class Failures:
    count: int
    last: float  # when the last one happened (the clock's seconds)
    until: float  # no attempt before this


class LoginWaits(Protocol):
    """What a login needs of a lockout, in memory (``Lockout``) or shared (``shared_limits``)."""

    def wait(self, login: str, address: str) -> int: ...
    def failed(self, login: str, address: str) -> int: ...
    def succeeded(self, login: str, address: str) -> None: ...


def after_failure(
    before: Failures | None, now: float, free: int, first: float, longest: float
) -> tuple[Failures, int]:
    """The count after one more failure at ``now`` (a pair quiet for an hour starts again),
    and the wait it starts in whole seconds (0 when none yet)."""
    if before is not None and now - before.last >= FORGET_AFTER:
        before = None
    count = 1 if before is None else before.count + 1
    over = count - free
    wait = 0.0 if over < 0 else min(longest, first * 2**over)
    return Failures(count, now, now + wait), math.ceil(wait)


def seconds_left(found: Failures | None, now: float) -> int:
    """Whole seconds still to wait (0: it may try now)."""
    if found is None or found.until <= now:
        return 0
    return max(1, math.ceil(found.until - now))


class Lockout:
    def __init__(
        self,
        free: int = FREE_FAILURES,
        first: float = FIRST_WAIT,
        longest: float = LONGEST_WAIT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.free, self.first, self.longest, self.clock = free, first, longest, clock
        self._seen: dict[tuple[str, str], Failures] = {}
        self._lock = threading.Lock()

    def wait(self, login: str, address: str) -> int:
        """Whole seconds this account-and-address must still wait (0: it may try now)."""
        now = self.clock()
        with self._lock:
            found = self._seen.get((login, address))
        return seconds_left(found, now)

    def failed(self, login: str, address: str) -> int:
        """Count a failure; the wait it starts, in whole seconds (0 when none yet)."""
        now = self.clock()
        with self._lock:
            if len(self._seen) >= MAX_PAIRS:
                self._forget(now)
            before = self._seen.get((login, address))
            after, wait = after_failure(before, now, self.free, self.first, self.longest)
            self._seen[(login, address)] = after
        return wait

    def succeeded(self, login: str, address: str) -> None:
        with self._lock:
            self._seen.pop((login, address), None)

    def _forget(self, now: float) -> None:
        stale = [k for k, f in self._seen.items() if now - f.last >= FORGET_AFTER]
        for key in stale:
            del self._seen[key]
