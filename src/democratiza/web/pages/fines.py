"""The fines page: the office and the auditors compute a fine's statement, or its PDF.

The same computation as the API and the command line (``compliance.fine_case``); the
amounts are typed in pesos and read exactly, as centavos.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal, InvalidOperation

from fastapi import APIRouter, Request
from fastapi.responses import Response

from democratiza.compliance.fines.case import compute_fine
from democratiza.compliance.fines.terms import FineError
from democratiza.compliance.fines.text import statement_text
from democratiza.compliance.series import MissingSeriesValue
from democratiza.money import to_centavos
from democratiza.programs.loader import bundled_program_ids
from democratiza.reports.fine_statement_pdf import fine_statement_pdf
from democratiza.web.api import catalog
from democratiza.web.errors import Unprocessable
from democratiza.web.pages.forms import form_fields
from democratiza.web.pages.templating import render
from democratiza.web.security.access import route

router = APIRouter(include_in_schema=False)


@route(router, "GET", "/oficina/multas", "pag.multas")
def fines_page(request: Request) -> Response:
    return render(request, "multas.html", {"programas": bundled_program_ids(), "datos": {}})


def _pesos(form: dict[str, str], name: str) -> int | None:
    text = form.get(name, "").strip()
    if not text:
        return None
    try:
        return to_centavos(Decimal(text))
    except (InvalidOperation, ValueError):
        raise Unprocessable(f"{name}: '{text}' no es un monto en pesos.") from None


def _day(form: dict[str, str], name: str) -> date:
    try:
        return date.fromisoformat(form.get(name, "").strip())
    except ValueError:
        raise Unprocessable(f"{name}: se espera una fecha AAAA-MM-DD.") from None


@route(router, "POST", "/oficina/multas", "pag.multa.calcular")
async def fine_compute(request: Request) -> Response:
    """The fine and its statement, on the page; or its PDF."""
    form = await form_fields(request)
    program = catalog.program_or_404(form.get("programa", ""))
    try:
        shares = int(form.get("acciones", ""))
    except ValueError:
        raise Unprocessable("acciones: se espera un número entero.") from None
    try:
        done = compute_fine(
            program,
            _day(form, "fecha_referencia"),
            _day(form, "fecha_incumplimiento"),
            shares,
            _day(form, "hasta"),
            {
                "precio_adquisicion": _pesos(form, "precio_adquisicion"),
                "contraprestacion": _pesos(form, "contraprestacion"),
                "precio_segunda_etapa": _pesos(form, "precio_segunda_etapa"),
            },
        )
    except (FineError, MissingSeriesValue) as exc:
        raise Unprocessable(str(exc)) from None
    statement = done.statement
    if statement is not None and form.get("formato") == "pdf":
        return Response(fine_statement_pdf(statement, done.terms), media_type="application/pdf")
    text = statement_text(statement) if statement is not None else done.band.reason
    return render(
        request,
        "multas.html",
        {"programas": bundled_program_ids(), "datos": form, "estado": text},
    )
