"""Pages for brokers, the program office and the auditors.

Why these pages do little: each reads through ``views`` (which filters by role) and changes
through the same services as the API; long work (a batch upload, an adjudication) goes to
the job runner and the person is sent to the job's page, which polls its progress.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Path, Query, Request, UploadFile
from fastapi.responses import RedirectResponse, Response
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from democratiza.filing.batches import withdraw
from democratiza.offers.lifecycle import OfferError, create_offer, events
from democratiza.programs.loader import bundled_program_ids
from democratiza.storage import audit
from democratiza.storage.schema import adjudications, api_tokens
from democratiza.web.api import catalog, views
from democratiza.web.api.filing import file_batch
from democratiza.web.api.offers import change
from democratiza.web.api.stages import list_stages
from democratiza.web.api.uploads import save_upload
from democratiza.web.errors import Conflict, Unprocessable
from democratiza.web.pages.charts import bar_chart
from democratiza.web.pages.templating import render
from democratiza.web.security import token_cache
from democratiza.web.security.access import current, route
from democratiza.web.security.auth import AuthError, create_token
from democratiza.web.server.jobs import Progress, load_job

router = APIRouter(include_in_schema=False)
ACTIONS = {
    "abrir": "abierta",
    "cerrar": "cerrada",
    "adjudicar": "adjudicada",
    "publicar": "publicada",
}
OFFER_FIELDS = ("precio", "acciones_ofrecidas", "fecha_aviso", "fecha_cierre", "trm")


def _back(path: str) -> RedirectResponse:
    return RedirectResponse(path, status_code=303)


@route(router, "GET", "/comisionista", "pag.comisionista")
def broker_home(request: Request) -> Response:
    who = current(request)
    engine = request.app.state.engine
    rows = []
    with engine.connect() as conn:
        for offer in catalog.offers(conn):
            stored = views.offer_or_404(conn, offer.codigo)
            rows.append({"oferta": offer, "lotes": views.list_batches(conn, stored, who)})
    return render(request, "comisionista.html", {"filas": rows, "etapas": list_stages(request)})


@route(router, "POST", "/comisionista/ofertas/{codigo}/lotes", "pag.lote.subir")
def upload(
    codigo: str,
    request: Request,
    archivo: Annotated[UploadFile, File()],
    lote: str = Form(min_length=1, max_length=120),
) -> Response:
    who = current(request)
    engine = request.app.state.engine
    path, shown = save_upload(archivo)

    def work(progress: Progress) -> dict[str, Any]:
        progress.step(1, f"Leyendo, verificando y evaluando «{shown}» fila por fila…")
        answer: dict[str, Any] = json.loads(
            file_batch(engine, codigo, path, shown, lote, who, request.app.state.lane)
        )
        return answer

    job = request.app.state.jobs.submit("lote", who, 2, "En cola.", work)
    return _back(f"/trabajos/{job}")


@route(router, "GET", "/trabajos/{trabajo}", "pag.trabajo")
def job_page(trabajo: str, request: Request) -> Response:
    job = load_job(request.app.state.engine, trabajo, current(request))
    return render(request, "trabajo.html", {"trabajo": job})


@route(router, "GET", "/ofertas/{codigo}/aceptaciones", "pag.aceptaciones")
def acceptances_page(
    codigo: str, request: Request, despues_de: str | None = Query(None, max_length=40)
) -> Response:
    who = current(request)
    with request.app.state.engine.connect() as conn:
        stored = views.offer_or_404(conn, codigo)
        rows = views.list_acceptances(conn, stored, who, despues_de)
    context = {"oferta": catalog.offer_view(stored), "filas": rows, "pagina": views.PAGE}
    return render(request, "aceptaciones.html", context)


@route(router, "POST", "/ofertas/{codigo}/aceptaciones/{radicado}/retiro", "pag.aceptacion.retirar")
def withdraw_page(
    codigo: str, radicado: str, request: Request, motivo: str = Form(min_length=1, max_length=500)
) -> Response:
    who = current(request)
    engine = request.app.state.engine
    with engine.connect() as conn:
        views.one_acceptance(conn, views.offer_or_404(conn, codigo), who, radicado)
    try:
        withdraw(engine, codigo, radicado, who.who, motivo)
    except OfferError as exc:
        raise Conflict(str(exc)) from None
    return _back(f"/ofertas/{codigo}/aceptaciones")


@route(router, "GET", "/oficina", "pag.oficina")
def office_home(request: Request) -> Response:
    with request.app.state.engine.connect() as conn:
        offers = catalog.offers(conn)
    return render(request, "oficina.html", {"ofertas": offers, "programas": bundled_program_ids()})


@route(router, "POST", "/oficina/ofertas", "pag.oferta.crear")
async def new_offer(request: Request) -> Response:
    form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
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
    return _back(f"/oficina/ofertas/{code}")


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
    accion: str = Form(max_length=20),
    motivo: str = Form(min_length=1, max_length=500),
) -> Response:
    target = ACTIONS.get(accion)
    if target is None:
        raise Unprocessable(f"Acción desconocida '{accion}'.")
    who = current(request)
    engine = request.app.state.engine
    if target != "adjudicada":
        change(engine, codigo, target, who.who, motivo)
        return _back(f"/oficina/ofertas/{codigo}")

    def work(progress: Progress) -> dict[str, Any]:
        progress.step(
            1, "Leyendo las aceptaciones vigentes, aplicando los límites por persona y adjudicando…"
        )
        change(engine, codigo, target, who.who, motivo)
        return {"detalle": f"Oferta '{codigo}' adjudicada.", "oferta": codigo}

    job = request.app.state.jobs.submit("adjudicacion", who, 2, "En cola.", work)
    return _back(f"/trabajos/{job}")


def _tokens_page(request: Request, new: dict[str, Any] | None) -> Response:
    with request.app.state.engine.connect() as conn:
        rows = conn.execute(select(api_tokens).order_by(api_tokens.c.id)).mappings().all()
    listed = [{k: v for k, v in r.items() if k != "huella"} for r in rows]
    return render(request, "tokens.html", {"tokens": listed, "nuevo": new})


@route(router, "GET", "/oficina/tokens", "pag.tokens")
def tokens_page(request: Request) -> Response:
    return _tokens_page(request, None)


@route(router, "POST", "/oficina/tokens", "pag.token.crear")
def token_create(
    request: Request,
    comisionista: str = Form(min_length=1, max_length=120),
    descripcion: str = Form("", max_length=200),
) -> Response:
    try:
        with request.app.state.engine.begin() as conn:
            token_id, token = create_token(conn, comisionista, descripcion, current(request).who)
    except AuthError as exc:
        raise Unprocessable(str(exc)) from None
    return _tokens_page(request, {"id": token_id, "comisionista": comisionista, "token": token})


@route(router, "POST", "/oficina/tokens/{token_id}/revocar", "pag.token.revocar")
def token_revoke(token_id: Annotated[int, Path(ge=1, le=2**31 - 1)], request: Request) -> Response:
    state = request.app.state
    try:
        token_cache.revoke(state.engine, state.tokens, token_id, current(request).who)
    except AuthError as exc:
        raise Conflict(str(exc)) from None
    return _back("/oficina/tokens")


def _audit_page(request: Request, before: int | None, verification: Any) -> Response:
    with request.app.state.engine.connect() as conn:
        rows = audit.entries(conn, 100, before)
        total = audit.count(conn)
        anchor = audit.anchor(conn)
    context = {"entradas": rows, "total": total, "verificacion": verification, "ancla": anchor}
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
