"""The public calculator's page: "¿cuántas acciones puedo comprar?", asked in a form.

Why the form posts back to itself: the answer, or every reason it was refused, is shown
next to what the person typed, each error under its own field, without JavaScript. The
answer is the API's (``api.calculator``), so the page can never say what the engine would
not.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from democratiza.labels import label
from democratiza.money import MoneyError, parse_shares
from democratiza.rules.calculator import LEGAL_MONEY_FIELDS, MONEY_FIELDS, NATURAL_MONEY_FIELDS
from democratiza.vocabulary import PAYMENT_METHODS
from democratiza.web.api.calculator import CalculatorInput, amount_errors, calculate
from democratiza.web.api.public import resolve_offer
from democratiza.web.errors import ErrorItem, WebError, validation_items
from democratiza.web.pages.calculator_choice import choose
from democratiza.web.pages.forms import FieldErrors, field_errors, form_fields
from democratiza.web.pages.templating import render
from democratiza.web.security.access import route

router = APIRouter(include_in_schema=False)
CHECKBOXES = ("obligado_declarar", "extranjero", "directivo")
OTHER_FIELDS = (
    "oferta",
    "programa",
    "categoria",
    "cantidad",
    "forma_pago",
    "fecha_ingreso_directivo",
    "meses_en_cargo",
    "fecha",
)
FIELDS = (*OTHER_FIELDS, *MONEY_FIELDS)


def field_labels() -> dict[str, str]:
    """What each field of the form is called: the acceptance file's own description."""
    own = {
        "oferta": "Oferta",
        "programa": "Programa",
        "categoria": "Categoría",
        "forma_pago": "Forma de pago",
        "cantidad": "Acciones que quiere comprar",
        "fecha": "Día en que radicaría la aceptación",
    }
    return {name: own.get(name) or label("campo", name) for name in FIELDS}


def _page(
    request: Request, values: dict[str, str], result: Any, errors: FieldErrors, status: int
) -> Response:
    with request.app.state.engine.connect() as conn:
        choice = choose(conn, values.get("oferta") or None, values.get("programa") or None)
    values = {
        "fecha": f"{choice.day:%Y-%m-%d}",
        **values,
        "oferta": choice.offer or "",
        "programa": choice.program.id,
    }
    context = {
        "valores": values,
        "resultado": result,
        **errors.context(),
        "eleccion": choice,
        "ofertas": choice.offers,
        "programas": choice.programs,
        "categorias": [(c.id, c.name) for c in choice.program.categories],
        "formas_pago": [(m, label("forma_pago", m)) for m in PAYMENT_METHODS],
        "montos_naturales": NATURAL_MONEY_FIELDS,
        "montos_juridicas": LEGAL_MONEY_FIELDS,
        "etiquetas": field_labels(),
    }
    return render(request, "calculadora.html", context, status)


@route(router, "GET", "/calculadora", "pag.calculadora")
def calculator_form(
    request: Request,
    oferta: str | None = Query(None, max_length=80),
    programa: str | None = Query(None, max_length=80),
) -> Response:
    values = {
        "obligado_declarar": "si",
        "forma_pago": "contado",
        "oferta": oferta or "",
        "programa": programa or "",
    }
    return _page(request, values, None, FieldErrors(), 200)


@route(router, "POST", "/calculadora", "pag.calculadora.calcular")
async def calculator(request: Request) -> Response:
    return await run_in_threadpool(_calculate, request, await form_fields(request))


def _quantity(values: dict[str, str], fields: dict[str, Any]) -> list[ErrorItem]:
    """Shares as typed, with or without thousands dots ('1.000' is a thousand, as in pesos:
    ``money.parse_shares``), into ``fields``; or the field's error."""
    text = values.get("cantidad", "").strip()
    if not text:
        return []
    try:
        fields["cantidad"] = parse_shares(text)
    except MoneyError as exc:
        fields["cantidad"] = None
        return [ErrorItem(columna="cantidad", mensaje=str(exc))]
    return []


def _calculate(request: Request, values: dict[str, str]) -> Response:
    fields: dict[str, Any] = {
        k: (v.strip() or None) for k, v in values.items() if k in CalculatorInput.model_fields
    }
    for box in CHECKBOXES:
        fields[box] = values.get(box) == "si"
    if fields.get("oferta"):
        fields["programa"] = None
    items = [*_quantity(values, fields), *amount_errors(values)]
    data = None
    try:
        data = CalculatorInput.model_validate(fields)
    except ValidationError as exc:
        seen = {i.columna for i in items}
        items += [i for i in validation_items(exc.errors()) if i.columna not in seen]
    if items or data is None:
        return _page(request, values, None, field_errors(items, FIELDS), 422)
    try:
        result = calculate(resolve_offer(request, data), data)
    except WebError as exc:
        found = exc.items or [ErrorItem(mensaje=exc.message)]
        return _page(request, values, None, field_errors(found, FIELDS), exc.status)
    return _page(request, values, result, FieldErrors(), 200)
