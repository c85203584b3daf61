"""After the sale over HTTP: payments, settlement, holdings, fines and credit lines.

The same services as the command line (``compliance.*``): the program office records the
payment file, settles the payment period, records events on holdings and flags ineffective
acquisitions; the office and the auditors read a holding, compute a fine's statement and
check a credit line or draw a loan schedule (JSON, CSV or PDF). Money in the JSON bodies is
in centavos; rates are percentages written as text ("18.5"), never floats.
"""

from __future__ import annotations

import json
import shutil
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, Literal

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import Response
from pydantic import Field

from democratiza.compliance.credit.checks import check_offer_credit_line
from democratiza.compliance.credit.collateral import collateral_coverage
from democratiza.compliance.credit.lines import CreditError, CreditLine
from democratiza.compliance.credit.schedule import amortization_schedule
from democratiza.compliance.fines.account import Payment
from democratiza.compliance.fines.case import compute_fine
from democratiza.compliance.fines.terms import FineError
from democratiza.compliance.fines.text import statement_text
from democratiza.compliance.holdings import (
    EVENT_KINDS,
    flag_ineffective,
    holding_view,
    record_event,
    settle,
)
from democratiza.compliance.payment_batches import import_payments
from democratiza.compliance.series import MissingSeriesValue
from democratiza.offers.lifecycle import OfferError
from democratiza.programs.parameters import OfferParameterError
from democratiza.programs.schema import FineBaseKey
from democratiza.reports.fine_statement import fine_statement_csv
from democratiza.reports.fine_statement_pdf import fine_statement_pdf
from democratiza.reports.loan_schedule import schedule_csv_with_totals, schedule_pdf
from democratiza.tables.errors import InputRejected
from democratiza.web.access import current, route
from democratiza.web.bodies import Body, Day
from democratiza.web.catalog import program_or_404
from democratiza.web.errors import (
    ERROR_RESPONSES,
    NotFound,
    Unprocessable,
    file_responses,
    refused,
    rejected_file,
)
from democratiza.web.filing import save_upload
from democratiza.web.views import offer_or_404, plain

router = APIRouter(prefix="/api", tags=["después de la venta"], responses=ERROR_RESPONSES)
Centavos = Annotated[int, Field(ge=1, le=10**15, description="Centavos")]
Percent = Annotated[
    str, Field(pattern=r"^\d{1,3}(\.\d{1,6})?$", description="Porcentaje, p. ej. 18.5")
]


def _offer(request: Request, codigo: str) -> None:
    with request.app.state.engine.connect() as conn:
        offer_or_404(conn, codigo)


@route(router, "POST", "/ofertas/{codigo}/pagos/lotes", "api.pagos.subir", status_code=201)
def upload_payments(
    codigo: str,
    request: Request,
    archivo: Annotated[UploadFile, File(description="Pagos en CSV, XLSX o JSON")],
    lote: str = Form(min_length=1, max_length=120, description="Identificador del lote"),
) -> dict[str, Any]:
    """Registra un archivo de pagos (radicado, fecha, monto, forma): todo o nada, una vez."""
    _offer(request, codigo)
    path, shown = save_upload(archivo)
    try:
        result = import_payments(request.app.state.engine, codigo, path, lote, current(request).who)
    except InputRejected as exc:
        raise rejected_file(exc, shown, str(path.parent), "El archivo") from None
    except OfferError as exc:
        raise refused(exc) from None
    finally:
        shutil.rmtree(path.parent, ignore_errors=True)
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
    _offer(request, codigo)
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


