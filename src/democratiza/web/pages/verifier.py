"""The public verifier's page: ``democratiza verificar`` for anyone, with no login.

A person uploads a package's ZIP (the ``paquete.zip`` of an offer's statistics page) and
reads what the command would say: that the allocation recomputed from the package alone
gives the published table byte for byte, or the first row that differs. The check and its
words are ``verification.verify``'s, the command's own.

Why bounds: anyone may post here. The body is bounded before it is read (``server.
middleware``), the file by its size before it is read and the ZIP by what it declares
before it is unpacked (``verification.archive.UPLOADED``); the work is proportional to what
is left, one package at a time per process (``BUSY``), and each address has a number of
attempts a minute (``security.throttle``), counted and checked with the CSRF token (sent in
the form's address, not its body) before the body is read; all anonymous uploads of a
machine hold at most ``server.upload_budget``'s bytes at once. A file that cannot be read
is refused under the field, and the form stays as it was.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import Response
from markupsafe import Markup, escape
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from democratiza.verification.archive import MIB, UPLOAD_BYTES
from democratiza.verification.package import (
    AWARDS,
    FIRST_STAGE,
    LATER_STAGE,
    MANIFEST,
    PARAMETERS,
    README,
)
from democratiza.verification.recompute import NEEDS
from democratiza.verification.verify import Verdict, upload_refused, verify_upload
from democratiza.web.pages.forms import FieldErrors
from democratiza.web.pages.templating import render
from democratiza.web.security.access import route
from democratiza.web.server.upload_budget import BUSY_TEXT, UploadBudget, declared_size

router = APIRouter(include_in_schema=False)
FIELD = "paquete"
BUSY = threading.BoundedSemaphore(1)  # one package at a time: each may take hundreds of MiB
WAIT_SECONDS = 30
# What the verdict may name of the package itself (its files, kinds, parameters and
# columns) and that does not read as a word ('adjudicacion.csv', 'cantidad_permitida'):
# what a person looks for in the files, so shown as code. 'orden' or 'lote' read as words.
NAMES = {AWARDS, MANIFEST, PARAMETERS, README, FIRST_STAGE, LATER_STAGE}
NAMES |= {word for needs in NEEDS.values() for names in needs for word in names}
PACKAGE_WORDS = {name for name in NAMES if "_" in name or "." in name}
NAMED = re.compile(
    r"(?<![\w.])("
    + "|".join(map(re.escape, sorted(PACKAGE_WORDS, key=len, reverse=True)))
    + r")(?!\w)"
)


def marked(message: str) -> Markup:
    """The verifier's message, with what it names of the package marked as code."""
    return Markup(NAMED.sub(r"<code>\1</code>", str(escape(message))))


def _page(
    request: Request, verdict: Verdict | None, errors: FieldErrors, status: int = 200
) -> Response:
    context = {
        "veredicto": verdict,
        "mensaje": marked(verdict.message) if verdict else None,
        "limite": f"{UPLOAD_BYTES // MIB} MiB",
        **errors.context(),
    }
    return render(request, "verificar.html", context, status)


def _refused(request: Request, message: str, status: int) -> Response:
    return _page(request, None, FieldErrors({FIELD: [marked(message)]}), status)


@route(router, "GET", "/verificar", "pag.verificar")
def verifier(request: Request) -> Response:
    return _page(request, None, FieldErrors())


@route(router, "POST", "/verificar", "pag.verificar.enviar")
async def check(request: Request) -> Response:
    # The gate has already counted the attempt and checked the CSRF token (from the query
    # or a header: never from this body); nothing of the body is read before it fits.
    budget: UploadBudget = request.app.state.anonymous_uploads
    size = declared_size(dict(request.headers), 2 * UPLOAD_BYTES)
    hold = await run_in_threadpool(budget.reserve, size)  # PostgreSQL: one short transaction
    if hold is None:
        return await run_in_threadpool(_refused, request, BUSY_TEXT, 503)
    try:
        async with request.form() as form:
            return await _checked(request, form.get(FIELD))
    finally:
        await run_in_threadpool(budget.release, hold)


async def _checked(request: Request, upload: object) -> Response:
    if not isinstance(upload, UploadFile) or not upload.filename:
        message = "elija el archivo del paquete (el paquete.zip de las estadísticas de la oferta)"
        return await run_in_threadpool(_refused, request, message, 422)
    name = Path(upload.filename).name[:120]
    refused = upload_refused(upload.size or 0, name)
    if refused is None:  # read no more than the limit, whatever the size said
        data = await upload.read(UPLOAD_BYTES + 1)
        return await run_in_threadpool(_verify, request, data, name)
    return await run_in_threadpool(_refused, request, refused.message, 413)


def _verify(request: Request, data: bytes, name: str) -> Response:
    if not BUSY.acquire(timeout=WAIT_SECONDS):
        message = "el verificador está ocupado con otro paquete; intente de nuevo en un momento"
        return _refused(request, message, 503)
    try:
        verdict = verify_upload(data, name)
    finally:
        BUSY.release()
    if verdict.unread:
        return _refused(request, verdict.message, 422)
    return _page(request, verdict, FieldErrors())
