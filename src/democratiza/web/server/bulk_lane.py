"""Batches filed over HTTP are typed, decided and stored in a process of their own.

Why: a 10.000-row batch needs a tenth of a second or more of the interpreter (reading,
typing, the answer's rows); inside the service's process it holds the interpreter from
every other request, and single acceptances, which a broker waits for one by one, queued
behind it. In its own process, at a lower CPU priority (``NICENESS``) and on half of the
machine's cores (``lane_cores``), a batch uses what the interactive requests leave free:
batches take longer when the service is busy, single acceptances do not. The work is the
very same ``file_batch_here`` (the intake's all-or-nothing, once-only guarantees
hold in any process); only the answer, or the refusal as a ``WebError``, comes back.

Batches of different brokers are read, evaluated and stored at the same time, one in each
of the lane's processes (``LANE_WORKERS``; a broker has at most one batch in the lane,
``web.api.filing``), with no lock between them; a process that dies takes only its own
batch with it (``lane_worker``). Why: with one batch at a time per machine
(a file lock, until this was measured), broker B's 2-row batch waited for the whole
evaluation and write of broker A's 375.905-row one (the most a 64 MiB upload holds): 4 to
4,7 s on PostgreSQL. Without it B waits at most 0,2 s (``benchmarks/bench_fairness.py``);
A's batch takes a little longer (7 s became 8 to 11 s), as B's share the lane's cores with it.
Two batches at once take no more from the single acceptances than one did: every lane
process runs on the same cores (``lane_cores``) at the same low priority, so a second batch
shares those cores with the first instead of taking the service's. With 5 brokers uploading
10.000-row batches and 50 filing single acceptances (``benchmarks/bench_web.py``, one run
after the other): 335 singles per second, p99 402 ms, with the lock; 358, p99 361 ms,
without; the batches' rows per second went from 23.800 to 30.300. Two large batches at
once take the memory of two: about 840 MiB each for 375.905 rows.

What still makes a batch wait: on SQLite the database takes one write at a time, so B's
write waits for A's write transaction to end (all-or-nothing: the whole batch is written in
one): about 2 s per 100.000 rows, 7,9 s for 375.905, 20 s for a million filed from the
command line (``docs/web.md``, «Rendimiento»). And while both lane processes of a service
process hold large batches of two brokers, a third broker's batch waits for one of them.

``democratiza servir`` gives each service process one lane (on SQLite as on PostgreSQL); an
application built without one (the tests, scripts) files batches in its own process, one
at a time (``web.api.filing``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from sqlalchemy import Engine

from democratiza.filing.batches import import_batch
from democratiza.storage.audit import acting_as, request_now
from democratiza.storage.database import make_engine
from democratiza.web.server import metrics
from democratiza.web.server.filing_answers import (
    REFUSALS,
    answer_json,
    batch_answer,
    filing_refusal,
)
from democratiza.web.server.lane_death import after_worker_died
from democratiza.web.server.lane_worker import LaneWorker, WorkerDied
from democratiza.web.server.processes import end_with_parent

NICENESS = 12  # about a fifteenth of a normal process's CPU share when both want the core
# Two workers: one broker's large batch (read, evaluated, stored) never keeps another
# broker's from its turn; each broker has at most one batch in the lane (``web.api.filing``).
LANE_WORKERS = 2


def lane_cores(allowed: set[int]) -> set[int]:
    """The cores a lane may run on: the last half of those allowed (at least one).

    Why: a lower priority alone still let a batch's Polars threads take every core whenever
    the service waited a moment, and the single acceptances then waited for a core. Kept to
    half the machine, a batch leaves the service the other half: on two cores, with 5
    clients uploading batches and 50 filing single acceptances, the singles went from 495-500
    to 540 per second and the batches from 31.500 to 34.300 rows per second
    (measured with ``benchmarks/bench_web.py``).
    """
    ordered = sorted(allowed)
    return set(ordered[len(ordered) - max(1, len(ordered) // 2) :])


def _start_worker() -> None:
    """A lane's process: a lower priority, half the cores, and it ends with its service."""
    os.nice(NICENESS)
    if hasattr(os, "sched_setaffinity"):  # Linux; elsewhere the priority alone
        os.sched_setaffinity(0, lane_cores(os.sched_getaffinity(0)))
    # A service killed outright (kill -9) leaves its lane an orphan; it ends itself, and a
    # batch it was storing dies with its transaction (nothing of it stored).
    threading.Thread(target=end_with_parent, args=(os.getppid(),), daemon=True).start()


