"""The fines page: the office and the auditors compute a fine's statement, or its PDF; the
statement opens with the balance due, and partial payments are typed in the form.

The same computation as the API and the command line (``compliance.fine_case``); the
amounts are typed as people write them (``money.parse_pesos``) and read exactly, as
centavos. A refused form is shown again as it was typed, each error under its field.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from democratiza.compliance.fines.case import compute_fine
from democratiza.compliance.fines.terms import FineError
from democratiza.compliance.series import MissingSeriesValue
from democratiza.money import MoneyError, parse_pesos, parse_shares
from democratiza.programs.schema import FineBaseKey
from democratiza.reports.fine_statement_pdf import fine_statement_pdf
from democratiza.web.api import catalog
from democratiza.web.api.fines import loaded_rates
from democratiza.web.errors import ErrorItem
from democratiza.web.pages.fine_view import read_payments, statement_view
from democratiza.web.pages.forms import FieldErrors, field_errors, form_fields
from democratiza.web.pages.templating import render
from democratiza.web.security.access import route

router = APIRouter(include_in_schema=False)
DAYS = ("fecha_referencia", "fecha_incumplimiento", "hasta")
AMOUNTS: tuple[FineBaseKey, ...] = (
    "precio_adquisicion",
    "contraprestacion",
    "precio_segunda_etapa",
)
FIELDS = ("programa", *DAYS, "acciones", *AMOUNTS, "pagos")


def _page(
    request: Request,
    form: dict[str, str],
    errors: FieldErrors,
    shown: dict[str, Any] | None,
    status: int,
) -> Response:
    """The form as typed; once computed, the statement (``fine_view``) or why there is no
    fine (``sin_multa``)."""
    context = {
        "programas": [(p.id, p.nombre) for p in catalog.all_programs()],
        "datos": form,
        "estado": shown,
        **errors.context(),
    }
    return render(request, "multas.html", context, status)


@route(router, "GET", "/oficina/multas", "pag.multas")
def fines_page(request: Request) -> Response:
    return _page(request, {}, FieldErrors(), None, 200)


def _day(form: dict[str, str], name: str, problems: list[ErrorItem]) -> date | None:
    try:
        return date.fromisoformat(form.get(name, "").strip())
    except ValueError:
        problems.append(ErrorItem(columna=name, mensaje="se espera una fecha AAAA-MM-DD"))
        return None


def _shares(form: dict[str, str], problems: list[ErrorItem]) -> int | None:
    """Shares as typed, with or without thousands dots (``money.parse_shares``), as pesos."""
    try:
        shares = parse_shares(form.get("acciones", ""))
    except MoneyError as exc:
        problems.append(ErrorItem(columna="acciones", mensaje=str(exc)))
        return None
    if shares > 0:
        return shares
    message = "se espera un número entero de acciones mayor que cero"
    problems.append(ErrorItem(columna="acciones", mensaje=message))
    return None


def _amount(form: dict[str, str], name: str, problems: list[ErrorItem]) -> int | None:
    text = form.get(name, "").strip()
    try:
        cents = parse_pesos(text) if text else None
    except MoneyError as exc:
        problems.append(ErrorItem(columna=name, mensaje=str(exc)))
        return None
    if cents is not None and cents < 0:
        problems.append(ErrorItem(columna=name, mensaje="el monto no puede ser negativo"))
        return None
    return cents


@route(router, "POST", "/oficina/multas", "pag.multa.calcular")
async def fine_compute(request: Request) -> Response:
    """The fine and its statement, on the page; or its PDF."""
    form = await form_fields(request)
    problems: list[ErrorItem] = []
    reference, breach, until = (_day(form, name, problems) for name in DAYS)
    shares = _shares(form, problems)
    payments, unread = read_payments(form.get("pagos", ""))
    problems += unread
    values: dict[FineBaseKey, int | None] = {k: _amount(form, k, problems) for k in AMOUNTS}
    program_id = form.get("programa", "")
    if program_id not in {p.id for p in catalog.all_programs()}:
        problems.append(ErrorItem(columna="programa", mensaje="elija uno de los programas"))
    if problems or reference is None or breach is None or until is None or shares is None:
        return _page(request, form, field_errors(problems, FIELDS), None, 422)
    program = catalog.program_or_404(program_id)
    rates = loaded_rates(request.app.state.engine)  # the series the office loaded
    try:
        done = compute_fine(
            program, reference, breach, shares, until, values, payments, rates=rates
        )
    except FineError as exc:  # a payment outside the statement's period, out of order…
        errors = field_errors([ErrorItem(columna="pagos", mensaje=str(exc))], FIELDS)
        if not payments:
            errors = FieldErrors(general=[str(exc)])
        return _page(request, form, errors, None, 422)
    except MissingSeriesValue as exc:
        return _page(request, form, FieldErrors(general=[str(exc)]), None, 422)
    statement = done.statement
    if statement is not None and form.get("formato") == "pdf":
        return Response(fine_statement_pdf(statement, done.terms), media_type="application/pdf")
    if statement is None:
        return _page(request, form, FieldErrors(), {"sin_multa": done.band.reason}, 200)
    return _page(request, form, FieldErrors(), statement_view(statement), 200)
