"""Public pages: home, offer notice, calculator, result lookup, and logging in and out.

Why forms post back to the same page: the answer (or the Spanish reason it was refused)
is shown next to what the person typed, without JavaScript.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from democratiza.rules.calculator import MONEY_FIELDS
from democratiza.vocabulary import CATEGORIES
from democratiza.web.api import catalog
from democratiza.web.api.calculator import CalculatorInput, calculate
from democratiza.web.api.public import resolve_offer
from democratiza.web.api.views import lookup_result, offer_or_404
from democratiza.web.errors import ErrorItem, WebError
from democratiza.web.pages.forms import form_fields
from democratiza.web.pages.templating import HOME, render
from democratiza.web.security.access import SESSION_COOKIE, current, route
from democratiza.web.security.auth import (
    check_password,
    close_session,
    open_session,
    session_principal,
)

router = APIRouter(include_in_schema=False)
CHECKBOXES = ("obligado_declarar", "extranjero", "directivo")


@route(router, "GET", "/", "pag.inicio")
def home(request: Request) -> Response:
    with request.app.state.engine.connect() as conn:
        offers = catalog.offers(conn)
    return render(request, "inicio.html", {"programas": catalog.all_programs(), "ofertas": offers})


@route(router, "GET", "/ofertas/{codigo}", "pag.aviso")
def notice(codigo: str, request: Request) -> Response:
    with request.app.state.engine.connect() as conn:
        view = catalog.offer_view(offer_or_404(conn, codigo))
    return render(request, "aviso.html", {"oferta": view})


def _calculator_page(
    request: Request, values: dict[str, str], result: Any, errors: list[ErrorItem], status: int
) -> Response:
    with request.app.state.engine.connect() as conn:
        offers = catalog.offers(conn)
    context = {
        "valores": values,
        "resultado": result,
        "errores": errors,
        "ofertas": offers,
        "programas": catalog.all_programs(),
        "categorias": CATEGORIES,
        "montos": MONEY_FIELDS,
    }
    return render(request, "calculadora.html", context, status)


@route(router, "GET", "/calculadora", "pag.calculadora")
def calculator_form(request: Request) -> Response:
    return _calculator_page(request, {"obligado_declarar": "si"}, None, [], 200)


@route(router, "POST", "/calculadora", "pag.calculadora.calcular")
async def calculator(request: Request) -> Response:
    return await run_in_threadpool(_calculate, request, await form_fields(request))


def _calculate(request: Request, values: dict[str, str]) -> Response:
    fields: dict[str, Any] = {
        k: (v or None) for k, v in values.items() if k in CalculatorInput.model_fields
    }
    for box in CHECKBOXES:
        fields[box] = values.get(box) == "si"
    if fields.get("oferta"):
        fields["programa"] = None
    try:
        data = CalculatorInput.model_validate(fields)
        result = calculate(resolve_offer(request, data), data)
    except ValidationError as exc:
        items = [
            ErrorItem(columna=".".join(map(str, e["loc"])), mensaje=e["msg"]) for e in exc.errors()
        ]
        return _calculator_page(request, values, None, items, 422)
    except WebError as exc:
        items = exc.items or [ErrorItem(mensaje=exc.message)]
        return _calculator_page(request, values, None, items, exc.status)
    return _calculator_page(request, values, result, [], 200)


@route(router, "GET", "/resultados", "pag.resultado")
def result_form(request: Request) -> Response:
    return render(request, "resultado.html", {"valores": {}, "resultado": None, "error": None})


@route(router, "POST", "/resultados", "pag.resultado.consultar")
async def result_lookup(request: Request) -> Response:
    return await run_in_threadpool(_lookup, request, await form_fields(request))


def _lookup(request: Request, values: dict[str, str]) -> Response:
    try:
        with request.app.state.engine.connect() as conn:
            found = lookup_result(
                conn,
                values.get("oferta", ""),
                values.get("radicado", ""),
                values.get("tipo_identificacion", ""),
                values.get("numero_identificacion", ""),
            )
    except WebError as exc:
        return render(
            request,
            "resultado.html",
            {"valores": values, "resultado": None, "error": exc.message},
            404,
        )
    return render(request, "resultado.html", {"valores": values, "resultado": found, "error": None})


def _next(target: str | None, fallback: str) -> str:
    """Only a path of this site: never an open redirect."""
    if target and target.startswith("/") and not target.startswith("//"):
        return target
    return fallback


@route(router, "GET", "/entrar", "pag.entrar")
def login_form(request: Request, siguiente: str | None = None) -> Response:
    return render(request, "entrar.html", {"siguiente": siguiente or "", "error": None})


@route(router, "POST", "/entrar", "pag.entrar.enviar")
async def login(request: Request) -> Response:
    return await run_in_threadpool(_login, request, await form_fields(request))


def _login(request: Request, values: dict[str, str]) -> Response:
    engine = request.app.state.engine
    now = datetime.now()
    with engine.begin() as conn:
        outcome = check_password(conn, values.get("login", ""), values.get("clave", ""), now)
        cookie = open_session(conn, outcome.user_id, now) if outcome.user_id else None
    if cookie is None:
        context = {"siguiente": values.get("siguiente", ""), "error": outcome.message}
        return render(request, "entrar.html", context, 401)
    with engine.connect() as conn:
        who = session_principal(conn, cookie, now)
    assert who is not None
    response = RedirectResponse(_next(values.get("siguiente"), HOME[who.role]), status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        cookie,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        max_age=8 * 3600,
    )
    return response


@route(router, "POST", "/salir", "pag.salir")
def logout(request: Request) -> Response:
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie and current(request).via == "sesion":
        with request.app.state.engine.begin() as conn:
            close_session(conn, cookie)
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(SESSION_COOKIE)
    return response
