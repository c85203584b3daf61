"""Rendering pages: Jinja2 templates with the principal, the CSRF token, Colombian numbers
and words instead of identifiers.

Why one helper: every page needs to know who is looking (for the menu) and every form
needs the CSRF token, the session's or, before logging in, a double-submit cookie's; the
numbers are written as in Colombia (118.929 acciones; $ 2.018,50) by ``democratiza.money``,
and every identifier a page shows goes through ``labels.label`` (the ``etiqueta`` filter),
so a page reads "Trabajador activo", never ``trabajador_activo``.
"""

from __future__ import annotations

import re
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from markupsafe import Markup, escape

from democratiza.labels import label, rule_cited
from democratiza.money import group, pesos
from democratiza.programs.loader import bundled_program_ids, load_program
from democratiza.programs.schema import Program
from democratiza.tables.acceptances import ACCEPTANCES
from democratiza.tables.orders import ORDERS
from democratiza.tables.payments import PAYMENTS
from democratiza.web.errors import ErrorItem, WebError
from democratiza.web.security.access import CSRF_COOKIE, principal_of
from democratiza.web.security.auth import ANONYMOUS, AUDITOR, BROKER, OFFICE
from democratiza.web.security.clients import is_https
from democratiza.words import count, decision_read

TEMPLATES = Jinja2Templates(directory=str(Path(__file__).parents[1] / "templates"))
TEMPLATES.env.filters["grupo"] = lambda n: group(int(n)) if n is not None else "—"
TEMPLATES.env.filters["pesos"] = lambda c: pesos(int(c)) if c is not None else "—"

HOME = {OFFICE: "/oficina", BROKER: "/comisionista", AUDITOR: "/auditoria"}


def program_of(ref: object) -> Program | None:
    """A template's program: the program itself, or a bundled program's id."""
    if isinstance(ref, Program):
        return ref
    if isinstance(ref, str) and ref in bundled_program_ids():
        return load_program(ref)
    return None


def _label(ident: object, kind: str, program: object = None) -> str:
    return label(kind, ident, program_of(program))


def _rule_cited(ident: object, program: object) -> str:
    found = program_of(program)
    return rule_cited(found, ident) if found is not None else label("regla", ident)


def program_name(ref: object) -> str:
    """A program (an id, or an offer's) as its file names it; an unknown one as it is."""
    found = program_of(ref)
    return found.name if found is not None else str(ref)


def _first_upper(text: object) -> str:
    """'abierta' -> 'Abierta'; unlike Jinja's ``capitalize``, the rest is left as it is."""
    shown = str(text)
    return shown[:1].upper() + shown[1:]


def _moment(stored: object) -> str:
    """A stored date and time as a person reads it, to the second: '2026-12-02T15:13:47.12'
    -> '2026-12-02 15:13:47' (the fractions and the ISO 'T' are the database's, not the
    reader's; the second stays, the order of receipt may turn on it)."""
    return str(stored or "")[:19].replace("T", " ")


# What a broker's file carries (its columns and their codes): in an error about the file
# these are what the broker must type, and are shown as code, not as text.
FILE_WORDS = frozenset(
    word
    for fmt in (ACCEPTANCES, ORDERS, PAYMENTS)
    for word in (
        *(c.name for c in fmt.columns if "_" in c.name),  # 'cantidad' is also a word
        *(v for values in fmt.codes.values() for v in values),
    )
)
WORD = re.compile(r"[A-Za-z0-9_]+")


def _codes(message: object) -> Markup:
    """An error about a file with the file's own words (a column, a code) marked as code."""
    shown = str(escape(str(message)))
    return Markup(
        WORD.sub(
            lambda m: f"<code>{m.group(0)}</code>" if m.group(0) in FILE_WORDS else m.group(0),
            shown,
        )
    )


TEMPLATES.env.filters["codigos"] = _codes  # {{ e.mensaje|codigos }}
TEMPLATES.env.filters["etiqueta"] = _label  # {{ c|etiqueta("categoria") }}
TEMPLATES.env.filters["regla"] = _rule_cited  # {{ r|regla(oferta.programa) }}
TEMPLATES.env.filters["programa"] = program_name  # {{ o.programa|programa }}
TEMPLATES.env.filters["mayuscula"] = _first_upper
TEMPLATES.env.filters["momento"] = _moment  # {{ l.recibido_en|momento }}
TEMPLATES.env.globals["decision_leida"] = decision_read  # decision_leida(a.decision, a.estado)
TEMPLATES.env.globals["cuenta"] = count  # {{ cuenta(n, "aceptación", "aceptaciones") }}


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
            CSRF_COOKIE, new_cookie, httponly=True, samesite="strict", secure=secure_cookie(request)
        )
    return response


def secure_cookie(request: Request) -> bool:
    """Whether a cookie set now must be ``Secure`` (HTTPS, even behind a TLS proxy)."""
    state = request.app.state
    return is_https(request, state.proxies, state.secure_cookies)


def error_page(request: Request, status: int, message: str, items: list[ErrorItem]) -> HTMLResponse:
    context = {
        "estado": status,
        "mensaje": message,
        "errores": items,
        "volver": _came_from(request),
    }
    return render(request, "error.html", context, status)


def _came_from(request: Request) -> str | None:
    """The page of this site the refused request came from (its Referer), to go back to."""
    came = urlsplit(request.headers.get("referer", ""))
    if came.netloc != request.url.netloc or not came.path.startswith("/"):
        return None
    return came.path + (f"?{came.query}" if came.query else "")
