"""Pages for what comes after the Primera Etapa: later stages, and fines.

Why thin: the pages read and change through the same functions as the API
(``api_stages``, ``api_after_sale``), so a page can never do what the API refuses; the
office runs a stage from its page, the auditors read it, and a broker files order batches
and sees its own orders; the office and the auditors compute a fine's statement.
"""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import RedirectResponse, Response
from markupsafe import Markup
from pydantic import ValidationError
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from democratiza.compliance.fines.case import compute_fine
from democratiza.compliance.fines.terms import FineError
from democratiza.compliance.fines.text import statement_text
from democratiza.compliance.series import MissingSeriesValue
from democratiza.money import to_centavos
from democratiza.programs.loader import bundled_program_ids
from democratiza.reports.fine_statement_pdf import fine_statement_pdf
from democratiza.reports.stage_report import demand_svg
from democratiza.stages.allocate import current_orders
from democratiza.stages.clearing import demand_curve
from democratiza.stages.lifecycle import stage_history
from democratiza.storage.schema import stage_allocations
from democratiza.web import api_stages, catalog
from democratiza.web.access import current, route
from democratiza.web.errors import Unprocessable
from democratiza.web.templating import render

router = APIRouter(include_in_schema=False)
ACTIONS = {"abrir": "abierta", "cerrar": "cerrada", "publicar": "publicada"}
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


def _back(path: str) -> RedirectResponse:
    return RedirectResponse(path, status_code=303)


@route(router, "GET", "/oficina/etapas", "pag.etapas")
def stages_page(request: Request) -> Response:
    """The stages of every offer, and (for the office) the form to create the next one."""
    views = api_stages.list_stages(request)
    with request.app.state.engine.connect() as conn:
        offers = [o.codigo for o in catalog.offers(conn)]
    return render(request, "etapas.html", {"etapas": views, "ofertas": offers})


@route(router, "POST", "/oficina/etapas", "pag.etapa.crear")
async def new_stage(request: Request) -> Response:
    form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
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
    return _back(f"/oficina/etapas/{stage.codigo}")


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
    accion: str = Form(max_length=20),
    motivo: str = Form(min_length=1, max_length=500),
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
    return _back(f"/oficina/etapas/{etapa}")


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
    lote: str = Form(min_length=1, max_length=120),
) -> Response:
    api_stages.upload_orders(etapa, request, archivo, lote)
    return _back(f"/comisionista/etapas/{etapa}")


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
    form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
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
