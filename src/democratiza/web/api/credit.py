"""Credit lines over HTTP: checked against Ley 226 art. 11, and a loan's schedule.

The same services as the command line (``compliance.credit``): the office and the
auditors check a credit line offered to the acquirers against the law and the program,
or draw a loan's amortisation schedule (JSON, CSV or PDF) with its collateral's coverage.
Money is in centavos; rates are percentages written as text ("18.5"), never floats.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import Field

from democratiza.compliance.credit.checks import check_offer_credit_line
from democratiza.compliance.credit.collateral import collateral_coverage
from democratiza.compliance.credit.lines import CreditError, CreditLine
from democratiza.compliance.credit.schedule import amortization_schedule
from democratiza.compliance.series import MissingSeriesValue
from democratiza.programs.parameters import OfferParameterError
from democratiza.reports.loan_schedule import schedule_csv_with_totals, schedule_pdf
from democratiza.web.api.bodies import Body, Centavos, Day
from democratiza.web.api.catalog import program_or_404
from democratiza.web.api.formats import STATEMENT_FILES, Statement, in_format, json_text
from democratiza.web.errors import ERROR_RESPONSES, Unprocessable
from democratiza.web.security.access import route

router = APIRouter(prefix="/api", tags=["después de la venta"], responses=ERROR_RESPONSES)
Percent = Annotated[
    str, Field(pattern=r"^\d{1,3}(\.\d{1,6})?$", description="Porcentaje, p. ej. 18.5")
]


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


@route(router, "POST", "/credito/cuadro.{formato}", "api.credito.cuadro", responses=STATEMENT_FILES)
def loan_schedule(formato: Statement, data: LoanData, request: Request) -> Response:
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

    def notes() -> str:
        coverage = None
        if data.acciones is not None and data.precio is not None:
            coverage = collateral_coverage(data.acciones, data.precio, data.monto).text
        return json_text({"notas": list(schedule.notes()), "cobertura": coverage})

    return in_format(
        formato,
        {
            "json": notes,
            "csv": lambda: schedule_csv_with_totals(schedule),
            "pdf": lambda: schedule_pdf(schedule),
        },
    )
