"""The auditors' page: the audit log, its anchor, and the verification of its hash chain."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from democratiza.storage import audit
from democratiza.web.errors import Unprocessable
from democratiza.web.pages.audit_words import Names, read_entry
from democratiza.web.pages.templating import render
from democratiza.web.security.access import route

router = APIRouter(include_in_schema=False)


def _audit_page(request: Request, before: int | None, verification: Any) -> Response:
    with request.app.state.engine.connect() as conn:
        rows = audit.entries(conn, 100, before)
        names = Names(conn)
        read = [read_entry(names, row) for row in rows]
        total = audit.count(conn)
        anchor = audit.anchor(conn)
    context = {"entradas": read, "total": total, "verificacion": verification, "ancla": anchor}
    return render(request, "auditoria.html", context)


@route(router, "GET", "/auditoria", "pag.auditoria")
def audit_page(request: Request, antes_de: int | None = Query(None, ge=1, le=2**62)) -> Response:
    return _audit_page(request, antes_de, None)


@route(router, "GET", "/auditoria/verificacion", "pag.auditoria.verificar")
def audit_verify(request: Request, ancla: str | None = Query(None, max_length=100)) -> Response:
    try:
        anchored = audit.Anchor.parse(ancla) if ancla else None
    except ValueError as exc:
        raise Unprocessable(str(exc)) from None
    with request.app.state.engine.connect() as conn:
        found = audit.verify(conn, anchored)
    return _audit_page(request, None, found)
