"""Public pages: home, offer notice, a later stage's notice, result lookup (a Primera Etapa
acceptance or a later stage's order), and logging in and out (the calculator has its own
module).

Why forms post back to the same page: the answer (or the Spanish reason it was refused)
is shown next to what the person typed, without JavaScript.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from democratiza.labels import first_stage_name, label, later_stage_payments
from democratiza.money import group
from democratiza.offers.dates import business_dates
from democratiza.offers.lifecycle import OfferState, offer_programs
from democratiza.rules.explain import cite
from democratiza.stages.lifecycle import ANNOUNCED
from democratiza.stages.terms import rules
from democratiza.storage.radicados import is_order
from democratiza.vocabulary import ID_TYPES
from democratiza.web.api import catalog
from democratiza.web.api import stages as api_stages
from democratiza.web.api.views import lookup_order_result, lookup_result, offer_or_404
from democratiza.web.errors import NotFound, WebError
from democratiza.web.pages.forms import form_fields
from democratiza.web.pages.templating import HOME, render, secure_cookie
from democratiza.web.security.access import SESSION_COOKIE, current, route
from democratiza.web.security.auth import (
    check_password,
    close_session,
    open_session,
    session_principal,
)
from democratiza.web.security.clients import client_address

router = APIRouter(include_in_schema=False)


@route(router, "GET", "/", "pag.inicio")
def home(request: Request) -> Response:
    with request.app.state.engine.connect() as conn:
        offers = catalog.offers(conn)
        stages = catalog.announced_stages(conn)
    context = {"programas": catalog.all_programs(), "ofertas": offers, "etapas": stages}
    return render(request, "inicio.html", context)


@route(router, "GET", "/ofertas/{codigo}", "pag.aviso")
def notice(codigo: str, request: Request) -> Response:
    with request.app.state.engine.connect() as conn:
        stored = offer_or_404(conn, codigo)
        stages = catalog.announced_stages(conn, stored.id)
    return render(request, "aviso.html", {"oferta": catalog.offer_view(stored), "etapas": stages})


# Where a later stage's shares come from, in the order a person reads it (``origen_etapa``
# words; a Segunda Etapa's come from the Primera, a subsequent stage's from the previous one).
ORIGIN = (
    "ofrecidas_primera_etapa",
    "adjudicadas_primera_etapa",
    "disponibles_etapa_anterior",
    "asignadas_etapa_anterior",
    "pagadas",
    "resueltas_por_no_pago",
    "disponibles",
)


@route(router, "GET", "/etapas/{etapa}", "pag.etapa.aviso")
def stage_notice(etapa: str, request: Request) -> Response:
    """A later stage's aviso, from its opening on: what it offers and where from, who may buy,
    how the price is set, its minimum price and how it was reached, its terms and how it is
    paid, each rule with its article. The figures are the API's notice (``api.etapa``)."""
    with request.app.state.engine.connect() as conn:
        stage = api_stages.stage_or_404(conn, etapa)
    if stage.state not in ANNOUNCED:
        raise NotFound(
            f"El aviso de la etapa '{etapa}' aún no se ha publicado: se publica al abrirse."
        )
    view = api_stages.stage_view(stage)
    program = stage.program
    later = rules(program)
    context = {
        "etapa": view,
        "programa": program.name,
        "origen": {k: group(int(stage.origin[k])) for k in ORIGIN if k in stage.origin},
        "pasos": stage.origin.get("precio_minimo_pasos", []),
        "inversionistas": later.investors.value,
        "cita_inversionistas": cite(program, later.investors.citation),
        "regla_precio_minimo": later.minimum_price.value,
        "cita_precio_minimo": cite(program, later.minimum_price.citation),
        "formas_pago": later_stage_payments(program, later),
        "desierta": f"{later.void.value} ({cite(program, later.void.citation)})",
        "subsecuentes": (
            f"{later.later.value} ({cite(program, later.later.citation)})" if later.later else None
        ),
    }
    return render(request, "aviso_etapa.html", context)


def _result_page(
    request: Request, values: dict[str, str], found: Any, error: str | None, status: int = 200
) -> Response:
    with request.app.state.engine.connect() as conn:
        offers = catalog.offers(conn)
        stages = catalog.published_stages(conn)
        published = [o for o in offers if o.estado == "publicada"]
        listed = published or offers
        # Each offer by its name, as its notice names it (the code is for the office), and a
        # later stage by the name of the offer it follows and its own: the programs of the
        # offers named, in one query.
        named = {o.codigo for o in listed} | {s.oferta for s in stages}
        states = {cast(OfferState, o.estado) for o in offers if o.codigo in named}
        programs = {c: p for c, p in offer_programs(conn, *states) if c in named}
    names = {code: program.name for code, program in programs.items()}
    choices = [
        (o.codigo, f"{names[o.codigo]} · {first_stage_name(programs[o.codigo])}") for o in listed
    ]
    choices += [(s.codigo, f"{names[s.oferta]} · {s.nombre}") for s in stages]
    context = {
        "valores": values,
        "resultado": found if found and "etapa" not in found else None,
        "orden": found if found and "etapa" in found else None,
        "error": error,
        "ofertas": choices,
        "publicadas": bool(published or stages),
        "tipos": [(t, f"{label('tipo_identificacion', t)} ({t})") for t in ID_TYPES],
    }
    return render(request, "resultado.html", context, status)


@route(router, "GET", "/resultados", "pag.resultado")
def result_form(request: Request) -> Response:
    return _result_page(request, {"tipo_identificacion": "CC"}, None, None)


@route(router, "POST", "/resultados", "pag.resultado.consultar")
async def result_lookup(request: Request) -> Response:
    return await run_in_threadpool(_lookup, request, await form_fields(request))


def _lookup(request: Request, values: dict[str, str]) -> Response:
    code = values.get("oferta", "")
    if is_order(values.get("radicado", "")):
        return _lookup_order(request, values, code)
    try:
        with request.app.state.engine.begin() as conn:  # may draw the offer's pseudonym key
            found = lookup_result(
                conn,
                code,
                values.get("radicado", ""),
                values.get("tipo_identificacion", ""),
                values.get("numero_identificacion", ""),
            )
            stored = offer_or_404(conn, code)
            closing = stored.offer.day("fecha_cierre")
            deadline = business_dates(conn, stored.id, closing).payment_deadline
    except WebError as exc:
        return _result_page(request, values, None, exc.message, 404)
    price = int(str(found["precio"]))  # the acceptance's own (Ley 226 art. 11 num. 2)
    shown = {
        **found,
        "programa": stored.program.name,
        "precio": price,
        "valor_a_pagar": int(str(found["adjudicada"])) * price,
        "valor_pagado": int(str(found["acciones_pagadas"] or 0)) * price,  # once settled
        "plazo_pago": deadline,
    }
    return _result_page(request, values, shown, None)


def _lookup_order(request: Request, values: dict[str, str], code: str) -> Response:
    """A later stage's order (its radicado starts with O-; the list names the stage)."""
    try:
        with request.app.state.engine.begin() as conn:  # may draw the offer's pseudonym key
            found = lookup_order_result(
                conn,
                code,
                values.get("radicado", ""),
                values.get("tipo_identificacion", ""),
                values.get("numero_identificacion", ""),
            )
    except WebError as exc:
        return _result_page(request, values, None, exc.message, 404)
    return _result_page(request, values, found, None)


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
        outcome = check_password(
            conn,
            values.get("login", ""),
            values.get("clave", ""),
            request.app.state.lockout,
            client_address(request, request.app.state.proxies),
        )
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
        secure=secure_cookie(request),
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
