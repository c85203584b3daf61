"""Payments over HTTP: the program office records the payment file and settles the period.

The same services as the command line (``compliance.*``): a payment file is filed all or
nothing, once; settling the period sells what was paid on the sale date and resolves
what was not. Money is in centavos. The Primera Etapa's (``/ofertas/…``) and a later
stage's (``/etapas/…``) run the same code over their ledger.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import date
from typing import Annotated

from fastapi import APIRouter, Request, UploadFile

from democratiza.compliance.holdings import settle
from democratiza.compliance.ledger import ledger_of, offer_ledger, stage_ledger
from democratiza.compliance.payment_batches import LedgerOf, import_payments
from democratiza.compliance.settlement_figures import settlement_figures
from democratiza.offers.lifecycle import OfferError
from democratiza.web.api.after_sale_answers import (
    PaymentsAnswer,
    Settlement,
    SettlementFiguresAnswer,
)
from democratiza.web.api.bodies import Body, Day
from democratiza.web.api.stages import check_stage
from democratiza.web.api.uploads import BatchId, file_field, uploaded
from democratiza.web.api.views import check_offer, offer_or_404
from democratiza.web.errors import ERROR_RESPONSES, Conflict, refused
from democratiza.web.security.access import current, route

router = APIRouter(prefix="/api", tags=["después de la venta"], responses=ERROR_RESPONSES)


def _upload(
    request: Request, code: str, archivo: UploadFile, lote: str, ledger_of: LedgerOf
) -> PaymentsAnswer:
    with uploaded(archivo, "El archivo") as path:
        try:
            result = import_payments(
                request.app.state.engine, code, path, lote, current(request).who, ledger_of
            )
        except OfferError as exc:
            raise refused(exc) from None
    return PaymentsAnswer(
        detalle=result.message, creado=result.created, filas=result.rows, total=result.total
    )


@route(router, "POST", "/ofertas/{codigo}/pagos/lotes", "api.pagos.subir", status_code=201)
def upload_payments(
    codigo: str,
    request: Request,
    archivo: Annotated[UploadFile, file_field("Pagos en CSV, XLSX o JSON")],
    lote: BatchId,
) -> PaymentsAnswer:
    """Registra un archivo de pagos (radicado, fecha, monto, forma): todo o nada, una vez."""
    check_offer(request.app.state.engine, codigo)
    return _upload(request, codigo, archivo, lote, offer_ledger)


@route(router, "POST", "/etapas/{etapa}/pagos/lotes", "api.etapa.pagos.subir", status_code=201)
def upload_stage_payments(
    etapa: str,
    request: Request,
    archivo: Annotated[UploadFile, file_field("Pagos en CSV, XLSX o JSON")],
    lote: BatchId,
) -> PaymentsAnswer:
    """Registra un archivo de pagos de lo asignado en una etapa siguiente (en las formas que
    el programa admite para ellas)."""
    check_stage(request.app.state.engine, etapa)
    return _upload(request, etapa, archivo, lote, stage_ledger)


@route(router, "GET", "/ofertas/{codigo}/pagos", "api.pagos.cifras")
def payment_figures(codigo: str, request: Request) -> SettlementFiguresAnswer:
    """Después de adjudicar: valor adjudicado, pagado, por pagar y, liquidado el periodo,
    lo resuelto por falta de pago (centavos)."""
    with request.app.state.engine.connect() as conn:
        found = settlement_figures(conn, ledger_of(offer_or_404(conn, codigo)))
    if found is None:
        raise Conflict(f"La oferta '{codigo}' no se ha adjudicado: aún no recibe pagos.")
    return SettlementFiguresAnswer(**asdict(found))


class SettlementData(Body):
    fecha_enajenacion: Day


def _settle(request: Request, code: str, day: date, ledger_of: LedgerOf) -> Settlement:
    try:
        done = settle(request.app.state.engine, code, day, current(request).who, ledger_of)
    except OfferError as exc:
        raise refused(exc) from None
    return Settlement(
        fecha_enajenacion=done.sale_date.isoformat(),
        acciones_pagadas=done.paid_shares,
        acciones_resueltas=done.resolved_shares,
        adjudicaciones=done.awards,
    )


@route(router, "POST", "/ofertas/{codigo}/liquidacion", "api.pagos.liquidar")
def settle_payments(codigo: str, data: SettlementData, request: Request) -> Settlement:
    """Cierra el periodo de pago: lo pagado se vende en la fecha; lo no pagado se resuelve."""
    check_offer(request.app.state.engine, codigo)
    return _settle(request, codigo, data.fecha_enajenacion, offer_ledger)


@route(router, "POST", "/etapas/{etapa}/liquidacion", "api.etapa.pagos.liquidar")
def settle_stage_payments(etapa: str, data: SettlementData, request: Request) -> Settlement:
    """Cierra el periodo de pago de una etapa: lo pagado se vende; lo no pagado se resuelve
    y vuelve para la etapa siguiente."""
    check_stage(request.app.state.engine, etapa)
    return _settle(request, etapa, data.fecha_enajenacion, stage_ledger)
