"""One later stage's page for the office and the auditors: its figures, its minimum price and
how it was reached, its book (the demand curve), its steps and its record; once allocated,
its payments (a payment file) and their settlement.

Why thin: the page reads and changes through the same functions as the API
(``api.stages``), so it can never do what the API refuses. The cut-off price is typed as
people write it (``money.parse_pesos``); allocating, publishing and declaring a stage void
cannot be undone, so they need the box that confirms them ticked; a refused step is shown
again on the page, with its error under its field.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Annotated

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import Response
from markupsafe import Markup
from sqlalchemy import select

from democratiza.compliance.ledger import stage_ledger
from democratiza.labels import later_stage_payments
from democratiza.money import MoneyError, parse_pesos
from democratiza.reports.stage_report import demand_svg
from democratiza.stages.allocate import current_orders
from democratiza.stages.clearing import demand_curve
from democratiza.stages.lifecycle import ANNOUNCED, stage_history
from democratiza.stages.terms import StageState, rules
from democratiza.storage.schema import stage_allocations
from democratiza.web.api import payments as api_payments
from democratiza.web.api import stages as api_stages
from democratiza.web.api.uploads import BatchId
from democratiza.web.errors import ErrorItem, Unprocessable
from democratiza.web.pages.forms import Action, FieldErrors, Reason, back, field_errors
from democratiza.web.pages.templating import render
from democratiza.web.security.access import current, route

router = APIRouter(include_in_schema=False)
ACTIONS: dict[str, StageState] = {"abrir": "abierta", "cerrar": "cerrada", "publicar": "publicada"}
CONFIRMED = ("adjudicar", "publicar", "desierta")  # cannot be undone: the page asks first


def _stage_page(
    request: Request, etapa: str, errors: FieldErrors, typed: dict[str, str], status: int = 200
) -> Response:
    with request.app.state.engine.connect() as conn:
        stage = api_stages.stage_or_404(conn, etapa)
        valid = current_orders(conn, stage).filter(decision="valida")
        history = stage_history(conn, stage)
        record = conn.execute(
            select(stage_allocations.c.precio, stage_allocations.c.registro).where(
                stage_allocations.c.etapa_id == stage.id
            )
        ).first()
        ledger = stage_ledger(conn, etapa)
        payments = None if ledger.waiting else ledger.summary(conn)
    curve = demand_curve(valid["precio"].to_numpy(), valid["cantidad"].to_numpy())
    header = None
    point = None
    if record is not None:
        header = json.loads(record.registro)
        if record.precio is not None:
            point = (int(record.precio), int(header["asignadas"]))
    context = {
        "etapa": api_stages.stage_view(stage),
        "pasos": stage.origin.get("precio_minimo_pasos", []),
        "grafica": Markup(demand_svg(stage, curve, point)),  # drawn here, not user text
        "ordenes_validas": valid.height,
        "acciones_pedidas": int(valid["cantidad"].sum() or 0),
        "eventos": history,
        "aviso_publico": stage.state in ANNOUNCED,  # the public reads its aviso from opening on
        "registro": header,
        "pagos": payments,
        "formas_pago": later_stage_payments(stage.program, rules(stage.program)),
        "datos": typed,
        **errors.context(),
    }
    return render(request, "etapa.html", context, status)


@route(router, "GET", "/oficina/etapas/{etapa}", "pag.etapa")
def stage_page(etapa: str, request: Request) -> Response:
    """The stage: where its shares come from, its minimum price, its book and its record."""
    return _stage_page(request, etapa, FieldErrors(), {"motivo": "decisión de la oficina"})


@route(router, "POST", "/oficina/etapas/{etapa}/acciones", "pag.etapa.accion")
def stage_action(
    etapa: str,
    request: Request,
    accion: Action,
    motivo: Reason,
    precio_corte: str = Form("", max_length=40),
    confirmo: str = Form("", max_length=2),
) -> Response:
    who = current(request).who
    engine = request.app.state.engine
    typed = {"accion": accion, "motivo": motivo, "precio_corte": precio_corte}
    problems: list[ErrorItem] = []
    if accion in CONFIRMED and confirmo != "si":
        problems.append(ErrorItem(columna="confirmo", mensaje="marque la casilla para confirmar"))
    cutoff = None
    if accion == "adjudicar" and precio_corte.strip():
        try:
            cutoff = parse_pesos(precio_corte)
        except MoneyError as exc:
            problems.append(ErrorItem(columna="precio_corte", mensaje=str(exc)))
    if problems:
        errors = field_errors(problems, ("precio_corte", "confirmo"))
        return _stage_page(request, etapa, errors, typed, 422)
    if accion == "adjudicar":
        api_stages.allocate(
            etapa, api_stages.Allocation(motivo=motivo, precio_corte=cutoff), request
        )
    elif accion == "desierta":
        api_stages.change(engine, etapa, "desierta", who, motivo)
    elif accion in ACTIONS:
        api_stages.change(engine, etapa, ACTIONS[accion], who, motivo)
    else:
        raise Unprocessable(f"Acción desconocida '{accion}'.")
    return back(f"/oficina/etapas/{etapa}")


@route(router, "POST", "/oficina/etapas/{etapa}/pagos/lotes", "pag.etapa.pagos.subir")
def stage_payments(
    etapa: str, request: Request, archivo: Annotated[UploadFile, File()], lote: BatchId
) -> Response:
    """A payment file for the stage's allocations (the API's service, then back)."""
    api_payments.upload_stage_payments(etapa, request, archivo, lote)
    return back(f"/oficina/etapas/{etapa}")


@route(router, "POST", "/oficina/etapas/{etapa}/liquidacion", "pag.etapa.pagos.liquidar")
def stage_settlement(
    etapa: str,
    request: Request,
    fecha_enajenacion: Annotated[date, Form()],
    confirmo: str = Form("", max_length=2),
) -> Response:
    """Settle the stage's payment period; it cannot be undone, so the box must be ticked."""
    if confirmo != "si":
        problems = [ErrorItem(columna="confirmo", mensaje="marque la casilla para confirmar")]
        errors = field_errors(problems, ("confirmo",))
        return _stage_page(request, etapa, errors, {"motivo": "decisión de la oficina"}, 422)
    data = api_payments.SettlementData(fecha_enajenacion=fecha_enajenacion)
    api_payments.settle_stage_payments(etapa, data, request)
    return back(f"/oficina/etapas/{etapa}")
