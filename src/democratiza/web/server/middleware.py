"""Body limits and protective headers, as plain ASGI middleware around the application.

Why plain ASGI rather than ``@app.middleware("http")``: Starlette's decorator runs every
request through extra tasks and memory streams, which cost more than a single acceptance's
own route; here a request passes through one function call.

- A body over the limit (the routes that take a file, named in ``api.uploads.UPLOAD_ROUTES``
  whatever their paths: ``max_upload``; a package sent to the public verifier:
  twice the largest package it takes, so that one somewhat too large is refused in words
  on the page; the designer's form, which may carry a population as large as a batch:
  ``max_upload`` and 1 MiB more for the designs file and the fields; anything else: 1 MiB)
  is refused with 413: at once when its declared
  length is over, and otherwise (a chunked body, or one that lies about its length) as
  soon as the bytes read pass the limit; nothing past the limit is ever read.
- Every response carries headers that keep pages from being framed or sniffed and deny
  the browser's powerful features (Permissions-Policy); HTML pages also a
  Content-Security-Policy that admits only this site's own files, forms and base URL.
- Nothing but the static files (style sheet, icons) may be stored by a browser or a proxy
  (``Cache-Control: no-store``): pages and files carry personal data (Ley 1581 de 2012),
  and a page that does not today may tomorrow.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from fastapi.routing import APIRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from democratiza.verification.archive import UPLOAD_BYTES
from democratiza.web.errors import ApiError, BodyTooLarge, ErrorItem, NulInText
from democratiza.web.server import text_guard

MAX_BODY = 1024 * 1024  # any request but an upload: 1 MiB
VERIFIER = "/verificar"
DESIGNER = "/oficina/disenador"
ALWAYS = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (
        b"permissions-policy",
        b"camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()",
    ),
)
CSP = (
    b"content-security-policy",
    b"default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    b"form-action 'self'; base-uri 'self'; frame-ancestors 'none'",
)
NO_STORE = (b"cache-control", b"no-store")
STATIC = "/estaticos/"


class LimitsAndHeaders:
    def __init__(self, app: ASGIApp, max_upload: int, uploads: Sequence[APIRoute] = ()) -> None:
        self.app = app
        self.max_upload = max_upload
        self._uploads = uploads  # the routes that take a file (``api.uploads.UPLOAD_ROUTES``)

    def _is_upload(self, path: str, method: str) -> bool:
        """Whether the request is for a route that takes a file (its path and method).

        By each route's own path pattern and methods, what its ``matches`` checks for a full
        match: ``matches`` itself cost 45 µs for the nine such routes on every request, a
        single acceptance's included, and this 10 µs. The path is the request's as sent, as
        for the verifier's and the designer's limits: the service answers at the root of its
        address (``docs/operacion.md``), never under a prefix of a proxy's.
        """
        return any(method in (r.methods or ()) and r.path_regex.match(path) for r in self._uploads)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        if path == VERIFIER:
            limit = 2 * UPLOAD_BYTES
        elif path == DESIGNER:
            limit = self.max_upload + MAX_BODY
        else:
            limit = self.max_upload if self._is_upload(path, scope["method"]) else MAX_BODY
        declared = next((v for k, v in scope["headers"] if k == b"content-length"), None)
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await _too_large(send, limit)
            return
        where = text_guard.in_query(path, scope.get("query_string", b""))
        if where is not None:
            await _refused(send, 422, "La solicitud no es válida.", where)
            return
        body_type = next((v for k, v in scope["headers"] if k == b"content-type"), b"")
        started = False
        received = 0
        # A JSON or form body is kept as it comes (it is under 1 MiB, and read whole by its
        # route anyway) to be searched for NUL once complete, before the route sees it.
        kept: list[bytes] | None = [] if text_guard.searched(body_type) else None

        async def counted() -> Message:
            # Why count here: a chunked body declares no length, so only the bytes tell.
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                chunk = message.get("body", b"")
                received += len(chunk)
                if received > limit:
                    raise BodyTooLarge(too_large_text(limit))
                if kept is not None:
                    kept.append(chunk)
                    if not message.get("more_body", False):
                        found = text_guard.in_body(body_type, b"".join(kept))
                        if found is not None:
                            raise NulInText(text_guard.MESSAGE, found)
            return message

        async def with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = list(message.get("headers", ()))
                present = {k.lower() for k, _ in headers}
                headers += [(k, v) for k, v in ALWAYS if k not in present]
                if NO_STORE[0] not in present and not path.startswith(STATIC):
                    headers.append(NO_STORE)
                content_type = next((v for k, v in headers if k.lower() == b"content-type"), b"")
                if content_type.startswith(b"text/html") and CSP[0] not in present:
                    headers.append(CSP)
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, counted, with_headers)
        except BodyTooLarge:
            # Raised where no handler turns it into an answer (the routes' handlers do).
            if started:
                raise
            await _too_large(send, limit)
        except NulInText as exc:
            if started:
                raise
            await _refused(send, 422, "La solicitud no es válida.", exc.where)


def too_large_text(limit: int) -> str:
    return f"La solicitud pasa del límite de {limit // (1024 * 1024)} MiB."


async def _too_large(send: Send, limit: int) -> None:
    await _refused(send, 413, too_large_text(limit))


async def _refused(send: Send, status: int, message: str, where: str | None = None) -> None:
    """The API's error (JSON) sent before any route ran; ``where`` names a NUL's field."""
    items = [] if where is None else [ErrorItem(columna=where, mensaje=text_guard.MESSAGE)]
    error = ApiError(detalle=message, errores=items, total_errores=len(items))
    body = json.dumps(error.model_dump(), ensure_ascii=False).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *ALWAYS,
                NO_STORE,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
