"""One process of the bulk lane, with a pipe of its own: its death is its own batch's only.

Why not ``concurrent.futures.ProcessPoolExecutor``: when one of its processes dies (killed,
out of memory) the whole pool breaks, and every batch in it fails, also another broker's
that was being stored in the process that did not die (measured: two brokers' batches in
the two processes, one killed, both answered 503 and neither stored). Here each process
answers only through its own pipe; a process that dies ends the pipe of the one batch it
held, and the lane starts another for the next batch. A process is kept between batches
(its imports and its connection to the database are paid once) and serves one batch at a
time.
"""

from __future__ import annotations

import contextlib
import multiprocessing
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from democratiza.web.server import metrics

# "spawn": forking a process that runs threads (uvicorn's, Polars') can hang.
_CONTEXT = multiprocessing.get_context("spawn")
STOP_WAIT = 30.0  # seconds a stopped process has to end its current batch before it is killed


class WorkerDied(Exception):
    """The process ended (killed, out of memory) before it answered its batch."""


def _serve(initializer: Callable[[], None], conn: Connection) -> None:
    """The process's loop: one job at a time from the pipe, its result or its error back."""
    initializer()
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):  # the lane is gone
            return
        if job is None:
            return
        work, args = job
        try:
            reply: tuple[str, Any] = ("ok", work(*args))
        except Exception as exc:  # every error goes back to its request
            reply = ("error", exc)
        try:
            conn.send(reply)
        except Exception:  # an error that cannot be pickled
            conn.send(("error", RuntimeError(repr(reply[1]))))


class LaneWorker:
    """A lane's process and the service's end of its pipe."""

    def __init__(self, initializer: Callable[[], None]) -> None:
        self._conn, child = _CONTEXT.Pipe(duplex=True)
        self.process = _CONTEXT.Process(
            target=_serve, args=(initializer, child), name="carril-de-lotes", daemon=True
        )
        self.process.start()
        child.close()

    def alive(self) -> bool:
        return self.process.is_alive()

    def run(self, work: Callable[..., bytes], *args: object) -> bytes:
        """``work(*args)`` in the process: its answer, its exception, or ``WorkerDied``."""
        try:
            self._conn.send((work, args))
            kind, value = self._conn.recv()
        except (EOFError, OSError):
            self.discard()
            raise WorkerDied from None
        if kind == "error":
            raise value
        answer: bytes = value
        return answer

    def discard(self) -> None:
        """Reap a process that died (no zombie left) and close its pipe."""
        self._conn.close()
        self.process.join(timeout=STOP_WAIT)
        metrics.forget_process(self.process.pid)

    def abandon(self) -> None:
        """End the process now, with whatever batch it holds (its transaction dies with it)."""
        self.process.kill()
        self.discard()

    def stop(self) -> None:
        """End the process once its current batch is answered (killed if it does not end)."""
        with contextlib.suppress(OSError):  # already gone
            self._conn.send(None)
        self.process.join(timeout=STOP_WAIT)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self._conn.close()
        metrics.forget_process(self.process.pid)
