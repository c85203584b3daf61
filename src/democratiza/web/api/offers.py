"""The program office's API (offers and their adjudication) and what it shares with auditors.

Why thin: every change goes through the existing services (``offers.lifecycle``,
``adjudication.record``), which refuse a wrong transition and record the event and the
audit entry in the same transaction; this module only maps their refusals to HTTP.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field
from sqlalchemy import Engine, select

from democratiza.adjudication.record import adjudicate, publish
from democratiza.compliance.credit.gate import open_offer
from democratiza.filing import reevaluation
from democratiza.money import group, pesos
from democratiza.offers.lifecycle import (
    OfferError,
    OfferState,
    advance,
    create_offer,
    declare_void,
    load_offer,
)
from democratiza.offers.prices import AdjustmentRequest
from democratiza.programs.loader import bundled_program_ids
from democratiza.storage.schema import adjudications
from democratiza.web.api import catalog, downloads, views
from democratiza.web.api.bodies import Body, Day, NewCode
from democratiza.web.api.formats import (
    CSV_FILE,
    REPORT_FILE,
    CsvOptions,
)
from democratiza.web.api.offer_figures import offer_figures
from democratiza.web.api.office_answers import AdjudicationRecord, Dashboard
from democratiza.web.errors import ERROR_RESPONSES, Conflict, NotFound, Unprocessable, refused
from democratiza.web.security.access import current, route

router = APIRouter(prefix="/api", tags=["oficina del programa"], responses=ERROR_RESPONSES)


class NewOffer(BaseModel):
    codigo: NewCode
    programa: str = Field(max_length=80)
    parametros: dict[str, str | int] = Field(
        description="precio, acciones_ofrecidas, fecha_aviso, fecha_cierre, trm…"
    )
    motivo: str = Field("publicación del aviso de oferta", min_length=1, max_length=500)


class OfferStepReason(Body):
    motivo: str = Field(min_length=1, max_length=500)
    fecha: Day | None = Field(
        None, description="Fecha de negocio de la adjudicación o la publicación (hoy)"
    )
    plazo_pago: Day | None = Field(
        None, description="Al publicar: último día para pagar que fija el aviso de resultados"
    )


class Interruption(Body):
    motivo: str = Field(min_length=1, max_length=500)
    precio_nuevo: str | None = Field(None, max_length=40)
    fundamento: str | None = Field(None, max_length=500)
    vigente_desde: Day | None = Field(None, description="Desde cuándo rige (hoy)")
    aceptaciones_anteriores: Literal["conservan", "reevaluadas"] | None = None
    fundamento_anteriores: str | None = Field(None, max_length=500)


class State(BaseModel):
    codigo: str
    estado: str
    detalle: str


def change(
    engine: Engine,
    code: str,
    target: OfferState,
    who: str,
    why: str,
    dates: tuple[date | None, date | None] = (None, None),
) -> State:
    """One lifecycle step through the services; a refused step changes nothing (409).

    ``dates``: the step's business date and, when publishing, the payment deadline."""
    day, deadline = dates
    try:
        if target == "adjudicada":
            adjudicate(engine, code, who, why, day)
        elif target == "publicada":
            publish(engine, code, who, why, day, deadline)
        elif target == "desierta":  # with its cause (GEB art. 3.1)
            with engine.begin() as conn:
                declare_void(conn, load_offer(conn, code), who, why)
        elif target == "abierta":  # only once the credit lines qualify (Ley 226 art. 11.3)
            with engine.begin() as conn:
                open_offer(conn, load_offer(conn, code), who, why)
        else:
            with engine.begin() as conn:
                advance(conn, load_offer(conn, code), target, who, why)
    except OfferError as exc:
        raise refused(exc) from None
    return State(codigo=code, estado=target, detalle=f"Oferta '{code}': {target}.")


@route(router, "POST", "/ofertas", "api.oferta.crear", status_code=201)
def new_offer(data: NewOffer, request: Request) -> catalog.OfferView:
    """Crea una oferta en borrador con los parámetros que el decreto deja abiertos."""
    if data.programa not in bundled_program_ids():
        raise NotFound(f"No existe el programa '{data.programa}'.")
    try:
        with request.app.state.engine.begin() as conn:
            stored = create_offer(
                conn,
                data.codigo,
                data.programa,
                dict(data.parametros),
                current(request).who,
                data.motivo,
            )
    except OfferError as exc:
        raise Unprocessable(str(exc)) from None
    return catalog.offer_view(stored)


