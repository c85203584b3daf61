"""Each request counted, timed and told in one JSON line, under a request id it answers with.

Why one plain ASGI function (as ``middleware``): every request passes through it, a single
acceptance included, so it adds one clock read, two figures and one log line, no task.

The line (logger ``democratiza.solicitudes``) says when, the request id, the route's
template (``/api/ofertas/{codigo}/lotes``, never the path typed, nor the query), the
method, the role of who asked, the status, the duration in milliseconds and, for a filing,
its rows: never a name, an identification number or an amount of a person. The id is the
one the proxy sent in ``X-Request-Id`` when it is a plain token, else a new one; it is
returned in the same header, a job started by the request carries it in its own line
(``storage.audit.request_now``), and every audit entry the request causes stores it
(``solicitud``; the context variable is the audit log's, ``storage.audit.acting_as``).
"""

from __future__ import annotations

import atexit
import json
import logging
import queue
import random
import re
import sys
import threading
import time
from datetime import UTC, datetime
from typing import Any, TextIO

from sqlalchemy.exc import DBAPIError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from democratiza.storage.audit import acting_as
from democratiza.web.server import metrics

REQUEST_LOG = logging.getLogger("democratiza.solicitudes")
JOB_LOG = logging.getLogger("democratiza.trabajos")
HEADER = b"x-request-id"
NO_ROUTE = "(ninguna)"
PLAIN_ROUTES = frozenset({"/salud", "/metricas"})
STATIC = "/estaticos"
ROWS_FIELD = re.compile(rb'(?<!\\)"filas":(\d+)')
GOOD_ID = re.compile(rb"[A-Za-z0-9._-]{8,64}")
# Set by a filing route, read back here for the line (``note_rows``).
ROWS_KEY = "filas"
Line = str | tuple[float, dict[str, Any]]  # a text, or when and the fields (``line_text``)
# Seconds the line writer waits after a line for others, to write them all at once.
WRITE_EVERY = 0.05


def rows_of(answer: bytes) -> int | None:
    """The rows of a batch's answer (``BatchAnswer`` as JSON), read from its first bytes.

    Why not parse it: the answer of 200.000 rows is megabytes; its count comes fourth, after
    the message (a JSON string, whose quotes are escaped) and two short fields.
    """
    found = ROWS_FIELD.search(answer, 0, 4096)
    return int(found.group(1)) if found else None


def note_rows(scope_state: Any, rows: int | None) -> None:
    """Record the rows a filing had, for the request's line (``request.state``)."""
    setattr(scope_state, ROWS_KEY, rows)


def log_line(logger: logging.Logger, fields: dict[str, Any]) -> None:
    """The line of ``fields``, with when it was made (``cuando``), as one JSON object."""
    if logger.isEnabledFor(logging.INFO):
        writer = _only_writer(logger)
        if writer is not None:
            writer.put((time.time(), fields))  # made into text by the writer's thread
        else:
            logger.info(line_text(time.time(), fields))


def line_text(when: float, fields: dict[str, Any]) -> str:
    stamp = datetime.fromtimestamp(when, UTC).isoformat(timespec="milliseconds")
    return json.dumps({"cuando": stamp, **fields}, ensure_ascii=False, default=str)


def _only_writer(logger: logging.Logger) -> LineWriter | None:
    """The line writer, when it is the logger's one way out (as ``configure_logs`` leaves
    the service's loggers): the line's fields are then given to it, with no log record made,
    and made into text by the writer's thread, many together.

    Why: making the record (the caller's frame, the process, the thread) and taking it
    through the handler cost about 25 of the 330 microseconds of processor the service
    spent on a request refused at the door (``benchmarks/bench_web.py --piso``). A logger
    the operator or a test has given another handler, or a filter, gets the record as always.
    """
    handlers = logger.handlers
    if len(handlers) != 1 or logger.filters or logger.propagate:
        return None
    only = handlers[0]
    if not isinstance(only, QueuedLines) or only.filters or only.level > logging.INFO:
        return None
    return only.writer


def new_request_id() -> str:
    """Sixteen hexadecimal digits, drawn anew for each request.

    Why not ``secrets``: the id only tells one request's lines and audit entries from
    another's, it guards nothing; and reading the system's randomness is a system call, in
    which the event loop lets go of the interpreter, and then waits to have it back, once a
    request. Python's generator is seeded from the system's randomness when the process
    starts (and again in a forked child), so two processes do not draw the same ids.
    """
    return f"{random.getrandbits(64):016x}"


