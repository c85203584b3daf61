"""The Primera Etapa's payments from the offer's page: a payment file, then the settlement.

Why here and thin: the office loaded a later stage's payments from its page, but the
Primera Etapa's only with the command line or the API. The same services run
(``api.payments``: ``compliance.payment_batches.import_payments`` and
``compliance.holdings.settle``); a refused file or settlement is shown on the offer's page,
each row's error under the file's field, and the settlement, which cannot be undone, needs
its box ticked.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import Response

from democratiza.web.api import payments as api_payments
from democratiza.web.api.uploads import BatchId
from democratiza.web.errors import ErrorItem, WebError
from democratiza.web.pages.dashboard import offer_page
from democratiza.web.pages.forms import FieldErrors, FormState, back, field_errors
from democratiza.web.security.access import route

router = APIRouter(include_in_schema=False)
SECTION = "#pagos"


def _row(item: ErrorItem) -> str:
    where = f"fila {item.fila}, " if item.fila else ""
    column = f"columna '{item.columna}': " if item.columna else ""
    return f"{where}{column}{item.mensaje}"


@route(router, "POST", "/oficina/ofertas/{codigo}/pagos/lotes", "pag.pagos.subir")
def upload(
    codigo: str, request: Request, archivo: Annotated[UploadFile, File()], lote: BatchId
) -> Response:
    """A payment file for the offer's awards (radicado, fecha, monto, forma), all or nothing."""
    try:
        api_payments.upload_payments(codigo, request, archivo, lote)
    except WebError as exc:
        rows = [_row(i) for i in exc.items[:50]] or [exc.message]
        general = [exc.message] if exc.items else []
        errors = FieldErrors(by_field={"archivo": rows}, general=general)
        return offer_page(request, codigo, {"pagos": FormState({"lote": lote}, errors)}, 422)
    return back(f"/oficina/ofertas/{codigo}{SECTION}")


@route(router, "POST", "/oficina/ofertas/{codigo}/liquidacion", "pag.pagos.liquidar")
def settle(
    codigo: str,
    request: Request,
    fecha_enajenacion: Annotated[str, Form(max_length=10)] = "",
    confirmo: Annotated[str, Form(max_length=2)] = "",
) -> Response:
    """Close the payment period: what was paid is sold on the date; the rest is resolved."""
    typed = {"fecha_enajenacion": fecha_enajenacion, "confirmo": confirmo}
    problems = []
    day = None
    try:
        day = date.fromisoformat(fecha_enajenacion.strip())
    except ValueError:
        message = "se espera una fecha AAAA-MM-DD"
        problems.append(ErrorItem(columna="fecha_enajenacion", mensaje=message))
    if confirmo != "si":
        problems.append(ErrorItem(columna="confirmo", mensaje="marque la casilla para confirmar"))
    if day is not None and not problems:
        try:
            data = api_payments.SettlementData(fecha_enajenacion=day)
            api_payments.settle_payments(codigo, data, request)
        except WebError as exc:
            problems.append(ErrorItem(columna=None, mensaje=exc.message))
    if problems:
        errors = field_errors(problems, ("fecha_enajenacion", "confirmo"))
        return offer_page(request, codigo, {"liquidacion": FormState(typed, errors)}, 422)
    return back(f"/oficina/ofertas/{codigo}{SECTION}")
