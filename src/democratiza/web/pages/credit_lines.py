"""An offer's credit lines on its page: the lines registered, every condition checked, and
the office's form to register one (Ley 226 art. 11 num. 3; GEB arts. 6.4 and 7).

Why here and not a page of its own: the lines are what the opening waits for, so the clerk
sees them next to the button that opens the offer; the opening itself refuses, with the
failing conditions, while they fall short (``compliance.credit.gate.open_offer``).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy import Connection
from starlette.concurrency import run_in_threadpool

from democratiza.compliance.credit.gate import REGISTRABLE, credit_verdict, register_line
from democratiza.compliance.credit.lines import CreditError, CreditLine, ShareCollateral
from democratiza.money import MoneyError, decimal_percent, parse_percent, parse_pesos, pesos
from democratiza.offers.lifecycle import OfferError, StoredOffer
from democratiza.rules.explain import cite
from democratiza.web.api import views
from democratiza.web.errors import Unprocessable, refused
from democratiza.web.pages.forms import back, form_fields
from democratiza.web.security.access import current, route

router = APIRouter(include_in_schema=False)
COLLATERAL: dict[str, ShareCollateral] = {
    "precio_fijo": "precio_fijo",
    "otro_valor": "otro_valor",
    "no_admitidas": "no_admitidas",
}
GARANTIAS = [
    ("precio_fijo", "Admite las acciones como garantía, al precio fijo"),
    ("otro_valor", "Admite las acciones, valoradas de otra forma"),
    ("no_admitidas", "No admite las acciones como garantía"),
]


def credit_context(conn: Connection, stored: StoredOffer) -> dict[str, Any]:
    """What the offer's page shows of its credit lines (an unreadable check: its reason)."""
    try:
        verdict = credit_verdict(conn, stored)
    except OfferError as exc:
        return {
            "lineas": [],
            "condiciones": [],
            "permite_abrir": False,
            "problema": str(exc),
            **_program_terms(stored),
        }
    return {
        "lineas": [
            {
                "entidad": r.line.lender,
                "disponible": pesos(r.line.available_centavos),
                "plazo": f"{r.line.term_months} meses",
                "gracia": f"{r.line.grace_months} meses",
                "tasa": f"{decimal_percent(r.line.rate_ea.scaleb(2))} EA",
                "otorgamiento": f"{r.line.granted:%Y-%m-%d}",
            }
            for r in verdict.lines
        ],
        "condiciones": [(f.ok, str(f)) for f in verdict.findings] if verdict.lines else [],
        "permite_abrir": verdict.ok,
        "valor": pesos(verdict.offer_value),
        "registrable": stored.state in REGISTRABLE,
        "garantias": GARANTIAS,
        "problema": None,
        **_program_terms(stored),
    }


def _program_terms(stored: StoredOffer) -> dict[str, Any]:
    """The program file's minimum term and grace (the form starts from them) and the article
    of its percentage of financing; none where the program has no credit lines."""
    rules = stored.program.credit_lines
    if rules is None:
        return {"plazo_minimo": "", "gracia_minima": "", "cita": ""}
    return {
        "plazo_minimo": rules.minimum_term_months.value,
        "gracia_minima": rules.minimum_grace_months.value,
        "cita": cite(stored.program, rules.minimum_financing_percent.citation),
    }


def _line(form: dict[str, str]) -> CreditLine:
    """The line as typed in the form; a field that cannot be read names itself (422)."""

    def number(name: str, what: str) -> int:
        text = form.get(name, "").strip()
        if not text.isdigit():
            raise Unprocessable(f"{what}: escriba un número entero de meses ('{text}').")
        return int(text)

    try:
        available = parse_pesos(form.get("monto_disponible", ""))
        rate = parse_percent(form.get("tasa_ea", ""))
    except MoneyError as exc:
        raise Unprocessable(f"{exc}.") from None
    try:
        granted = date.fromisoformat(form.get("fecha_otorgamiento", "").strip())
    except ValueError:
        raise Unprocessable("Fecha de otorgamiento: escríbala como AAAA-MM-DD.") from None
    collateral = COLLATERAL.get(form.get("garantia", ""))
    if collateral is None:
        raise Unprocessable("Elija cómo admite la línea las acciones como garantía.")
    try:
        return CreditLine(
            form.get("entidad", "").strip()[:200],
            available,
            number("plazo_meses", "Plazo total"),
            number("gracia_meses", "Gracia a capital"),
            rate,
            granted,
            form.get("capitalizar_gracia") == "si",
            collateral,
        )
    except CreditError as exc:
        raise Unprocessable(str(exc)) from None


@route(router, "POST", "/oficina/ofertas/{codigo}/lineas-credito", "pag.credito.registrar")
async def register(codigo: str, request: Request) -> Response:
    form = await form_fields(request)
    return await run_in_threadpool(_register, request, codigo, form)


def _register(request: Request, codigo: str, form: dict[str, str]) -> Response:
    line = _line(form)
    try:
        with request.app.state.engine.begin() as conn:
            register_line(conn, views.offer_or_404(conn, codigo), line, current(request).who)
    except OfferError as exc:
        raise refused(exc) from None
    except CreditError as exc:
        raise Unprocessable(str(exc)) from None
    return back(f"/oficina/ofertas/{codigo}#lineas-credito")
