"""Pages for later stages (Segunda Etapa and after): the list and a new stage for the office,
a broker's view of a stage and its order batches (one stage's own page is ``stage_page``).

Why thin: the pages read and change through the same functions as the API
(``api.stages``), so a page can never do what the API refuses. The minimum price is typed
as people write it (``money.parse_pesos``); a refused form is shown again as typed, each
error under its field.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, Request, UploadFile
from fastapi.responses import Response
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from democratiza.labels import label
from democratiza.money import MoneyError, parse_pesos, pesos_cell
from democratiza.stages.terms import StageTerms
from democratiza.vocabulary import MECHANISMS
from democratiza.web.api import catalog
from democratiza.web.api import stages as api_stages
from democratiza.web.api.uploads import BatchId
from democratiza.web.errors import ErrorItem, WebError, validation_items
from democratiza.web.pages.forms import (
    FieldErrors,
    back,
    field_errors,
    form_fields,
)
from democratiza.web.pages.stage_allocation_view import ALLOCATED, broker_allocation
from democratiza.web.pages.templating import render
from democratiza.web.security.access import current, route

router = APIRouter(include_in_schema=False)
TERM_FIELDS = (
    "mecanismo",
    "fecha_aviso",
    "fecha_apertura",
    "fecha_cierre",
    "precio_minimo",
    "orden_minima",
    "lote",
    "tope_porcentaje",
    "fuente",
)
STAGE_FIELDS = ("codigo", "oferta", *TERM_FIELDS, "motivo")


def _stages_page(
    request: Request, form: dict[str, str], errors: FieldErrors, status: int = 200
) -> Response:
    views = api_stages.list_stages(request)
    with request.app.state.engine.connect() as conn:
        offers = [o.codigo for o in catalog.offers(conn)]
    context = {
        "etapas": views,
        "ofertas": [(o, o) for o in offers],
        "mecanismos": [(m, label("mecanismo", m)) for m in MECHANISMS],
        "datos": form,
        **errors.context(),
    }
    return render(request, "etapas.html", context, status)


@route(router, "GET", "/oficina/etapas", "pag.etapas")
def stages_page(request: Request) -> Response:
    """The stages of every offer, and (for the office) the form to create the next one."""
    defaults = {"orden_minima": "1", "lote": "1", "mecanismo": MECHANISMS[0]}
    return _stages_page(request, defaults, FieldErrors())


def _price_text(form: dict[str, str], problems: list[ErrorItem]) -> str | None:
    """The minimum price as typed (``money.parse_pesos``), as the exact pesos the terms read."""
    text = form.get("precio_minimo", "").strip()
    if not text:
        return None
    try:
        cents = parse_pesos(text)
    except MoneyError as exc:
        problems.append(ErrorItem(columna="precio_minimo", mensaje=str(exc)))
        return None
    return pesos_cell(cents)


@route(router, "POST", "/oficina/etapas", "pag.etapa.crear")
async def new_stage(request: Request) -> Response:
    form = await form_fields(request)
    problems: list[ErrorItem] = []
    terms: dict[str, Any] = {k: form[k].strip() for k in TERM_FIELDS if form.get(k, "").strip()}
    price = _price_text(form, problems)
    terms.pop("precio_minimo", None)
    if price is not None:
        terms["precio_minimo"] = price
    code = form.get("codigo", "").strip()
    if not code:
        problems.append(ErrorItem(columna="codigo", mensaje="falta el código de la etapa"))
    data = None
    try:
        data = api_stages.NewStage.model_validate(
            {
                "codigo": code,
                "oferta": form.get("oferta", "").strip(),
                "terminos": terms,
                "motivo": form.get("motivo") or "publicación del aviso de la etapa",
            }
        )
    except ValidationError as exc:
        problems += validation_items(exc.errors())
    try:
        StageTerms.model_validate(terms)
    except ValidationError as exc:
        problems += validation_items(exc.errors())
    if problems or data is None:
        return _stages_page(request, form, field_errors(problems, STAGE_FIELDS), 422)
    try:
        stage = await run_in_threadpool(api_stages.new_stage, data, request)
    except WebError as exc:
        found = exc.items or [ErrorItem(mensaje=exc.message)]
        return _stages_page(request, form, field_errors(found, STAGE_FIELDS), exc.status)
    return back(f"/oficina/etapas/{stage.codigo}")


@route(router, "GET", "/comisionista/etapas/{etapa}", "pag.etapa.comisionista")
def broker_stage(etapa: str, request: Request) -> Response:
    """A broker's view of a stage: the notice, the upload form and its own orders; once
    allocated, the cut price and each order's assigned shares and sum to pay."""
    engine = request.app.state.engine
    with engine.connect() as conn:
        stage = api_stages.stage_or_404(conn, etapa)
    orders = api_stages.list_orders(etapa, request)
    broker = current(request).broker
    allocated = None
    if stage.state in ALLOCATED and broker is not None:  # assigned shares and what to pay
        allocated = broker_allocation(engine, etapa, broker)
    return render(
        request,
        "etapa_comisionista.html",
        {"etapa": api_stages.stage_view(stage), "ordenes": orders, "asignacion": allocated},
    )


@route(router, "POST", "/comisionista/etapas/{etapa}/lotes", "pag.etapa.lote.subir")
def broker_upload(
    etapa: str,
    request: Request,
    archivo: Annotated[UploadFile, File()],
    lote: BatchId,
) -> Response:
    api_stages.upload_orders(etapa, request, archivo, lote)
    return back(f"/comisionista/etapas/{etapa}")
