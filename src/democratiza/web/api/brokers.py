"""The brokers' API: file batches and single acceptances, read their own, export their own.

Why every query names the broker: a broker must never read or change another broker's
acceptances. The broker is taken from the token or the session, never from the request;
reading routes are shared with the office and auditors, who see every broker's rows.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Query, Request, UploadFile
from fastapi.responses import Response
from pydantic import BaseModel, Field

from democratiza.filing.batches import withdraw
from democratiza.offers.lifecycle import OfferError
from democratiza.web.api import downloads, views
from democratiza.web.api.filing import file_batch, file_one, save_upload
from democratiza.web.errors import ERROR_RESPONSES, Conflict
from democratiza.web.security.access import current, route
from democratiza.web.server.filing_answers import BatchAnswer, answer_json
from democratiza.web.server.jobs import load_job

router = APIRouter(prefix="/api", tags=["comisionistas"], responses=ERROR_RESPONSES)


class OneAcceptance(BaseModel):
    lote: str | None = Field(None, max_length=120, description="Identificador del envío")
    aceptacion: dict[str, str | int | bool | None] = Field(
        description="Una fila del archivo de aceptaciones (columnas de `democratiza formato`)"
    )


class Withdrawal(BaseModel):
    motivo: str = Field(min_length=1, max_length=500)


class Message(BaseModel):
    detalle: str


# The answer is checked against ``BatchAnswer`` and written as JSON once, where it is built
# (for a batch, in the bulk lane's process): the routes send those bytes as they are.
@route(
    router,
    "POST",
    "/ofertas/{codigo}/lotes",
    "api.lote.subir",
    status_code=201,
    response_model=BatchAnswer,
)
def upload_batch(
    codigo: str,
    request: Request,
    archivo: Annotated[UploadFile, File(description="Lote en CSV, XLSX o JSON")],
    lote: str = Form(min_length=1, max_length=120, description="Identificador del lote"),
) -> Response:
    """Radica un lote: todo o nada, una sola vez, evaluado fila por fila al recibirlo."""
    who = current(request)
    path, shown = save_upload(archivo)
    state = request.app.state
    answer = file_batch(state.engine, codigo, path, shown, lote, who, state.lane)
    return Response(answer, status_code=201, media_type="application/json")


@route(
    router,
    "POST",
    "/ofertas/{codigo}/aceptaciones",
    "api.aceptacion.radicar",
    status_code=201,
    response_model=BatchAnswer,
)
async def file_acceptance(codigo: str, data: OneAcceptance, request: Request) -> Response:
    """Radica una sola aceptación (un lote de una); el mismo contenido dos veces, una vez."""
    # The gate has already identified the broker: ``current`` reads it without the database.
    answer = await file_one(
        request.app.state.engine, codigo, dict(data.aceptacion), data.lote, current(request)
    )
    return Response(answer_json(answer), status_code=201, media_type="application/json")


@route(router, "POST", "/ofertas/{codigo}/aceptaciones/{radicado}/retiro", "api.aceptacion.retirar")
def withdraw_acceptance(codigo: str, radicado: str, data: Withdrawal, request: Request) -> Message:
    """Retira una aceptación propia mientras la oferta está abierta (queda el historial)."""
    who = current(request)
    engine = request.app.state.engine
    with engine.connect() as conn:
        stored = views.offer_or_404(conn, codigo)
        views.one_acceptance(conn, stored, who, radicado)  # another broker's: not found
    try:
        withdraw(engine, codigo, radicado, who.who, data.motivo)
    except OfferError as exc:
        raise Conflict(str(exc)) from None
    return Message(detalle=f"Aceptación {radicado} retirada.")


@route(router, "GET", "/ofertas/{codigo}/lotes", "api.lotes")
def batches(codigo: str, request: Request) -> list[dict[str, Any]]:
    """Los lotes recibidos (un comisionista: los suyos)."""
    with request.app.state.engine.connect() as conn:
        return views.list_batches(conn, views.offer_or_404(conn, codigo), current(request))


@route(router, "GET", "/ofertas/{codigo}/aceptaciones", "api.aceptaciones")
def acceptances(
    codigo: str,
    request: Request,
    despues_de: str | None = Query(None, max_length=40, description="Radicado; página siguiente"),
    limite: int = Query(views.PAGE, ge=1, le=5_000),
) -> list[dict[str, Any]]:
    """Versiones vigentes, por radicado (un comisionista: las suyas)."""
    with request.app.state.engine.connect() as conn:
        stored = views.offer_or_404(conn, codigo)
        return views.list_acceptances(conn, stored, current(request), despues_de, limite)


@route(router, "GET", "/ofertas/{codigo}/aceptaciones.csv", "api.aceptaciones.archivo")
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
def acceptance(codigo: str, radicado: str, request: Request) -> dict[str, Any]:
    """Todas las versiones de una aceptación (la de otro comisionista no existe para usted)."""
    with request.app.state.engine.connect() as conn:
        stored = views.offer_or_404(conn, codigo)
        return views.one_acceptance(conn, stored, current(request), radicado)


@route(router, "GET", "/ofertas/{codigo}/resultados", "api.resultados")
def results(
    codigo: str,
    request: Request,
    desde: int = Query(0, ge=0, le=2**40, description="Fila inicial"),
    limite: int = Query(views.PAGE, ge=1, le=5_000),
) -> list[dict[str, Any]]:
    """La adjudicación fila por fila (un comisionista: sus aceptantes)."""
    engine = request.app.state.engine
    with engine.connect() as conn:
        views.offer_or_404(conn, codigo)
    rows = downloads.visible_results(engine, codigo, current(request)).slice(desde, limite)
    return [{k: views.plain(v) for k, v in r.items()} for r in rows.to_dicts()]


@route(router, "GET", "/ofertas/{codigo}/adjudicacion.csv", "api.adjudicacion.archivo")
def adjudication_file(codigo: str, request: Request) -> Response:
    """El archivo de adjudicación (un comisionista: el suyo, como lo escribe `oferta exportar`)."""
    engine = request.app.state.engine
    with engine.connect() as conn:
        views.offer_or_404(conn, codigo)
    name, body = downloads.broker_csv(engine, codigo, current(request))
    return Response(
        body,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@route(router, "GET", "/trabajos/{trabajo}", "api.trabajo")
def job(trabajo: str, request: Request) -> dict[str, Any]:
    """El avance de un trabajo largo (un lote grande, una adjudicación)."""
    return load_job(request.app.state.engine, trabajo, current(request))
