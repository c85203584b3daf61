"""What the offer's page shows of its credit lines, and the line's form read field by field.

Why the lines are listed even when they cannot be checked: a line granted on a date the
interés bancario corriente series does not cover stopped the check, and the page then
showed neither the lines nor the form, so nothing could be corrected. Now the lines, each
with its corrections, stay; the reason names what to do (load the official series, here or
with the command line) and the form to load it is beside them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection

from democratiza.compliance.credit.gate import (
    REGISTRABLE,
    RegisteredLine,
    credit_verdict,
    offer_lines,
    offer_value,
)
from democratiza.compliance.credit.lines import CreditLine, ShareCollateral, line_problems
from democratiza.compliance.official_series import IBC, official_rates
from democratiza.compliance.series import SeriesFileError, shipped_rates
from democratiza.money import MoneyError, decimal_percent, parse_percent, parse_pesos, pesos
from democratiza.offers.lifecycle import OfferError, StoredOffer
from democratiza.rules.explain import cite
from democratiza.web.api.credit import LINE_FIELD
from democratiza.web.errors import ErrorItem

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
LINE_FIELDS = (
    "entidad",
    "monto_disponible",
    "plazo_meses",
    "gracia_meses",
    "tasa_ea",
    "fecha_otorgamiento",
    "garantia",
    "capitalizar_gracia",
)


def credit_context(conn: Connection, stored: StoredOffer) -> dict[str, Any]:
    """The lines registered (always), every condition checked where they can be, and the
    reason they cannot be with what to do."""
    problem = None
    try:  # read and parsed once: the checks and the note on the series both use it
        loaded = official_rates(conn, IBC)
    except SeriesFileError:
        loaded = None
    try:
        verdict = credit_verdict(conn, stored, loaded or shipped_rates(IBC))
        lines, findings, ok = verdict.lines, verdict.findings, verdict.ok
    except OfferError as exc:
        problem = str(exc)
        lines, findings, ok = offer_lines(conn, stored), (), False
    return {
        "lineas": [_row(n, r) for n, r in enumerate(lines, start=1)],
        "condiciones": [(f.ok, str(f)) for f in findings] if lines else [],
        "permite_abrir": ok,
        "valor": _offer_value(stored),
        "registrable": stored.state in REGISTRABLE,
        "garantias": GARANTIAS,
        "problema": problem,
        "serie": _series_note(loaded.periods if loaded else ()),
        **_program_terms(stored),
    }


def _row(number: int, registered: RegisteredLine) -> dict[str, Any]:
    line = registered.line
    return {
        "numero": number,
        "entidad": line.lender,
        "disponible": pesos(line.available_centavos),
        "plazo": f"{line.term_months} meses",
        "gracia": f"{line.grace_months} meses",
        "tasa": f"{decimal_percent(line.rate_ea.scaleb(2))} EA",
        "otorgamiento": f"{line.granted:%Y-%m-%d}",
        "datos": typed_line(line),
    }


def typed_line(line: CreditLine) -> dict[str, str]:
    """The line as the form shows it to be corrected: as a person would type it."""
    return {
        "entidad": line.lender,
        "monto_disponible": pesos(line.available_centavos).removeprefix("$ "),
        "plazo_meses": str(line.term_months),
        "gracia_meses": str(line.grace_months),
        "tasa_ea": decimal_percent(line.rate_ea.scaleb(2)).removesuffix(" %"),
        "fecha_otorgamiento": f"{line.granted:%Y-%m-%d}",
        "garantia": line.share_collateral,
        "capitalizar_gracia": "si" if line.capitalise_grace_interest else "",
    }


def _series_note(periods: tuple[Any, ...]) -> str:
    if not periods:
        return ""
    return (
        f"Serie oficial cargada: {len(periods)} periodos, del {periods[0].start:%Y-%m-%d} al "
        f"{periods[-1].end:%Y-%m-%d}."
    )


def _offer_value(stored: StoredOffer) -> str:
    try:
        return pesos(offer_value(stored))
    except OfferError:
        return ""


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


def read_line(form: dict[str, str]) -> tuple[CreditLine | None, list[ErrorItem]]:
    """The line as typed; otherwise every field that cannot be right, each under its name:
    what cannot be read, and then the line's own checks (``line_problems``) on the rest."""
    problems: list[ErrorItem] = []

    def refuse(name: str, message: str) -> None:
        problems.append(ErrorItem(columna=name, mensaje=message))

    lender = form.get("entidad", "").strip()[:200]
    available = None
    try:
        available = parse_pesos(form.get("monto_disponible", ""))
    except MoneyError as exc:
        refuse("monto_disponible", str(exc))
    term, grace = _months(form, "plazo_meses", refuse), _months(form, "gracia_meses", refuse)
    rate = None
    try:
        rate = parse_percent(form.get("tasa_ea", ""))
    except MoneyError as exc:
        refuse("tasa_ea", str(exc))
    for part, message in line_problems(lender, available, term, grace, rate):
        refuse(LINE_FIELD[part], message)
    granted = None
    try:
        granted = date.fromisoformat(form.get("fecha_otorgamiento", "").strip())
    except ValueError:
        refuse("fecha_otorgamiento", "se espera una fecha AAAA-MM-DD")
    collateral = COLLATERAL.get(form.get("garantia", ""))
    if collateral is None:
        refuse("garantia", "elija cómo admite la línea las acciones como garantía")
    capitalise = form.get("capitalizar_gracia") == "si"
    # A part that could not be read is None and has its problem: with none, each is read.
    match (available, term, grace, rate, granted, collateral):
        case (int() as a, int() as t, int() as g, Decimal() as r, date() as d, str() as c):
            if not problems:
                return CreditLine(lender, a, t, g, r, d, capitalise, c), []
    return None, problems


def _months(form: dict[str, str], name: str, refuse: Callable[[str, str], None]) -> int | None:
    text = form.get(name, "").strip()
    if not text.isdigit():
        refuse(name, "escriba un número entero de meses")
        return None
    return int(text)
