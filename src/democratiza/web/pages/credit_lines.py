"""The office's credit-line forms on the offer's page: register a line, correct or remove one,
and load the official interés bancario corriente series (Ley 226 art. 11 num. 3; GEB arts.
6.4 and 7).

Why on the offer's page: the lines are what the opening waits for, so the clerk sees them
next to the button that opens the offer; the opening itself refuses, with the failing
conditions, while they fall short (``compliance.credit.gate.open_offer``). A refused form is
shown again on that page as it was typed, every error under its field (``credit_view``).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Request, UploadFile
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from democratiza.compliance.credit.gate import register_line
from democratiza.compliance.credit.line_changes import correct_line, remove_line
from democratiza.compliance.credit.lines import CreditError, CreditLine
from democratiza.compliance.official_series import IBC, save_official_rates
from democratiza.compliance.series import SeriesFileError
from democratiza.offers.lifecycle import OfferError
from democratiza.web.api import views
from democratiza.web.api.uploads import uploaded
from democratiza.web.errors import refused
from democratiza.web.pages.credit_view import LINE_FIELDS, read_line
from democratiza.web.pages.dashboard import offer_page
from democratiza.web.pages.forms import (
    FieldErrors,
    FormState,
    Reason,
    back,
    field_errors,
    form_fields,
)
from democratiza.web.security.access import current, route

router = APIRouter(include_in_schema=False)
SECTION = "#lineas-credito"


@route(router, "POST", "/oficina/ofertas/{codigo}/lineas-credito", "pag.credito.registrar")
async def register(codigo: str, request: Request) -> Response:
    form = await form_fields(request)
    return await run_in_threadpool(_save, request, codigo, form, None)


@route(router, "POST", "/oficina/ofertas/{codigo}/lineas-credito/{numero}", "pag.credito.corregir")
async def correct(codigo: str, numero: int, request: Request) -> Response:
    form = await form_fields(request)
    return await run_in_threadpool(_save, request, codigo, form, numero)


def _save(request: Request, codigo: str, form: dict[str, str], number: int | None) -> Response:
    """Register the line typed (``number`` None) or correct line ``number`` with it."""
    line, problems = read_line(form)
    typed = {k: v for k, v in form.items() if k in LINE_FIELDS}
    if number is not None:
        typed["numero"] = str(number)
    if line is None:
        return _refused(request, codigo, typed, field_errors(problems, LINE_FIELDS))
    try:
        _store(request, codigo, line, number)
    except CreditError as exc:
        return _refused(request, codigo, typed, FieldErrors(general=[str(exc)]))
    return back(f"/oficina/ofertas/{codigo}{SECTION}")


def _store(request: Request, codigo: str, line: CreditLine, number: int | None) -> None:
    who = current(request).who
    try:
        with request.app.state.engine.begin() as conn:
            stored = views.offer_or_404(conn, codigo)
            if number is None:
                register_line(conn, stored, line, who)
            else:
                correct_line(conn, stored, number, line, who)
    except OfferError as exc:
        raise refused(exc) from None


def _refused(request: Request, codigo: str, typed: dict[str, str], errors: FieldErrors) -> Response:
    return offer_page(request, codigo, {"linea": FormState(typed, errors)}, 422)


@route(
    router,
    "POST",
    "/oficina/ofertas/{codigo}/lineas-credito/{numero}/retiro",
    "pag.credito.retirar",
)
def remove(codigo: str, numero: int, request: Request, motivo: Reason) -> Response:
    try:
        with request.app.state.engine.begin() as conn:
            stored = views.offer_or_404(conn, codigo)
            remove_line(conn, stored, numero, current(request).who, motivo)
    except OfferError as exc:
        raise refused(exc) from None
    return back(f"/oficina/ofertas/{codigo}{SECTION}")


@route(router, "POST", "/oficina/ofertas/{codigo}/serie-ibc", "pag.credito.serie")
def load_series(codigo: str, request: Request, archivo: Annotated[UploadFile, File()]) -> Response:
    """The official interés bancario corriente series, kept for every later check."""
    with request.app.state.engine.connect() as conn:
        views.offer_or_404(conn, codigo)
    name = archivo.filename or "serie.csv"
    with uploaded(archivo, "El archivo de la serie") as path:
        raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        problems = ["el archivo no está en UTF-8; guárdelo como CSV UTF-8"]
        return _series_refused(request, codigo, problems)
    try:
        with request.app.state.engine.begin() as conn:
            save_official_rates(conn, IBC, text, name, current(request).who)
    except SeriesFileError as exc:
        return _series_refused(request, codigo, [str(p) for p in exc.problems[:50]])
    return back(f"/oficina/ofertas/{codigo}{SECTION}")


def _series_refused(request: Request, codigo: str, problems: list[str]) -> Response:
    errors = FieldErrors(by_field={"archivo": problems})
    return offer_page(request, codigo, {"serie": FormState({}, errors)}, 422)
