"""A fine and its statement over HTTP, step by step, in JSON, CSV or PDF.

The same computation as the command line (``compliance.fine_case``): base, band,
adjustment, interest and payments, for the office and the auditors. Money is in centavos.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import Field
from sqlalchemy import Engine

from democratiza.compliance.fines.account import Payment
from democratiza.compliance.fines.case import compute_fine
from democratiza.compliance.fines.terms import FineError
from democratiza.compliance.fines.text import statement_text
from democratiza.compliance.official_series import max_rate_in_force
from democratiza.compliance.series import MaxLegalRate, MissingSeriesValue
from democratiza.programs.schema import FineBaseKey
from democratiza.reports.fine_statement import fine_statement_csv
from democratiza.reports.fine_statement_pdf import fine_statement_pdf
from democratiza.tables.format import MAX_SHARES
from democratiza.web.api.after_sale_answers import FineStatementText
from democratiza.web.api.bodies import Body, Centavos, Day
from democratiza.web.api.catalog import program_or_404
from democratiza.web.api.formats import Statement, in_format, json_text, statement_route
from democratiza.web.errors import ERROR_RESPONSES, Unprocessable
from democratiza.web.security.access import route


def loaded_rates(engine: Engine) -> MaxLegalRate:
    """The maximum legal rate of the series the office loaded (``max_rate_in_force``), that
    a fine's default interest runs at: the one reading of them for the fines page and the
    API."""
    with engine.connect() as conn:
        return max_rate_in_force(conn)


router = APIRouter(prefix="/api", tags=["después de la venta"], responses=ERROR_RESPONSES)


class PaymentData(Body):
    fecha: Day
    monto: Centavos


class FineData(Body):
    programa: str = Field(max_length=80)
    fecha_referencia: Day = Field(description="Enajenación o adjudicación, según el programa")
    fecha_incumplimiento: Day
    acciones: int = Field(ge=1, le=MAX_SHARES)
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
    **statement_route(FineStatementText),
)
def fine_statement(formato: Statement, data: FineData, request: Request) -> Response:
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
            rates=loaded_rates(request.app.state.engine),
        )
    except (FineError, MissingSeriesValue) as exc:
        raise Unprocessable(str(exc)) from None
    statement = done.statement
    if statement is None:
        raise Unprocessable(f"No hay multa: {done.band.reason}")
    return in_format(
        formato,
        {
            "json": lambda: json_text({"estado_de_cuenta": statement_text(statement)}),
            "csv": lambda: fine_statement_csv(statement, done.terms),
            "pdf": lambda: fine_statement_pdf(statement, done.terms),
        },
    )
