"""What brokers filed and what it got: batches, acceptances, the adjudication's rows.

Why every query names the broker: a broker must never read another broker's acceptances.
The broker is taken from the token or the session, never from the request; these routes
are shared with the office and auditors, who see every broker's rows. The progress of a
long job (a large batch, an adjudication) is read here too.
"""

from __future__ import annotations

from typing import cast

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from democratiza.web.api import downloads, views
from democratiza.web.api.answers import (
    AcceptanceRow,
    AcceptanceVersions,
    BatchRow,
    Job,
    ResultRow,
)
from democratiza.web.api.formats import CSV_FILE, CsvOptions
from democratiza.web.errors import ERROR_RESPONSES
from democratiza.web.security.access import current, route
from democratiza.web.server.jobs import load_job

router = APIRouter(prefix="/api", tags=["comisionistas"], responses=ERROR_RESPONSES)


@route(router, "GET", "/ofertas/{codigo}/lotes", "api.lotes")
def batches(codigo: str, request: Request) -> list[BatchRow]:
    """Los lotes recibidos (un comisionista: los suyos)."""
    with request.app.state.engine.connect() as conn:
        rows = views.list_batches(conn, views.offer_or_404(conn, codigo), current(request))
    return [BatchRow.model_validate(r) for r in rows]


@route(router, "GET", "/ofertas/{codigo}/aceptaciones", "api.aceptaciones")
def acceptances(
    codigo: str,
    request: Request,
    despues_de: str | None = Query(None, max_length=40, description="Radicado; página siguiente"),
    limite: int = Query(views.PAGE, ge=1, le=5_000),
) -> list[AcceptanceRow]:
    """Versiones vigentes, por radicado (un comisionista: las suyas)."""
    with request.app.state.engine.connect() as conn:
        stored = views.offer_or_404(conn, codigo)
        rows = views.list_acceptances(conn, stored, current(request), despues_de, limite)
    return cast(list[AcceptanceRow], rows)  # checked against it as it leaves


@route(
    router,
    "GET",
    "/ofertas/{codigo}/aceptaciones.csv",
    "api.aceptaciones.archivo",
    **CSV_FILE,
)
def acceptances_file(codigo: str, request: Request) -> Response:
    """Las aceptaciones vigentes en CSV (un comisionista: las suyas)."""
    with request.app.state.engine.connect() as conn:
        stored = views.offer_or_404(conn, codigo)
        body = views.acceptances_csv(conn, stored, current(request))
    return Response(
        body,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="aceptaciones-{codigo}.csv"'},
    )


@route(router, "GET", "/ofertas/{codigo}/aceptaciones/{radicado}", "api.aceptacion")
def acceptance(codigo: str, radicado: str, request: Request) -> AcceptanceVersions:
    """Todas las versiones de una aceptación (la de otro comisionista no existe para usted)."""
    with request.app.state.engine.connect() as conn:
        stored = views.offer_or_404(conn, codigo)
        found = views.one_acceptance(conn, stored, current(request), radicado)
    return AcceptanceVersions.model_validate(found)


@route(router, "GET", "/ofertas/{codigo}/resultados", "api.resultados")
def results(
    codigo: str,
    request: Request,
    desde: int = Query(0, ge=0, le=2**40, description="Fila inicial"),
    limite: int = Query(views.PAGE, ge=1, le=5_000),
) -> list[ResultRow]:
    """La adjudicación fila por fila (un comisionista: sus aceptantes)."""
    engine = request.app.state.engine
    views.check_offer(engine, codigo)
    rows = downloads.visible_results(engine, codigo, current(request)).slice(desde, limite)
    plain = [{k: views.plain(v) for k, v in r.items()} for r in rows.to_dicts()]
    return cast(list[ResultRow], plain)  # checked against it as it leaves


@route(
    router,
    "GET",
    "/ofertas/{codigo}/adjudicacion.csv",
    "api.adjudicacion.archivo",
    **CSV_FILE,
)
def adjudication_file(codigo: str, request: Request, style: CsvOptions) -> Response:
    """El archivo de adjudicación (un comisionista: el suyo, como lo escribe `oferta exportar`)."""
    engine = request.app.state.engine
    views.check_offer(engine, codigo)
    name, body = downloads.broker_csv(engine, codigo, current(request), style)
    return Response(
        body,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@route(router, "GET", "/trabajos/{trabajo}", "api.trabajo")
def job(trabajo: str, request: Request) -> Job:
    """El avance de un trabajo largo (un lote grande, una adjudicación)."""
    return Job.model_validate(load_job(request.app.state.engine, trabajo, current(request)))
