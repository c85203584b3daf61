"""Pages for the program office: its offers, a new offer, an offer's dashboard and its steps.

Why these pages do little: they read through ``views`` and change through the same
services as the API (``api.offers.change``); the adjudication, which takes a while, goes to
the job runner and the office is sent to the job's page, which polls its progress. The
auditors see the dashboards too.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from democratiza.offers.lifecycle import OfferError, OfferState, create_offer, events
from democratiza.programs.loader import bundled_program_ids
from democratiza.storage.schema import adjudications
from democratiza.web.api import catalog, views
from democratiza.web.api.offers import change
from democratiza.web.errors import Unprocessable
from democratiza.web.pages.charts import bar_chart
from democratiza.web.pages.forms import Action, Reason, back, form_fields
from democratiza.web.pages.templating import render
from democratiza.web.security.access import current, route
from democratiza.web.server.jobs import Progress

router = APIRouter(include_in_schema=False)
ACTIONS: dict[str, OfferState] = {
    "abrir": "abierta",
    "cerrar": "cerrada",
    "adjudicar": "adjudicada",
    "publicar": "publicada",
}
OFFER_FIELDS = ("precio", "acciones_ofrecidas", "fecha_aviso", "fecha_cierre", "trm")


@route(router, "GET", "/oficina", "pag.oficina")
def office_home(request: Request) -> Response:
    with request.app.state.engine.connect() as conn:
        offers = catalog.offers(conn)
    return render(request, "oficina.html", {"ofertas": offers, "programas": bundled_program_ids()})


@route(router, "POST", "/oficina/ofertas", "pag.oferta.crear")
async def new_offer(request: Request) -> Response:
    form = await form_fields(request)
    return await run_in_threadpool(_new_offer, request, form)


def _new_offer(request: Request, form: dict[str, str]) -> Response:
    params: dict[str, object] = {
        k: form[k].strip() for k in OFFER_FIELDS if form.get(k, "").strip()
    }
    code = form.get("codigo", "").strip()
    program = form.get("programa", "")
    if program not in bundled_program_ids():
        raise Unprocessable(f"No existe el programa '{program}'.")
    if not code:
        raise Unprocessable("La oferta necesita un código.")
    why = form.get("motivo") or "publicación del aviso de oferta"
    try:
        with request.app.state.engine.begin() as conn:
            create_offer(conn, code, program, params, current(request).who, why)
    except OfferError as exc:
        raise Unprocessable(str(exc)) from None
    return back(f"/oficina/ofertas/{code}")


def _charts(figures: dict[str, list[dict[str, Any]]]) -> list[Any]:
    titles = [
        ("por_dia", "Aceptaciones por día de radicación", "aceptaciones"),
        ("por_categoria", "Acciones solicitadas por categoría", "acciones"),
        ("por_comisionista", "Aceptaciones por comisionista", "aceptaciones"),
        ("por_limite", "Límite que determinó la cantidad", "aceptaciones"),
    ]
    charts = []
    for key, title, unit in titles:
        measure = "solicitadas" if unit == "acciones" else "aceptaciones"
        charts.append(bar_chart(title, [(r["clave"], r[measure]) for r in figures[key]], unit))
    return charts


@route(router, "GET", "/oficina/ofertas/{codigo}", "pag.tablero")
def dashboard(codigo: str, request: Request) -> Response:
    with request.app.state.engine.connect() as conn:
        stored = views.offer_or_404(conn, codigo)
        figures = views.intake_figures(conn, stored)
        log = events(conn, stored)
        record = (
            conn.execute(select(adjudications).where(adjudications.c.oferta_id == stored.id))
            .mappings()
            .first()
        )
    context = {
        "oferta": catalog.offer_view(stored),
        "cifras": figures,
        "graficas": _charts(figures),
        "eventos": log,
        "registro": dict(record) if record else None,
    }
    return render(request, "tablero.html", context)


@route(router, "POST", "/oficina/ofertas/{codigo}/acciones", "pag.oferta.accion")
def offer_action(
    codigo: str,
    request: Request,
    accion: Action,
    motivo: Reason,
) -> Response:
    target = ACTIONS.get(accion)
    if target is None:
        raise Unprocessable(f"Acción desconocida '{accion}'.")
    who = current(request)
    engine = request.app.state.engine
    if target != "adjudicada":
        change(engine, codigo, target, who.who, motivo)
        return back(f"/oficina/ofertas/{codigo}")

    def work(progress: Progress) -> dict[str, Any]:
        progress.step(
            1, "Leyendo las aceptaciones vigentes, aplicando los límites por persona y adjudicando…"
        )
        change(engine, codigo, target, who.who, motivo)
        return {"detalle": f"Oferta '{codigo}' adjudicada.", "oferta": codigo}

    job = request.app.state.jobs.submit("adjudicacion", who, 2, "En cola.", work)
    return back(f"/trabajos/{job}")