_ENGINES: dict[str, Engine] = {}


def file_batch_here(
    engine: Engine,
    code: str,
    path: Path,
    shown: str,
    batch: str,
    broker: str,
    who: str,
    exclusive: Callable[[], AbstractContextManager[object]] = nullcontext,
) -> bytes:
    """The batch filed in this process: the intake's answer as JSON, or its ``WebError``.

    ``exclusive`` is held from the moment the file has been read (``import_batch``).
    """
    try:
        result = import_batch(engine, code, path, broker, batch, who, exclusive=exclusive)
    except REFUSALS as exc:
        metrics.count_refusal()
        raise filing_refusal(exc, shown, str(path.parent)) from None
    answer = batch_answer(result)
    metrics.count_filing(answer["creado"], answer["por_decision"])
    return answer_json(answer)


def _engine(url: str) -> Engine:
    engine = _ENGINES.get(url)
    if engine is None:
        engine = _ENGINES[url] = make_engine(url)
    return engine


def _file(url: str, code: str, path: Path, shown: str, batch: str, broker: str, who: str) -> bytes:
    # No lock around the evaluation: see the module's docstring.
    return file_batch_here(_engine(url), code, path, shown, batch, broker, who)


Work = Callable[[str, str, Path, str, str, str, str], bytes]


def _as_request(
    request: str | None,
    work: Work,
    url: str,
    code: str,
    path: Path,
    shown: str,
    batch: str,
    broker: str,
    who: str,
) -> bytes:
    """``work`` in the lane's process as the request that sent the batch: the batch's audit
    entry carries that request's id (``storage.audit.acting_as``)."""
    with acting_as(request):
        return work(url, code, path, shown, batch, broker, who)


class BulkLane:
    """The worker processes (at most ``LANE_WORKERS``) for the batches of one service
    process, started on first use, each serving one batch at a time (``lane_worker``).

    ``work`` files the batch in the worker (``_file``; a test may give one that fails).
    A worker that dies takes only its own batch with it: the broker is told what is true
    (``after_worker_died``), the other batches go on, and the next batch gets a new worker.
    """

    def __init__(self, url: str, work: Work = _file) -> None:
        self.url = url
        self.work = work
        self._turns = threading.BoundedSemaphore(LANE_WORKERS)
        self._idle: list[LaneWorker] = []
        self._guard = threading.Lock()
        self.started = 0  # workers started so far (a test's evidence that the lane was used)

    def _take(self) -> LaneWorker:
        with self._guard:
            while self._idle:
                worker = self._idle.pop()
                if worker.alive():
                    return worker
                worker.discard()  # died between batches: it held none
            self.started += 1
        return LaneWorker(_start_worker)

    def _give_back(self, worker: LaneWorker) -> None:
        with self._guard:
            self._idle.append(worker)

    def file(self, code: str, path: Path, shown: str, batch: str, broker: str, who: str) -> bytes:
        """The batch's answer as JSON, written in the lane (``file_batch_here``)."""
        with metrics.waited(metrics.LANE_TURN, self._turns):
            worker = self._take()
            try:
                answer = worker.run(
                    _as_request,
                    request_now(),
                    self.work,
                    self.url,
                    code,
                    path,
                    shown,
                    batch,
                    broker,
                    who,
                )
            except WorkerDied:
                # Killed, out of memory: its transaction committed or died with it.
                return after_worker_died(_engine(self.url), code, path, shown, batch, broker)
            except Exception:
                self._give_back(worker)  # a refusal (``WebError``): the worker is well
                raise
            except BaseException:
                worker.abandon()  # interrupted while it works: its answer would go astray
                raise
            self._give_back(worker)
            return answer

    def shutdown(self) -> None:
        """Stop the idle workers (once the service has answered every request)."""
        with self._guard:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.stop()
