"""Rendering pages: Jinja2 templates with the principal, the CSRF token and Colombian numbers.

Why one helper: every page needs to know who is looking (for the menu) and every form
needs the CSRF token, the session's or, before logging in, a double-submit cookie's; the
numbers are written as in Colombia (118.929 acciones; $ 2.018,50) by ``democratiza.money``.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from democratiza.money import group, pesos
from democratiza.web.errors import ErrorItem, WebError
from democratiza.web.security.access import CSRF_COOKIE, principal_of
from democratiza.web.security.auth import ANONYMOUS, AUDITOR, BROKER, OFFICE

TEMPLATES = Jinja2Templates(directory=str(Path(__file__).parents[1] / "templates"))
TEMPLATES.env.filters["grupo"] = lambda n: group(int(n)) if n is not None else "—"
TEMPLATES.env.filters["pesos"] = lambda c: pesos(int(c)) if c is not None else "—"

HOME = {OFFICE: "/oficina", BROKER: "/comisionista", AUDITOR: "/auditoria"}
STATE_NAMES = {
    "borrador": "en borrador",
    "abierta": "abierta (recibe aceptaciones)",
    "cerrada": "cerrada",
    "adjudicada": "adjudicada",
    "publicada": "publicada",
}
TEMPLATES.env.globals["ESTADOS"] = STATE_NAMES


def render(
    request: Request, template: str, context: dict[str, Any], status: int = 200
) -> HTMLResponse:
    try:
        who = principal_of(request)
    except WebError:  # an error page for a request with a bad token
        who = ANONYMOUS
    new_cookie = None
    if who.csrf:
        token = who.csrf
    else:
        token = request.cookies.get(CSRF_COOKIE) or ""
        if not token:
            token = new_cookie = secrets.token_urlsafe(32)
    response = TEMPLATES.TemplateResponse(
        request,
        template,
        {"who": who, "csrf": token, "inicio_rol": HOME.get(who.role), **context},
        status_code=status,
    )
    if new_cookie:
        response.set_cookie(
            CSRF_COOKIE, new_cookie, httponly=True, samesite="strict", secure=_secure(request)
        )
    return response


def _secure(request: Request) -> bool:
    return request.url.scheme == "https"


def error_page(request: Request, status: int, message: str, items: list[ErrorItem]) -> HTMLResponse:
    return render(
        request, "error.html", {"estado": status, "mensaje": message, "errores": items}, status
    )
