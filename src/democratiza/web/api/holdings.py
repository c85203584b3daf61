"""Holdings after the sale over HTTP: a holding, the events on it, ineffective acquisitions.

The same services as the command line (``compliance.holdings``): the office and the
auditors read what became of an award; the program office records an event on the shares
(within the two years it opens a fine's case) and declares an acquisition ineffective.
Money is in centavos.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request
from pydantic import Field

from democratiza.compliance.holdings import (
    EVENT_KINDS,
    flag_ineffective,
    holding_view,
    record_event,
)
from democratiza.offers.lifecycle import OfferError
from democratiza.tables.format import MAX_SHARES
from democratiza.web.api.after_sale_answers import EventAnswer, FineFigures, Holding, HoldingEvent
from democratiza.web.api.answers import Message
from democratiza.web.api.bodies import Body, Centavos, Day
from democratiza.web.api.views import check_offer
from democratiza.web.errors import ERROR_RESPONSES, NotFound, refused
from democratiza.web.security.access import current, route

router = APIRouter(prefix="/api", tags=["después de la venta"], responses=ERROR_RESPONSES)


@route(router, "GET", "/ofertas/{codigo}/tenencias/{radicado}", "api.tenencia")
def holding(codigo: str, radicado: str, request: Request) -> Holding:
    """Una adjudicación después de la venta: lo vendido, sus eventos y si es ineficaz."""
    check_offer(request.app.state.engine, codigo)
    try:
        view = holding_view(request.app.state.engine, codigo, radicado)
    except OfferError as exc:
        raise NotFound(str(exc)) from None
    return Holding(
        radicado=view.radicado,
        adjudicadas=view.awarded,
        fecha_enajenacion=None if view.sale_date is None else view.sale_date.isoformat(),
        pagadas=view.paid,
        resueltas=view.resolved,
        en_registro=view.registered,
        ineficaz=view.ineffective is not None,
        cita_ineficacia=view.citation,
        eventos=[
            HoldingEvent(
                tipo=e.kind,
                que=e.label,
                fecha=e.day.isoformat(),
                acciones=e.shares,
                contraprestacion=e.consideration,
                detalle=e.detail,
                quien=e.who,
            )
            for e in view.events
        ],
    )


class EventData(Body):
    tipo: Literal["venta", "dacion_en_pago", "beneficiario_real", "subrogacion"] = Field(
        description=", ".join(f"{k}: {v}" for k, v in EVENT_KINDS.items())
    )
    fecha: Day
    acciones: int = Field(ge=1, le=MAX_SHARES)
    contraprestacion: Centavos | None = Field(None, description="Centavos por acción obtenidos")
    detalle: str = Field(min_length=1, max_length=2000)


@route(
    router,
    "POST",
    "/ofertas/{codigo}/tenencias/{radicado}/eventos",
    "api.tenencia.evento",
    status_code=201,
)
def holding_event(codigo: str, radicado: str, data: EventData, request: Request) -> EventAnswer:
    """Registra un evento sobre las acciones; dentro de los dos años abre un caso de multa."""
    check_offer(request.app.state.engine, codigo)
    try:
        case = record_event(
            request.app.state.engine,
            codigo,
            radicado,
            data.tipo,
            data.fecha,
            data.acciones,
            data.contraprestacion,
            data.detalle,
            current(request).who,
        )
    except OfferError as exc:
        raise refused(exc) from None
    fine = case.fine
    figures = None
    if fine is not None:
        figures = FineFigures(
            base_por_accion=fine.base.centavos,
            base=fine.base.chosen.key,
            porcentaje=fine.percent,
            monto=fine.centavos,
        )
    return EventAnswer(evento=case.event_id, tramo=case.band.reason, multa=figures)


class IneffectiveData(Body):
    fecha: Day
    motivo: str = Field(min_length=1, max_length=2000)


@route(
    router,
    "POST",
    "/ofertas/{codigo}/tenencias/{radicado}/ineficacia",
    "api.tenencia.ineficacia",
    status_code=201,
)
def ineffective(codigo: str, radicado: str, data: IneffectiveData, request: Request) -> Message:
    """Declara ineficaz una adquisición contraria a las reglas del beneficiario real."""
    check_offer(request.app.state.engine, codigo)
    try:
        flag_ineffective(
            request.app.state.engine,
            codigo,
            radicado,
            data.fecha,
            data.motivo,
            current(request).who,
        )
    except OfferError as exc:
        raise refused(exc) from None
    return Message(detalle=f"Adquisición {radicado} declarada ineficaz.")
