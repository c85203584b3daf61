"""Credit lines over HTTP: an offer's lines, checked against Ley 226 art. 11, and a loan's schedule.

The same services as the command line (``compliance.credit``): the office registers an
offer's credit lines, which the opening checks (``gate``); the office and the auditors read
them with every condition, check a proposed line against the law and a program, or draw a
loan's amortisation schedule (JSON, CSV or PDF) with its collateral's coverage.
Money is in centavos; rates are percentages written as text ("18.5"), never floats.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Annotated, Literal

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import Field
from sqlalchemy import Connection

from democratiza.compliance.credit.checks import Finding, check_offer_credit_line
from democratiza.compliance.credit.collateral import collateral_coverage
from democratiza.compliance.credit.gate import (
    credit_verdict,
    offer_value,
    refusal,
    register_line,
)
from democratiza.compliance.credit.gate import offer_lines as registered_lines
from democratiza.compliance.credit.lines import CreditError, CreditLine, LineField, line_problems
from democratiza.compliance.credit.schedule import amortization_schedule
from democratiza.compliance.series import MissingSeriesValue
from democratiza.money import MoneyError, decimal_percent, parse_percent
from democratiza.offers.lifecycle import OfferError, StoredOffer
from democratiza.programs.parameters import OfferParameterError
from democratiza.reports.loan_schedule import schedule_csv_with_totals, schedule_pdf
from democratiza.tables.format import MAX_SHARES
from democratiza.web.api.after_sale_answers import (
    Condition,
    CreditCheck,
    CreditLineRow,
    LoanNotes,
    OfferCredit,
)
from democratiza.web.api.bodies import Body, Centavos, Day
from democratiza.web.api.catalog import program_or_404
from democratiza.web.api.formats import Statement, in_format, json_text, statement_route
from democratiza.web.api.views import offer_or_404
from democratiza.web.errors import (
    ERROR_RESPONSES,
    INVALID_REQUEST,
    ErrorItem,
    Unprocessable,
    refused,
)
from democratiza.web.security.access import current, route

router = APIRouter(prefix="/api", tags=["después de la venta"], responses=ERROR_RESPONSES)
Percent = Annotated[
    str,
    Field(
        pattern=r"^\d{1,3}([.,]\d{1,6})?( ?%)?$",
        description="Porcentaje, p. ej. 18.5 o 18,5 %",
    ),
]


def _rate(text: str) -> Decimal:
    """The one reading of a percentage a person writes (``money.parse_percent``); one that
    cannot be read is a 422 under ``tasa_ea``."""
    try:
        return parse_percent(text)
    except MoneyError as exc:
        raise Unprocessable(
            INVALID_REQUEST, [ErrorItem(columna="tasa_ea", mensaje=str(exc))]
        ) from None


# The field of a request (and of the credit form) of each part of a line the domain checks
# (``line_problems``).
LINE_FIELD: dict[LineField, str] = {
    "lender": "entidad",
    "available_centavos": "monto_disponible",
    "term_months": "plazo_meses",
    "grace_months": "gracia_meses",
    "rate_ea": "tasa_ea",
}


class LineData(Body):
    entidad: str = Field(min_length=1, max_length=200)
    monto_disponible: Centavos
    plazo_meses: int = Field(ge=1, le=600)
    gracia_meses: int = Field(ge=0, le=600)
    tasa_ea: Percent
    fecha_otorgamiento: Day
    capitalizar_gracia: bool = True
    garantia: Literal["precio_fijo", "otro_valor", "no_admitidas"] = "precio_fijo"

    def line(self) -> CreditLine:
        """The line as sent; a line that cannot be (a grace as long as the term) is a 422
        with one row per field, each in the words ``CreditLine`` refuses with."""
        rate = _rate(self.tasa_ea)
        problems = line_problems(
            self.entidad, self.monto_disponible, self.plazo_meses, self.gracia_meses, rate
        )
        if problems:
            items = [ErrorItem(columna=LINE_FIELD[part], mensaje=m) for part, m in problems]
            raise Unprocessable(INVALID_REQUEST, items)
        return CreditLine(
            self.entidad,
            self.monto_disponible,
            self.plazo_meses,
            self.gracia_meses,
            rate,
            self.fecha_otorgamiento,
            self.capitalizar_gracia,
            self.garantia,
        )


class CreditLineData(LineData):
    programa: str = Field(max_length=80)
    parametros: dict[str, str | int] = Field(
        default_factory=dict, description="Parámetros de la oferta (acciones_ofrecidas…)"
    )


def conditions(findings: Sequence[Finding]) -> list[Condition]:
    """Each condition checked: its rule, article, verdict and arithmetic."""
    return [
        Condition(regla=f.rule, cita=f.citation, cumple=f.ok, texto=f.text, sujeto=f.subject)
        for f in findings
    ]


@route(router, "POST", "/credito/verificacion", "api.credito.verificar")
def check_line(data: CreditLineData, request: Request) -> CreditCheck:
    """Verifica una línea de crédito contra la Ley 226 art. 11 y el programa."""
    program = program_or_404(data.programa)
    line = data.line()
    try:
        findings = check_offer_credit_line(program, line, data.parametros)
    except (CreditError, OfferParameterError, MissingSeriesValue) as exc:
        raise Unprocessable(str(exc)) from None
    return CreditCheck(cumple=all(f.ok for f in findings), condiciones=conditions(findings))


def offer_credit(conn: Connection, stored: StoredOffer) -> OfferCredit:
    """The offer's registered lines and whether they let it open (Ley 226 art. 11 num. 3).

    Lines that cannot be checked (a grant date without a certified rate) are listed all the
    same, with the reason and what to do in ``motivo`` and no conditions: they can still be
    read, and corrected or removed from the offer's page."""
    try:
        verdict = credit_verdict(conn, stored)
        lines, findings, ok = verdict.lines, verdict.findings, verdict.ok
        reason = None if ok else refusal(stored, verdict)
        value = verdict.offer_value
    except OfferError as exc:
        lines, findings, ok, reason = registered_lines(conn, stored), (), False, str(exc)
        value = offer_value(stored)
    return OfferCredit(
        oferta=stored.code,
        valor_acciones_ofrecidas=value,
        permite_abrir=ok,
        motivo=reason,
        lineas=[
            CreditLineRow(
                id=r.id,
                entidad=r.line.lender,
                monto_disponible=r.line.available_centavos,
                plazo_meses=r.line.term_months,
                gracia_meses=r.line.grace_months,
                tasa_ea=decimal_percent(r.line.rate_ea.scaleb(2)),
                fecha_otorgamiento=r.line.granted.isoformat(),
                capitalizar_gracia=r.line.capitalise_grace_interest,
                garantia=r.line.share_collateral,
                quien=r.who,
                registrada_en=r.registered.isoformat(),
            )
            for r in lines
        ],
        condiciones=conditions(findings),
    )