def route_template(scope: Scope) -> str:
    """The route's template; for a path no route took, one fixed word (figures stay few)."""
    found = getattr(scope.get("route"), "path", None)
    if isinstance(found, str):
        return found
    path: str = scope["path"]
    if path in PLAIN_ROUTES:  # plain Starlette routes (``server.health``) leave no "route"
        return path
    return STATIC if path.startswith(STATIC + "/") else NO_ROUTE


class Observed:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sent = next((v for k, v in scope["headers"] if k == HEADER), b"")
        rid = sent.decode() if GOOD_ID.fullmatch(sent) else new_request_id()
        started = time.perf_counter()
        status = 500

        async def with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {
                    **message,
                    "headers": [*message.get("headers", ()), (HEADER, rid.encode())],
                }
            await send(message)

        try:
            with acting_as(rid):
                await self.app(scope, receive, with_id)
        except DBAPIError:
            metrics.DATABASE_ERRORS.inc()
            raise
        finally:
            self._record(scope, rid, status, time.perf_counter() - started)

    @staticmethod
    def _record(scope: Scope, rid: str, status: int, seconds: float) -> None:
        template = route_template(scope)
        state = scope.get("state") or {}
        if state.get("database_error"):
            metrics.DATABASE_ERRORS.inc()
        metrics.REQUESTS.labels(template, scope["method"], str(status)).inc()
        metrics.LATENCY.labels(template).observe(seconds)
        who = state.get("principal")
        fields: dict[str, Any] = {
            "request_id": rid,
            "ruta": template,
            "metodo": scope["method"],
            "rol": getattr(who, "role", None),
            "estado": status,
            "duracion_ms": round(seconds * 1000, 1),
        }
        if ROWS_KEY in state:
            fields[ROWS_KEY] = state[ROWS_KEY]
        log_line(REQUEST_LOG, fields)


def configure_logs() -> None:
    """The service's lines on standard error, one JSON object each (for journald, a file).

    Written by a thread of their own (``LineWriter``): the request's line is put on a queue
    where it is made, on the event loop, and written to standard error elsewhere, with the
    others that came in the meantime. Why a thread: a write is a system call, and when what
    reads standard error is slow (journald busy, a full pipe) it blocks, and with it every
    request of the process. Why together: a thread woken for each line took the
    interpreter from the event loop once a request (``benchmarks/bench_web.py --piso``:
    2.240 requests a second with a write per line, 3.240 with no line at all).
    """
    global _WRITER
    if _WRITER is None:
        _WRITER = LineWriter(sys.stderr)
        atexit.register(_WRITER.stop)  # the lines still queued are written at exit
        queued = QueuedLines(_WRITER)
        queued.setFormatter(logging.Formatter("%(message)s"))
        for logger in (REQUEST_LOG, JOB_LOG):
            if not logger.handlers:
                logger.addHandler(queued)
    for logger in (REQUEST_LOG, JOB_LOG):
        logger.setLevel(logging.INFO)
        logger.propagate = False


class LineWriter:
    """Lines written to ``stream`` by a thread of their own, those queued at once together:
    the thread waits ``WRITE_EVERY`` seconds after the first line, then writes every line
    queued by then in one write. ``stop`` writes what is left and ends the thread."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._lines: queue.SimpleQueue[Line | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="lineas-servicio", daemon=True)
        self._thread.start()

    def put(self, line: Line) -> None:
        """A line: its text, or when it was made and its fields (``line_text``)."""
        self._lines.put(line)

    def stop(self) -> None:
        self._lines.put(None)
        self._thread.join()

    def _run(self) -> None:
        ended = False
        while not ended:
            lines = [self._lines.get()]  # waits for a line (or the end)
            if lines[0] is not None:
                time.sleep(WRITE_EVERY)  # the lines that come meanwhile go in the same write
            while lines[-1] is not None:
                try:
                    lines.append(self._lines.get_nowait())
                except queue.Empty:
                    break
            ended = lines[-1] is None
            self._write([line for line in lines if line is not None])

    def _write(self, lines: list[Line]) -> None:
        if not lines:
            return
        texts = [line if isinstance(line, str) else line_text(*line) for line in lines]
        try:
            self.stream.write("\n".join(texts) + "\n")
            self.stream.flush()
        except (OSError, ValueError):  # standard error closed: nowhere left to tell it
            pass


class QueuedLines(logging.Handler):
    """A logging handler that gives each record's text to a ``LineWriter``."""

    def __init__(self, writer: LineWriter) -> None:
        super().__init__()
        self.writer = writer

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.writer.put(self.format(record))
        except Exception:  # as every handler: a line that cannot be made is told, not raised
            self.handleError(record)


_WRITER: LineWriter | None = None