@route(router, "GET", "/ofertas/{codigo}/tenencias/{radicado}", "api.tenencia")
def holding(codigo: str, radicado: str, request: Request) -> dict[str, Any]:
    """Una adjudicación después de la venta: lo vendido, sus eventos y si es ineficaz."""
    _offer(request, codigo)
    try:
        view = holding_view(request.app.state.engine, codigo, radicado)
    except OfferError as exc:
        raise NotFound(str(exc)) from None
    return {
        "radicado": view.radicado,
        "adjudicadas": view.awarded,
        "fecha_enajenacion": plain(view.sale_date),
        "pagadas": view.paid,
        "resueltas": view.resolved,
        "en_registro": view.registered,
        "ineficaz": view.ineffective is not None,
        "cita_ineficacia": view.citation,
        "eventos": [
            {
                "tipo": e.kind,
                "que": e.label,
                "fecha": e.day.isoformat(),
                "acciones": e.shares,
                "contraprestacion": e.consideration,
                "detalle": e.detail,
                "quien": e.who,
            }
            for e in view.events
        ],
    }


class EventData(Body):
    tipo: Literal["venta", "dacion_en_pago", "beneficiario_real", "subrogacion"] = Field(
        description=", ".join(f"{k}: {v}" for k, v in EVENT_KINDS.items())
    )
    fecha: Day
    acciones: int = Field(ge=1, le=10**13)
    contraprestacion: Centavos | None = Field(None, description="Centavos por acción obtenidos")
    detalle: str = Field(min_length=1, max_length=2000)


@route(
    router,
    "POST",
    "/ofertas/{codigo}/tenencias/{radicado}/eventos",
    "api.tenencia.evento",
    status_code=201,
)
def holding_event(codigo: str, radicado: str, data: EventData, request: Request) -> dict[str, Any]:
    """Registra un evento sobre las acciones; dentro de los dos años abre un caso de multa."""
    _offer(request, codigo)
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
    return {
        "evento": case.event_id,
        "tramo": case.band.reason,
        "multa": None
        if fine is None
        else {
            "base_por_accion": fine.base.centavos,
            "base": fine.base.chosen.key,
            "porcentaje": fine.percent,
            "monto": fine.centavos,
        },
    }


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
def ineffective(
    codigo: str, radicado: str, data: IneffectiveData, request: Request
) -> dict[str, str]:
    """Declara ineficaz una adquisición contraria a las reglas del beneficiario real."""
    _offer(request, codigo)
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
    return {"detalle": f"Adquisición {radicado} declarada ineficaz."}


class PaymentData(Body):
    fecha: Day
    monto: Centavos


class FineData(Body):
    programa: str = Field(max_length=80)
    fecha_referencia: Day = Field(description="Enajenación o adjudicación, según el programa")
    fecha_incumplimiento: Day
    acciones: int = Field(ge=1, le=10**13)
    hasta: Day = Field(description="Fecha del estado de cuenta")
    precio_adquisicion: Centavos | None = None
    contraprestacion: Centavos | None = None
    precio_segunda_etapa: Centavos | None = None
    pagos: list[PaymentData] = Field(default_factory=list, max_length=500)


@route(
    router,
    "POST",
    "/multas/estado.{formato}",
    "api.multa.estado",
    responses=file_responses("application/json", "text/csv", "application/pdf"),
)
def fine_statement(
    formato: Literal["json", "csv", "pdf"], data: FineData, request: Request
) -> Response:
    """La multa y su estado de cuenta paso a paso (base, tramo, ajuste, intereses, pagos)."""
    program = program_or_404(data.programa)
    values: dict[FineBaseKey, int | None] = {
        "precio_adquisicion": data.precio_adquisicion,
        "contraprestacion": data.contraprestacion,
        "precio_segunda_etapa": data.precio_segunda_etapa,
    }
    try:
        done = compute_fine(
            program,
            data.fecha_referencia,
            data.fecha_incumplimiento,
            data.acciones,
            data.hasta,
            values,
            [Payment(p.fecha, p.monto) for p in data.pagos],
        )
    except (FineError, MissingSeriesValue) as exc:
        raise Unprocessable(str(exc)) from None
    statement = done.statement
    if statement is None:
        raise Unprocessable(f"No hay multa: {done.band.reason}")
    if formato == "csv":
        return Response(
            fine_statement_csv(statement, done.terms), media_type="text/csv; charset=utf-8"
        )
    if formato == "pdf":
        return Response(fine_statement_pdf(statement, done.terms), media_type="application/pdf")
    return Response(
        _json({"estado_de_cuenta": statement_text(statement)}),
        media_type="application/json",
    )


