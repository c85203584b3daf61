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
import logging.handlers
import queue
import re
import secrets
import time
from datetime import UTC, datetime
from typing import Any

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
    if logger.isEnabledFor(logging.INFO):
        stamp = datetime.now(UTC).isoformat(timespec="milliseconds")
        logger.info(json.dumps({"cuando": stamp, **fields}, ensure_ascii=False))


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
        rid = sent.decode() if GOOD_ID.fullmatch(sent) else secrets.token_hex(8)
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

    Written by a thread of their own (``QueueListener``): the request's line is put on a
    queue where it is made, on the event loop, and the write to standard error happens
    elsewhere. Why: a write is a system call, and when what reads standard error is slow
    (journald busy, a full pipe) it blocks, and with it every request of the process.
    """
    global _LISTENER
    if _LISTENER is None:
        lines: queue.SimpleQueue[logging.LogRecord] = queue.SimpleQueue()
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(message)s"))
        _LISTENER = logging.handlers.QueueListener(lines, handler)
        _LISTENER.start()
        atexit.register(_LISTENER.stop)  # the lines still queued are written at exit
        queued = logging.handlers.QueueHandler(lines)
        for logger in (REQUEST_LOG, JOB_LOG):
            if not logger.handlers:
                logger.addHandler(queued)
    for logger in (REQUEST_LOG, JOB_LOG):
        logger.setLevel(logging.INFO)
        logger.propagate = False


_LISTENER: logging.handlers.QueueListener | None = None
