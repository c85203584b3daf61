"""Single acceptances filed at the same moment are collected and filed as one group.

Why (group commit): typing and deciding acceptances costs the same few milliseconds of
Polars planning for one row as for a thousand, so filing each single acceptance as its own
one-row batch spends almost all its time planning. Filings that arrive within a few
milliseconds of each other for the same offer are therefore collected here and handed
together to ``filing.singles.process_group``, which keeps each its own batch, radicado,
audit entry and answer: nothing changes for the broker.

Each caller waits on its own ``Future``; one collecting thread per engine and process does
the work, and stops after a while without filings (it is restarted by the next one).
"""

from __future__ import annotations

import threading
import time
import weakref
from concurrent.futures import Future
from dataclasses import dataclass

from sqlalchemy import Engine

from democratiza.filing.singles import Outcome, SingleFiling, process_group, without_conflicts
from democratiza.filing.store import BatchResult

GROUP_WINDOW = 0.025  # seconds the oldest waiting filing may wait for others to join it
GROUP_QUIET = 0.003  # ...but, unless under load, the group closes after this long without one
GROUP_ROWS = 500  # filings per group at most
IDLE_SECONDS = 30.0  # the collecting thread stops after this long without filings


@dataclass(frozen=True)
class _Waiting:
    filing: SingleFiling
    future: Future[BatchResult]
    since: float  # time.monotonic() when filed


def _filing_of(waiting: _Waiting) -> SingleFiling:
    return waiting.filing


class SingleIntake:
    """Collects single filings for one engine and processes them in groups, in one thread.

    A group closes when its oldest filing has waited ``window`` seconds or when it has
    ``max_rows`` filings; and, unless the service is under load, as soon as no filing has
    come for ``quiet`` seconds, so a lone filing waits only ``quiet``. Under load (the last
    group had company and has just been stored) the group takes the whole window.

    Why: a group costs nearly the same whatever its size (22 ms of CPU for 4 filings, 28 ms
    for 50: mostly Polars planning the typing, the evaluation and the writes), and under load
    the answers to a group come back as new filings spread over the time the service takes
    to send the answers and read the new requests, with gaps longer than ``quiet``. Closing
    at the first gap made groups of 26 instead of 29-30, and 6 % fewer single acceptances
    per second (measured with ``benchmarks/bench_web.py``).
    """

    def __init__(
        self,
        engine: Engine,
        window: float = GROUP_WINDOW,
        max_rows: int = GROUP_ROWS,
        quiet: float = GROUP_QUIET,
    ) -> None:
        self.engine = engine
        self.window = window
        self.quiet = quiet
        self.max_rows = max_rows
        self._waiting: list[_Waiting] = []
        self._last_group = (0, 0.0)  # size of the last group and when it was stored
        self._ready = threading.Condition()
        self._worker: threading.Thread | None = None

    def submit(self, filing: SingleFiling) -> Future[BatchResult]:
        """Queue one filing; its ``Future`` gets its ``BatchResult`` or its refusal."""
        future: Future[BatchResult] = Future()
        with self._ready:
            self._waiting.append(_Waiting(filing, future, time.monotonic()))
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(
                    target=self._run, name="aceptaciones-sueltas", daemon=True
                )
                self._worker.start()
            elif len(self._waiting) in (1, self.max_rows):
                self._ready.notify()
        return future

    def _run(self) -> None:
        while (group := self._next_group()) is not None:
            by_offer: dict[str, list[_Waiting]] = {}
            for waiting in group:
                by_offer.setdefault(waiting.filing.offer_code, []).append(waiting)
            for members in by_offer.values():
                self._process(members)
            with self._ready:
                self._last_group = (len(group), time.monotonic())

    def _process(self, members: list[_Waiting]) -> None:
        try:
            outcomes = process_group(self.engine, [m.filing for m in members])
        except Exception as exc:  # an unexpected failure answers every caller, never hangs one
            # ...but only its own caller: one filing's fault (a text the database refuses)
            # must not fail the others filed at the same moment, so each is filed alone.
            outcomes = self._one_by_one(members) if len(members) > 1 else [exc]
        except BaseException as exc:  # the thread is ending: still nobody waits forever
            for member in members:
                member.future.set_exception(exc)
            raise
        for member, outcome in zip(members, outcomes, strict=True):
            if isinstance(outcome, Exception):
                member.future.set_exception(outcome)
            else:
                member.future.set_result(outcome)

    def _one_by_one(self, members: list[_Waiting]) -> list[Outcome]:
        """Each member filed as a group of its own, after the group as a whole failed."""
        outcomes: list[Outcome] = []
        for member in members:
            try:
                outcomes += process_group(self.engine, [member.filing])
            except Exception as exc:
                outcomes.append(exc)
        return outcomes

    def _next_group(self) -> list[_Waiting] | None:
        """The next group (``None`` after a long idle time: the thread then ends)."""
        with self._ready:
            idle_until = time.monotonic() + IDLE_SECONDS
            while not self._waiting:
                left = idle_until - time.monotonic()
                if left <= 0:
                    self._worker = None
                    return None
                self._ready.wait(left)
            # Wait while filings keep coming (answers to a group come back as a burst of
            # new filings), but never past the oldest one's window.
            deadline = self._waiting[0].since + self.window
            size, stored_at = self._last_group
            loaded = size > 1 and time.monotonic() - stored_at < self.window
            quiet = self.window if loaded else self.quiet
            while len(self._waiting) < self.max_rows:
                now = time.monotonic()
                until = min(deadline, self._waiting[-1].since + quiet)
                if until <= now:
                    break
                self._ready.wait(until - now)
            group, later = without_conflicts(self._waiting, _filing_of, self.max_rows)
            self._waiting = later
            return group


_INTAKES: weakref.WeakKeyDictionary[Engine, SingleIntake] = weakref.WeakKeyDictionary()
_INTAKES_LOCK = threading.Lock()


def intake_for(engine: Engine) -> SingleIntake:
    """The engine's collector of single filings (one per engine and process)."""
    with _INTAKES_LOCK:
        intake = _INTAKES.get(engine)
        if intake is None:
            intake = _INTAKES[engine] = SingleIntake(engine)
        return intake


def file_single(engine: Engine, filing: SingleFiling) -> BatchResult:
    """File one acceptance and wait for its answer (raises what ``import_batch`` raises)."""
    return intake_for(engine).submit(filing).result()
