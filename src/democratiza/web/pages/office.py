"""Pages for the program office: its offers, a new offer, and an offer's steps (the offer's
own page is ``dashboard``).

Why these pages do little: they read through ``views`` and change through the same
services as the API (``api.offers.change``); the adjudication, which takes a while, goes to
the job runner and the office is sent to the job's page, which polls its progress. A new
offer refused is shown again as typed, each problem under its field (``offer_form``).
Adjudicating and publishing cannot be undone: they need the box that confirms them ticked.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from democratiza.filing import reevaluation
from democratiza.offers.lifecycle import OfferError, OfferState, create_offer
from democratiza.web.api import catalog, views
from democratiza.web.api.offers import change
from democratiza.web.errors import Conflict, ErrorItem, Unprocessable
from democratiza.web.pages.dashboard import offer_page
from democratiza.web.pages.forms import (
    Action,
    FieldErrors,
    FormState,
    Reason,
    back,
    field_errors,
    form_fields,
)
from democratiza.web.pages.interruption_form import (
    INTERRUPTION_FIELDS,
    adjustment_problems,
    form_problems,
    requested,
)
from democratiza.web.pages.offer_form import FORM_FIELDS, OFFER_FIELDS, offer_problems
from democratiza.web.pages.templating import render
from democratiza.web.security.access import current, route
from democratiza.web.server.jobs import Progress

router = APIRouter(include_in_schema=False)
ACTIONS: dict[str, OfferState] = {
    "abrir": "abierta",
    "cerrar": "cerrada",
    "adjudicar": "adjudicada",
    "publicar": "publicada",
    "desierta": "desierta",
}
# The steps that cannot be undone: the page says what will happen and asks to confirm it.
CONFIRMED: tuple[OfferState, ...] = ("adjudicada", "publicada", "desierta")


def _office_page(
    request: Request, form: dict[str, str], errors: FieldErrors, status: int = 200
) -> Response:
    with request.app.state.engine.connect() as conn:
        offers = catalog.offers(conn)
    context = {
        "ofertas": offers,
        "programas": [(p.id, p.nombre) for p in catalog.all_programs()],
        "datos": form,
        **errors.context(),
    }
    return render(request, "oficina.html", context, status)


@route(router, "GET", "/oficina", "pag.oficina")
def office_home(request: Request) -> Response:
    defaults = {"motivo": "publicación del aviso de oferta"}
    return _office_page(request, defaults, FieldErrors())


@route(router, "POST", "/oficina/ofertas", "pag.oferta.crear")
async def new_offer(request: Request) -> Response:
    form = await form_fields(request)
    return await run_in_threadpool(_new_offer, request, form)


def _new_offer(request: Request, form: dict[str, str]) -> Response:
    problems = offer_problems(form)
    if problems:
        return _office_page(request, form, field_errors(problems, FORM_FIELDS), 422)
    params: dict[str, object] = {
        k: form[k].strip() for k in OFFER_FIELDS if form.get(k, "").strip()
    }
    code = form["codigo"].strip()
    why = form.get("motivo") or "publicación del aviso de oferta"
    try:
        with request.app.state.engine.begin() as conn:
            create_offer(conn, code, form["programa"], params, current(request).who, why)
    except OfferError as exc:
        return _office_page(request, form, FieldErrors(general=str(exc).splitlines()), 422)
    return back(f"/oficina/ofertas/{code}")


def _day(text: str, what: str) -> date | None:
    """A business date typed in the form (AAAA-MM-DD); empty: today, as the service decides."""
    if not text.strip():
        return None
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise Unprocessable(f"{what}: escriba la fecha como AAAA-MM-DD ('{text}').") from None


@route(router, "POST", "/oficina/ofertas/{codigo}/acciones", "pag.oferta.accion")
def offer_action(
    codigo: str,
    request: Request,
    accion: Action,
    motivo: Reason,
    confirmo: str = Form("", max_length=2),
    fecha: str = Form("", max_length=10),
    plazo_pago: str = Form("", max_length=10),
) -> Response:
    target = ACTIONS.get(accion)
    if target is None:
        raise Unprocessable(f"Acción desconocida '{accion}'.")
    dates = (_day(fecha, "Fecha"), _day(plazo_pago, "Plazo de pago"))
    if target in CONFIRMED and confirmo != "si":
        raise Unprocessable(
            f"Para {accion} la oferta marque la casilla que confirma lo que va a pasar."
        )
    who = current(request)
    engine = request.app.state.engine
    if target != "adjudicada":
        change(engine, codigo, target, who.who, motivo, dates)
        return back(f"/oficina/ofertas/{codigo}")

    def work(progress: Progress) -> dict[str, Any]:
        progress.step(
            1, "Leyendo las aceptaciones vigentes, aplicando los límites por persona y adjudicando…"
        )
        change(engine, codigo, target, who.who, motivo, dates)
        return {"detalle": f"Oferta '{codigo}' adjudicada.", "oferta": codigo}

    job = request.app.state.jobs.submit("adjudicacion", who, 2, "En cola.", work)
    return back(f"/trabajos/{job}")


@route(router, "POST", "/oficina/ofertas/{codigo}/interrupcion", "pag.oferta.interrumpir")
async def interruption(codigo: str, request: Request) -> Response:
    form = await form_fields(request)
    return await run_in_threadpool(_interruption, request, codigo, form)


def _interruption(request: Request, codigo: str, form: dict[str, str]) -> Response:
    """An interruption and, if a price is typed, its adjustment (Ley 226 art. 11 num. 2);
    refused, the page again as typed, every problem under its field."""
    typed = {k: v[:500] for k, v in form.items() if k in INTERRUPTION_FIELDS}
    problems = form_problems(typed)
    adjustment = None if problems else requested(typed)
    try:
        with request.app.state.engine.begin() as conn:
            stored = views.offer_or_404(conn, codigo)
            if adjustment is not None:
                problems += adjustment_problems(stored, adjustment)
            if not problems:
                why = typed["motivo"].strip()
                reevaluation.interrupt(conn, stored, current(request).who, why, adjustment)
    except OfferError as exc:
        problems.append(ErrorItem(columna=None, mensaje=str(exc)))
    if problems:
        errors = field_errors(problems, INTERRUPTION_FIELDS)
        return offer_page(request, codigo, {"interrupcion": FormState(typed, errors)}, 422)
    return back(f"/oficina/ofertas/{codigo}")


@route(router, "POST", "/oficina/ofertas/{codigo}/desierta", "pag.oferta.desierta")
async def void_stage(codigo: str, request: Request) -> Response:
    form = await form_fields(request)
    return await run_in_threadpool(_void_stage, request, codigo, form)


def _void_stage(request: Request, codigo: str, form: dict[str, str]) -> Response:
    """The Primera Etapa declared void: the cause and the ticked box, or the form again."""
    typed = {k: form.get(k, "")[:500] for k in ("motivo", "confirmo")}
    problems = []
    if not typed["motivo"].strip():
        problems.append(ErrorItem(columna="motivo", mensaje="escriba la causal"))
    if typed["confirmo"] != "si":
        problems.append(ErrorItem(columna="confirmo", mensaje="marque la casilla para confirmar"))
    if not problems:
        try:
            who = current(request).who
            change(request.app.state.engine, codigo, "desierta", who, typed["motivo"].strip())
        except Conflict as exc:
            problems.append(ErrorItem(columna=None, mensaje=exc.message))
    if problems:
        errors = field_errors(problems, ("motivo", "confirmo"))
        return offer_page(request, codigo, {"desierta": FormState(typed, errors)}, 422)
    return back(f"/oficina/ofertas/{codigo}")
