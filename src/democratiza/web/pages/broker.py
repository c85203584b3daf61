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
from democratiza.offers.lifecycle import OfferError
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
        return answer

    job = request.app.state.jobs.submit("lote", who, 2, "En cola.", work)
    return back(f"/trabajos/{job}")


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
