"""Payments over HTTP: the program office records the payment file and settles the period.

The same services as the command line (``compliance.*``): a payment file is filed all or
nothing, once; settling the period sells what was paid on the sale date and resolves
what was not. Money is in centavos.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, Request, UploadFile

from democratiza.compliance.holdings import settle
from democratiza.compliance.payment_batches import import_payments
from democratiza.offers.lifecycle import OfferError
from democratiza.web.api.bodies import Body, Day
from democratiza.web.api.uploads import BatchId, uploaded
from democratiza.web.api.views import check_offer
from democratiza.web.errors import ERROR_RESPONSES, refused
from democratiza.web.security.access import current, route

router = APIRouter(prefix="/api", tags=["después de la venta"], responses=ERROR_RESPONSES)


@route(router, "POST", "/ofertas/{codigo}/pagos/lotes", "api.pagos.subir", status_code=201)
def upload_payments(
    codigo: str,
    request: Request,
    archivo: Annotated[UploadFile, File(description="Pagos en CSV, XLSX o JSON")],
    lote: BatchId,
) -> dict[str, Any]:
    """Registra un archivo de pagos (radicado, fecha, monto, forma): todo o nada, una vez."""
    check_offer(request.app.state.engine, codigo)
    with uploaded(archivo, "El archivo") as path:
        try:
            result = import_payments(
                request.app.state.engine, codigo, path, lote, current(request).who
            )
        except OfferError as exc:
            raise refused(exc) from None
    return {
        "detalle": result.message,
        "creado": result.created,
        "filas": result.rows,
        "total": result.total,
    }


class SettlementData(Body):
    fecha_enajenacion: Day


@route(router, "POST", "/ofertas/{codigo}/liquidacion", "api.pagos.liquidar")
def settle_payments(codigo: str, data: SettlementData, request: Request) -> dict[str, Any]:
    """Cierra el periodo de pago: lo pagado se vende en la fecha; lo no pagado se resuelve."""
    check_offer(request.app.state.engine, codigo)
    try:
        done = settle(
            request.app.state.engine, codigo, data.fecha_enajenacion, current(request).who
        )
    except OfferError as exc:
        raise refused(exc) from None
    return {
        "fecha_enajenacion": done.sale_date.isoformat(),
        "acciones_pagadas": done.paid_shares,
        "acciones_resueltas": done.resolved_shares,
        "adjudicaciones": done.awards,
    }
