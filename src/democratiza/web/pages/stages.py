"""Pages for later stages (Segunda Etapa and after): the office runs them, brokers file orders.

Why thin: the pages read and change through the same functions as the API
(``api.stages``), so a page can never do what the API refuses; the office runs a stage
from its page, the auditors read it, and a broker files order batches and sees its own
orders.
"""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import Response
from markupsafe import Markup
from pydantic import ValidationError
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from democratiza.money import to_centavos
from democratiza.reports.stage_report import demand_svg
from democratiza.stages.allocate import current_orders
from democratiza.stages.clearing import demand_curve
from democratiza.stages.lifecycle import stage_history
from democratiza.stages.terms import StageState
from democratiza.storage.schema import stage_allocations
from democratiza.web.api import catalog
from democratiza.web.api import stages as api_stages
from democratiza.web.api.uploads import BatchId
from democratiza.web.errors import Unprocessable
from democratiza.web.pages.forms import Action, Reason, back, form_fields
from democratiza.web.pages.templating import render
from democratiza.web.security.access import current, route

router = APIRouter(include_in_schema=False)
ACTIONS: dict[str, StageState] = {"abrir": "abierta", "cerrar": "cerrada", "publicar": "publicada"}
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


@route(router, "GET", "/oficina/etapas", "pag.etapas")
def stages_page(request: Request) -> Response:
    """The stages of every offer, and (for the office) the form to create the next one."""
    views = api_stages.list_stages(request)
    with request.app.state.engine.connect() as conn:
        offers = [o.codigo for o in catalog.offers(conn)]
    return render(request, "etapas.html", {"etapas": views, "ofertas": offers})


@route(router, "POST", "/oficina/etapas", "pag.etapa.crear")
async def new_stage(request: Request) -> Response:
    form = await form_fields(request)
    terms: dict[str, Any] = {k: form[k].strip() for k in TERM_FIELDS if form.get(k, "").strip()}
    try:
        data = api_stages.NewStage.model_validate(
            {
                "codigo": form.get("codigo", "").strip(),
                "oferta": form.get("oferta", "").strip(),
                "terminos": terms,
                "motivo": form.get("motivo") or "publicación del aviso de la etapa",
            }
        )
    except ValidationError:
        raise Unprocessable(
            "La etapa necesita un código (letras, números, guiones) y la oferta de la Primera "
            "Etapa."
        ) from None
    stage = await run_in_threadpool(api_stages.new_stage, data, request)
    return back(f"/oficina/etapas/{stage.codigo}")


@route(router, "GET", "/oficina/etapas/{etapa}", "pag.etapa")
def stage_page(etapa: str, request: Request) -> Response:
    """The stage: where its shares come from, its minimum price, its book and its record."""
    with request.app.state.engine.connect() as conn:
        stage = api_stages.stage_or_404(conn, etapa)
        valid = current_orders(conn, stage).filter(decision="valida")
        history = stage_history(conn, stage)
        record = conn.execute(
            select(stage_allocations.c.precio, stage_allocations.c.registro).where(
                stage_allocations.c.etapa_id == stage.id
            )
        ).first()
    curve = demand_curve(valid["precio"].to_numpy(), valid["cantidad"].to_numpy())
    header = None
    point = None
    if record is not None:
        header = json.loads(record.registro)
        if record.precio is not None:
            point = (int(record.precio), int(header["asignadas"]))
    context = {
        "etapa": api_stages.stage_view(stage),
        "pasos": stage.origin.get("precio_minimo_pasos", []),
        "grafica": Markup(demand_svg(stage, curve, point)),  # drawn here, not user text
        "ordenes_validas": valid.height,
        "eventos": history,
        "registro": header,
    }
    return render(request, "etapa.html", context)


@route(router, "POST", "/oficina/etapas/{etapa}/acciones", "pag.etapa.accion")
def stage_action(
    etapa: str,
    request: Request,
    accion: Action,
    motivo: Reason,
    precio_corte: str = Form("", max_length=20),
) -> Response:
    who = current(request).who
    engine = request.app.state.engine
    if accion == "adjudicar":
        cutoff = None
        if precio_corte.strip():
            try:
                cutoff = to_centavos(Decimal(precio_corte.strip()))
            except (InvalidOperation, ValueError):
                raise Unprocessable(f"'{precio_corte}' no es un precio en pesos.") from None
        api_stages.allocate(
            etapa, api_stages.Allocation(motivo=motivo, precio_corte=cutoff), request
        )
    elif accion == "desierta":
        api_stages.change(engine, etapa, "desierta", who, motivo)
    elif accion in ACTIONS:
        api_stages.change(engine, etapa, ACTIONS[accion], who, motivo)
    else:
        raise Unprocessable(f"Acción desconocida '{accion}'.")
    return back(f"/oficina/etapas/{etapa}")


@route(router, "GET", "/comisionista/etapas/{etapa}", "pag.etapa.comisionista")
def broker_stage(etapa: str, request: Request) -> Response:
    """A broker's view of a stage: the notice, the upload form and its own orders."""
    with request.app.state.engine.connect() as conn:
        stage = api_stages.stage_or_404(conn, etapa)
    orders = api_stages.list_orders(etapa, request)
    return render(
        request,
        "etapa_comisionista.html",
        {"etapa": api_stages.stage_view(stage), "ordenes": orders},
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
