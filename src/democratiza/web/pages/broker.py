"""Pages for brokers: their offers and batches, uploading a batch, their acceptances.

Why these pages do little: each reads through ``views`` (which filters by role) and changes
through the same services as the API. A batch uploaded here is filed by the job runner and
the broker is sent to the job's page, which polls its progress; the acceptances and job
pages are shared with the office and the auditors, who see every broker's.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, File, Query, Request, UploadFile
from fastapi.responses import Response

from democratiza.filing.batches import withdraw
from democratiza.filing.reasons import stored_reasons
from democratiza.offers.lifecycle import OfferError
from democratiza.rules.engine import DECISIONS
from democratiza.web.api import catalog, views
from democratiza.web.api.filing import file_batch
from democratiza.web.api.stages import list_stages
from democratiza.web.api.uploads import BatchId, save_upload
from democratiza.web.errors import Conflict
from democratiza.web.pages.forms import Reason, back
from democratiza.web.pages.templating import render
from democratiza.web.security.access import current, route
from democratiza.web.server.jobs import Progress, load_job

router = APIRouter(include_in_schema=False)
ROWS_PER_PAGE = 200  # rows of a batch's result on one page
DECISION_VALUES = tuple(DECISIONS.categories.to_list())  # the engine's, in its order


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
    lote: BatchId,
) -> Response:
    who = current(request)
    engine = request.app.state.engine
    path, shown = save_upload(archivo)

    def work(progress: Progress) -> dict[str, Any]:
        progress.step(1, f"Leyendo, verificando y evaluando «{shown}» fila por fila…")
        answer: dict[str, Any] = json.loads(
            file_batch(engine, codigo, path, shown, lote, who, request.app.state.lane)
        )
        return {**answer, "oferta": codigo}

    job = request.app.state.jobs.submit("lote", who, 2, "En cola.", work)
    return back(f"/trabajos/{job}")


@route(router, "GET", "/trabajos/{trabajo}", "pag.trabajo")
def job_page(
    trabajo: str,
    request: Request,
    decision: str | None = Query(None, max_length=20),
    pagina: int = Query(1, ge=1, le=10**7),
) -> Response:
    """A job's progress; once a batch is filed, its rows, by decision and a page at a time."""
    job = load_job(request.app.state.engine, trabajo, current(request))
    decision = decision if decision in DECISION_VALUES else None
    result = job.get("resultado") or {}
    rows = [r for r in result.get("resultado", []) if decision in (None, r.get("decision"))]
    pages = max(1, -(-len(rows) // ROWS_PER_PAGE))
    shown = rows[(pagina - 1) * ROWS_PER_PAGE : pagina * ROWS_PER_PAGE]
    context = {
        "trabajo": job,
        "filas": shown,
        "decision": decision,
        "pagina": min(pagina, pages),
        "paginas": pages,
        "total_filas": len(rows),
        "decisiones": DECISION_VALUES,
    }
    return render(request, "trabajo.html", context)


@route(router, "GET", "/ofertas/{codigo}/aceptaciones", "pag.aceptaciones")
def acceptances_page(
    codigo: str,
    request: Request,
    despues_de: str | None = Query(None, max_length=40),
    lote: str | None = Query(None, max_length=120),
    comisionista: str | None = Query(None, max_length=120),
) -> Response:
    """The current acceptances a person may read, each with why it got its decision; a
    batch's rows alone with ``lote`` (and, for the office, its ``comisionista``)."""
    who = current(request)
    broker = who.broker if who.role == "comisionista" else comisionista
    with request.app.state.engine.connect() as conn:
        stored = views.offer_or_404(conn, codigo)
        rows = views.list_acceptances(conn, stored, who, despues_de, broker=broker, batch=lote)
        reasons = stored_reasons(conn, stored, rows)
    context = {
        "oferta": catalog.offer_view(stored),
        "filas": [{**r, "por_que": reasons.get(str(r["radicado"]), "")} for r in rows],
        "pagina": views.PAGE,
        "lote": lote,
        "comisionista": broker if lote else None,
    }
    return render(request, "aceptaciones.html", context)


@route(router, "POST", "/ofertas/{codigo}/aceptaciones/{radicado}/retiro", "pag.aceptacion.retirar")
def withdraw_page(codigo: str, radicado: str, request: Request, motivo: Reason) -> Response:
    who = current(request)
    engine = request.app.state.engine
    with engine.connect() as conn:
        views.one_acceptance(conn, views.offer_or_404(conn, codigo), who, radicado)
    try:
        withdraw(engine, codigo, radicado, who.who, motivo)
    except OfferError as exc:
        raise Conflict(str(exc)) from None
    return back(f"/ofertas/{codigo}/aceptaciones")