def _step(
    target: OfferState, default_reason: str
) -> Callable[[str, OfferStepReason, Request], State]:
    def handler(codigo: str, data: OfferStepReason, request: Request) -> State:
        engine, who = request.app.state.engine, current(request).who
        return change(engine, codigo, target, who, data.motivo, (data.fecha, data.plazo_pago))

    handler.__doc__ = f"Pasa la oferta a «{target}» ({default_reason})."
    return handler


STEPS: list[tuple[str, OfferState, str]] = [
    ("abrir", "abierta", "inicio del plazo"),
    ("cerrar", "cerrada", "vencimiento del plazo"),
    ("adjudicar", "adjudicada", "adjudicación al vencimiento del plazo"),
    ("publicar", "publicada", "publicación de resultados"),
    ("desierta", "desierta", "declarada desierta con su causal"),
]
for _name, _target, _why in STEPS:
    route(router, "POST", f"/ofertas/{{codigo}}/{_name}", f"api.oferta.{_name}")(
        _step(_target, _why)
    )


@route(router, "POST", "/ofertas/{codigo}/interrumpir", "api.oferta.interrumpir")
def interrupt(codigo: str, data: Interruption, request: Request) -> State:
    """Registra una interrupción (Ley 226 art. 11) y el ajuste de precio con su fundamento."""
    adjustment = None
    if data.precio_nuevo is not None:
        adjustment = AdjustmentRequest(
            data.precio_nuevo,
            data.fundamento,
            data.aceptaciones_anteriores,
            data.fundamento_anteriores,
            data.vigente_desde,
        )
    try:
        with request.app.state.engine.begin() as conn:
            stored = views.offer_or_404(conn, codigo)
            who = current(request).who
            stored, again = reevaluation.interrupt(conn, stored, who, data.motivo, adjustment)
    except OfferError as exc:
        raise Unprocessable(str(exc)) from None
    detail = "Interrupción registrada."
    if adjustment is not None:
        detail += (
            f" Precio ajustado: {pesos(stored.price_in_force)}; aceptaciones evaluadas de "
            f"nuevo: {group(again)}."
        )
    return State(codigo=codigo, estado=stored.state, detalle=detail)


@route(router, "GET", "/ofertas/{codigo}/tablero", "api.tablero")
def dashboard(codigo: str, request: Request) -> Dashboard:
    """Cifras del ingreso: por día, categoría, comisionista y límite determinante."""
    with request.app.state.engine.connect() as conn:
        stored = views.offer_or_404(conn, codigo)
        return Dashboard.model_validate(offer_figures(request.app.state, conn, stored).intake)


@route(router, "GET", "/ofertas/{codigo}/adjudicacion", "api.adjudicacion")
def adjudication_record(codigo: str, request: Request) -> AdjudicationRecord:
    """El registro de la adjudicación: método, parámetros y huellas de entradas y resultado."""
    with request.app.state.engine.connect() as conn:
        stored = views.offer_or_404(conn, codigo)
        record = conn.execute(
            select(
                adjudications.c.registro, adjudications.c.quien, adjudications.c.creada_en
            ).where(adjudications.c.oferta_id == stored.id)
        ).first()
    if record is None:
        raise Conflict(f"La oferta '{codigo}' no se ha adjudicado.")
    header: dict[str, Any] = json.loads(record.registro)
    found = {**header, "quien": record.quien, "creada_en": record.creada_en.isoformat()}
    return AdjudicationRecord.model_validate(found)


@route(
    router,
    "GET",
    "/ofertas/{codigo}/informe.{formato}",
    "api.informe",
    **REPORT_FILE,
)
def report(codigo: str, formato: Literal["html", "pdf"], request: Request) -> Response:
    """El informe de adjudicación, en HTML o PDF (el mismo de `oferta exportar`)."""
    engine = request.app.state.engine
    views.check_offer(engine, codigo)
    body = downloads.report(engine, codigo, formato)
    media = "text/html; charset=utf-8" if formato == "html" else "application/pdf"
    return Response(body, media_type=media)


@route(
    router,
    "GET",
    "/ofertas/{codigo}/registro-adjudicatarios.csv",
    "api.registro",
    **CSV_FILE,
)
def registry(codigo: str, request: Request, style: CsvOptions) -> Response:
    """El registro de adjudicatarios para el depósito."""
    engine = request.app.state.engine
    views.check_offer(engine, codigo)
    body = downloads.registry_csv(engine, codigo, style)
    return Response(body, media_type="text/csv; charset=utf-8")