def _json(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False)


def _rate(text: str) -> Decimal:
    try:
        return Decimal(text) / 100
    except InvalidOperation:  # the pattern already refuses it; kept for the type checker
        raise Unprocessable(f"'{text}' no es un porcentaje.") from None


class CreditLineData(Body):
    programa: str = Field(max_length=80)
    parametros: dict[str, str | int] = Field(
        default_factory=dict, description="Parámetros de la oferta (acciones_ofrecidas…)"
    )
    entidad: str = Field(min_length=1, max_length=200)
    monto_disponible: Centavos
    plazo_meses: int = Field(ge=1, le=600)
    gracia_meses: int = Field(ge=0, le=600)
    tasa_ea: Percent
    fecha_otorgamiento: Day
    capitalizar_gracia: bool = True
    garantia: Literal["precio_fijo", "otro_valor", "no_admitidas"] = "precio_fijo"


@route(router, "POST", "/credito/verificacion", "api.credito.verificar")
def check_line(data: CreditLineData, request: Request) -> dict[str, Any]:
    """Verifica una línea de crédito contra la Ley 226 art. 11 y el programa."""
    program = program_or_404(data.programa)
    try:
        line = CreditLine(
            data.entidad,
            data.monto_disponible,
            data.plazo_meses,
            data.gracia_meses,
            _rate(data.tasa_ea),
            data.fecha_otorgamiento,
            data.capitalizar_gracia,
            data.garantia,
        )
        findings = check_offer_credit_line(program, line, data.parametros)
    except (CreditError, OfferParameterError, MissingSeriesValue) as exc:
        raise Unprocessable(str(exc)) from None
    return {
        "cumple": all(f.ok for f in findings),
        "condiciones": [
            {
                "regla": f.rule,
                "cita": f.citation,
                "cumple": f.ok,
                "texto": f.text,
                "sujeto": f.subject,
            }
            for f in findings
        ],
    }


class LoanData(Body):
    monto: Centavos
    tasa_ea: Percent
    plazo_meses: int = Field(ge=1, le=600)
    gracia_meses: int = Field(ge=0, le=600)
    desembolso: Day
    capitalizar_gracia: bool = True
    acciones: int | None = Field(None, ge=1, le=10**13, description="Acciones en garantía")
    precio: Centavos | None = Field(None, description="Precio fijo por acción (garantía)")


@route(
    router,
    "POST",
    "/credito/cuadro.{formato}",
    "api.credito.cuadro",
    responses=file_responses("application/json", "text/csv", "application/pdf"),
)
def loan_schedule(
    formato: Literal["json", "csv", "pdf"], data: LoanData, request: Request
) -> Response:
    """Cuadro de amortización y, con acciones y precio, la cobertura de la garantía."""
    try:
        schedule = amortization_schedule(
            data.monto,
            _rate(data.tasa_ea),
            data.plazo_meses,
            data.gracia_meses,
            data.capitalizar_gracia,
            data.desembolso,
        )
    except CreditError as exc:
        raise Unprocessable(str(exc)) from None
    if formato == "csv":
        return Response(schedule_csv_with_totals(schedule), media_type="text/csv; charset=utf-8")
    if formato == "pdf":
        return Response(schedule_pdf(schedule), media_type="application/pdf")
    coverage = None
    if data.acciones is not None and data.precio is not None:
        coverage = collateral_coverage(data.acciones, data.precio, data.monto).text
    return Response(
        _json({"notas": list(schedule.notes()), "cobertura": coverage}),
        media_type="application/json",
    )
