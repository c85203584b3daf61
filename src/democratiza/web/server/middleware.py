"""Body limits and protective headers, as plain ASGI middleware around the application.

Why plain ASGI rather than ``@app.middleware("http")``: Starlette's decorator runs every
request through extra tasks and memory streams, which cost more than a single acceptance's
own route; here a request passes through one function call.

- A body whose declared length is over the limit (uploads: ``max_upload``; a package sent
  to the public verifier: twice the largest package it takes, so that one somewhat too
  large is refused in words on the page; anything else: 1 MiB) is refused with 413 before
  anything is read.
- Every response carries headers that keep pages from being framed or sniffed; HTML pages
  also a Content-Security-Policy (not Swagger UI's page, which loads its own scripts).
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from democratiza.verification.archive import UPLOAD_BYTES
from democratiza.web.errors import ApiError

MAX_BODY = 1024 * 1024  # any request but an upload: 1 MiB
UPLOAD_SUFFIX = "/lotes"
VERIFIER = "/verificar"
ALWAYS = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
)
CSP = (
    b"content-security-policy",
    b"default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
)


class LimitsAndHeaders:
    def __init__(self, app: ASGIApp, max_upload: int) -> None:
        self.app = app
        self.max_upload = max_upload

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        limit = self.max_upload if path.endswith(UPLOAD_SUFFIX) else MAX_BODY
        if path == VERIFIER:
            limit = 2 * UPLOAD_BYTES
        declared = next((v for k, v in scope["headers"] if k == b"content-length"), None)
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await _too_large(send, limit)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {k.lower() for k, _ in headers}
                headers += [(k, v) for k, v in ALWAYS if k not in present]
                content_type = next((v for k, v in headers if k.lower() == b"content-type"), b"")
                if (
                    content_type.startswith(b"text/html")
                    and path != "/api/docs"
                    and CSP[0] not in present
                ):
                    headers.append(CSP)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


async def _too_large(send: Send, limit: int) -> None:
    message = f"La solicitud pasa del límite de {limit // (1024 * 1024)} MiB."
    body = json.dumps(ApiError(detalle=message).model_dump(), ensure_ascii=False).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *ALWAYS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