@route(router, "GET", "/ofertas/{codigo}/lineas-credito", "api.credito.lineas")
def offer_lines(codigo: str, request: Request) -> OfferCredit:
    """Las líneas de crédito de la oferta y si permiten abrirla (Ley 226 art. 11 num. 3)."""
    with request.app.state.engine.connect() as conn:
        return offer_credit(conn, offer_or_404(conn, codigo))


@route(router, "POST", "/ofertas/{codigo}/lineas-credito", "api.credito.registrar", status_code=201)
def register(codigo: str, data: LineData, request: Request) -> OfferCredit:
    """Registra una línea de crédito de la oferta; sus condiciones se verifican al abrirla."""
    line = data.line()
    try:
        with request.app.state.engine.begin() as conn:
            stored = offer_or_404(conn, codigo)
            register_line(conn, stored, line, current(request).who)
    except OfferError as exc:
        raise refused(exc) from None
    except CreditError as exc:
        raise Unprocessable(str(exc)) from None
    with request.app.state.engine.connect() as conn:
        return offer_credit(conn, stored)


class LoanData(Body):
    monto: Centavos
    tasa_ea: Percent
    plazo_meses: int = Field(ge=1, le=600)
    gracia_meses: int = Field(ge=0, le=600)
    desembolso: Day
    capitalizar_gracia: bool = True
    acciones: int | None = Field(None, ge=1, le=MAX_SHARES, description="Acciones en garantía")
    precio: Centavos | None = Field(None, description="Precio fijo por acción (garantía)")


@route(
    router, "POST", "/credito/cuadro.{formato}", "api.credito.cuadro", **statement_route(LoanNotes)
)
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
