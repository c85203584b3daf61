"""The Segunda Etapa (and later stages) over HTTP, through the same services as the CLI.

Who does what: the stage's notice (state, shares, minimum price and how it was reached) is
public; brokers file order batches and read only their own orders and results; the program
office creates, opens, closes, allocates, voids and publishes a stage; the office and the
auditors read the book (demand curve), the record, the registry and the report. Every change
goes through ``stages.*``, which records the event and the audit entry.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from typing import Annotated, Any, Literal, cast

import polars as pl
from fastapi import APIRouter, Request, UploadFile
from fastapi.responses import Response
from pydantic import BaseModel, Field, ValidationError
from sqlalchemy import Connection, Engine, select

from democratiza.compliance.ledger import stage_paid_shares
from democratiza.money import pesos
from democratiza.offers.lifecycle import OfferError
from democratiza.reports.stage_report import (
    allocation_frame,
    registry_frame,
    render_html,
    render_pdf,
)
from democratiza.stages.allocate import (
    DATETIMES,
    StageAllocation,
    allocate_stage,
    current_orders,
    stored_allocation,
)
from democratiza.stages.clearing import demand_curve
from democratiza.stages.lifecycle import (
    StoredStage,
    advance_stage,
    create_stage,
    declare_void,
    load_stage,
)
from democratiza.stages.orders import import_orders, withdraw_order
from democratiza.stages.terms import StageError, StageState, StageTerms
from democratiza.storage.receipts import StorageError
from democratiza.storage.schema import stages
from democratiza.tables.cells import csv_bytes
from democratiza.web.api.answers import Message
from democratiza.web.api.bodies import Body, NewCode, described_as
from democratiza.web.api.formats import (
    CSV_FILE,
    REPORT_FILE,
    CsvOptions,
)
from democratiza.web.api.stage_answers import (
    BookLevel,
    OrderDecision,
    OrderRow,
    OrdersAnswer,
    StageAllocationRecord,
    StageOrigin,
)
from democratiza.web.api.uploads import BatchId, file_field, uploaded
from democratiza.web.api.views import plain
from democratiza.web.errors import (
    ERROR_RESPONSES,
    Conflict,
    NotFound,
    Unprocessable,
    refused,
    validation_items,
)
from democratiza.web.security.access import current, hides_draft, route
from democratiza.web.security.auth import Principal
from democratiza.web.server.scratch import scratch_folder

router = APIRouter(prefix="/api", tags=["etapas siguientes"], responses=ERROR_RESPONSES)


class NewStage(Body):
    codigo: NewCode
    oferta: str = Field(min_length=1, max_length=80, description="Oferta de la Primera Etapa")
    terminos: Annotated[dict[str, Any], described_as(StageTerms)] = Field(
        description="Los términos de la etapa (ver docs/etapas.md)"
    )
    motivo: str = Field("publicación del aviso de la etapa", min_length=1, max_length=500)


class StageStepReason(Body):
    motivo: str = Field(min_length=1, max_length=500)


class Allocation(Body):
    motivo: str = Field("adjudicación al cierre del libro", min_length=1, max_length=500)
    precio_corte: int | None = Field(
        None, ge=1, le=10**15, description="Construcción de libro: centavos por acción"
    )


class StageView(BaseModel):
    codigo: str
    nombre: str
    numero: int
    estado: str
    primera_etapa: str
    mecanismo: str
    acciones_ofrecidas: int
    precio_minimo: int = Field(description="Centavos por acción")
    precio_minimo_texto: str
    orden_minima: int
    lote: int
    fecha_apertura: str
    fecha_cierre: str
    fuente: str = Field(description="El reglamento o aviso del que salen las cifras de la etapa")
    origen: StageOrigin


def stage_view(stage: StoredStage) -> StageView:
    t = stage.terms
    return StageView(
        codigo=stage.code,
        nombre=stage.name,
        numero=stage.number,
        estado=stage.state,
        primera_etapa=stage.first.code,
        mecanismo=t.mechanism,
        acciones_ofrecidas=stage.shares,
        precio_minimo=stage.minimum_price,
        precio_minimo_texto=pesos(stage.minimum_price),
        orden_minima=t.minimum_order,
        lote=t.lot,
        fecha_apertura=t.opens.isoformat(),
        fecha_cierre=t.closes.isoformat(),
        fuente=t.source,
        origen=StageOrigin.model_validate(stage.origin),
    )


def stage_or_404(conn: Connection, code: str) -> StoredStage:
    try:
        return load_stage(conn, code)
    except StageError as exc:
        raise NotFound(str(exc)) from None


def check_stage(engine: Engine, code: str) -> None:
    """404 unless the stage exists, before a service that would refuse it otherwise."""
    with engine.connect() as conn:
        stage_or_404(conn, code)


@route(router, "GET", "/etapas", "api.etapas")
def list_stages(request: Request) -> list[StageView]:
    """Las etapas siguientes de todas las ofertas (aviso público)."""
    with request.app.state.engine.connect() as conn:
        codes = conn.execute(select(stages.c.codigo).order_by(stages.c.id)).scalars().all()
        found = [load_stage(conn, c) for c in codes]
    who = current(request)
    return [stage_view(s) for s in found if not hides_draft(who, s.state)]


@route(router, "GET", "/etapas/{etapa}", "api.etapa")
def show_stage(etapa: str, request: Request) -> StageView:
    """Una etapa: de dónde vienen sus acciones, su precio mínimo y sus términos."""
    with request.app.state.engine.connect() as conn:
        stage = stage_or_404(conn, etapa)
    if hides_draft(current(request), stage.state):
        raise NotFound(f"No existe la etapa '{etapa}'.")
    return stage_view(stage)


@route(router, "POST", "/etapas", "api.etapa.crear", status_code=201)
def new_stage(data: NewStage, request: Request) -> StageView:
    """Crea la etapa siguiente con las acciones que quedaron sin vender (en borrador)."""
    try:
        terms = StageTerms.model_validate(data.terminos)
    except ValidationError as exc:
        items = validation_items(exc.errors())
        raise Unprocessable("Los términos de la etapa no son válidos.", items) from None
    try:
        with request.app.state.engine.begin() as conn:
            stage = create_stage(
                conn, data.codigo, data.oferta, terms, current(request).who, data.motivo
            )
    except (StageError, OfferError) as exc:
        raise refused(exc) from None
    return stage_view(stage)


def change(engine: Engine, code: str, target: StageState, who: str, why: str) -> StageView:
    """One lifecycle step; a refused step changes nothing (409)."""
    try:
        with engine.begin() as conn:
            stage = stage_or_404(conn, code)
            if target == "desierta":
                stage = declare_void(conn, stage, who, why)
            else:
                stage = advance_stage(conn, stage, target, who, why)
    except StageError as exc:
        raise refused(exc) from None
    return stage_view(stage)


def _step(target: StageState, what: str) -> Callable[[str, StageStepReason, Request], StageView]:
    def handler(etapa: str, data: StageStepReason, request: Request) -> StageView:
        return change(request.app.state.engine, etapa, target, current(request).who, data.motivo)

    handler.__doc__ = what
    return handler


STEPS: list[tuple[str, StageState, str]] = [
    ("abrir", "abierta", "Abre el plazo para recibir órdenes."),
    ("cerrar", "cerrada", "Cierra el libro."),
    ("desierta", "desierta", "Declara desierta la etapa, con su causal."),
    ("publicar", "publicada", "Publica el resultado."),
]
for _name, _target, _what in STEPS:
    route(router, "POST", f"/etapas/{{etapa}}/{_name}", f"api.etapa.{_name}")(_step(_target, _what))


@route(router, "POST", "/etapas/{etapa}/adjudicar", "api.etapa.adjudicar")
def allocate(etapa: str, data: Allocation, request: Request) -> StageAllocationRecord:
    """Fija el precio único y asigna; devuelve el registro (precio, huellas, notas)."""
    engine = request.app.state.engine
    check_stage(engine, etapa)
    try:
        done = allocate_stage(engine, etapa, current(request).who, data.motivo, data.precio_corte)
    except StageError as exc:
        raise refused(exc) from None
    return StageAllocationRecord.model_validate(done.header)


@route(router, "GET", "/etapas/{etapa}/libro", "api.etapa.libro")
def book(etapa: str, request: Request) -> list[BookLevel]:
    """La demanda acumulada a cada precio, del más alto al más bajo (órdenes válidas)."""
    with request.app.state.engine.connect() as conn:
        stage = stage_or_404(conn, etapa)
        valid = current_orders(conn, stage).filter(decision="valida")
    curve = demand_curve(valid["precio"].to_numpy(), valid["cantidad"].to_numpy())
    return [BookLevel(precio=p, acciones_a_ese_precio_o_mas=q) for p, q in curve]


@route(router, "GET", "/etapas/{etapa}/adjudicacion", "api.etapa.adjudicacion")
def record(etapa: str, request: Request) -> StageAllocationRecord:
    """El registro de la asignación, recalculado y comprobado contra sus huellas."""
    engine = request.app.state.engine
    check_stage(engine, etapa)
    try:
        header = stored_allocation(engine, etapa).header
    except StageError as exc:
        raise Conflict(str(exc)) from None
    return StageAllocationRecord.model_validate(header)


@route(
    router,
    "GET",
    "/etapas/{etapa}/informe.{formato}",
    "api.etapa.informe",
    **REPORT_FILE,
)
def report(etapa: str, formato: Literal["html", "pdf"], request: Request) -> Response:
    """El informe de la etapa con la curva de demanda, en HTML o PDF."""
    done = _allocation(request, etapa)
    with request.app.state.engine.connect() as conn:
        stage = stage_or_404(conn, etapa)
    if formato == "html":
        return Response(render_html(stage, done), media_type="text/html; charset=utf-8")
    folder = scratch_folder()
    try:
        path = folder / "informe.pdf"
        render_pdf(stage, done, path)
        return Response(path.read_bytes(), media_type="application/pdf")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _allocation(request: Request, etapa: str) -> StageAllocation:
    engine = request.app.state.engine
    check_stage(engine, etapa)
    try:
        return stored_allocation(engine, etapa)
    except StageError as exc:
        raise Conflict(str(exc)) from None


def _csv(frame: pl.DataFrame, style: dict[str, Any]) -> Response:
    body = csv_bytes(frame, datetime_format=DATETIMES, **style)
    return Response(body, media_type="text/csv; charset=utf-8")


@route(router, "GET", "/etapas/{etapa}/registro.csv", "api.etapa.registro", **CSV_FILE)
def registry(etapa: str, request: Request, style: CsvOptions) -> Response:
    """El registro de compradores para el depósito."""
    done = _allocation(request, etapa)
    with request.app.state.engine.connect() as conn:
        paid = stage_paid_shares(conn, etapa)
    return _csv(registry_frame(done, paid), style)


@route(router, "GET", "/etapas/{etapa}/asignacion.csv", "api.etapa.asignacion", **CSV_FILE)
def allocation_file(etapa: str, request: Request, style: CsvOptions) -> Response:
    """Las órdenes con su asignación, precio y valor a pagar (un comisionista: las suyas)."""
    frame = allocation_frame(_allocation(request, etapa))
    broker = current(request).broker
    if broker is not None:
        frame = frame.filter(pl.col("comisionista") == broker)
    return _csv(frame, style)


@route(router, "POST", "/etapas/{etapa}/lotes", "api.etapa.lote.subir", status_code=201)
def upload_orders(
    etapa: str,
    request: Request,
    archivo: Annotated[UploadFile, file_field("Órdenes en CSV, XLSX o JSON")],
    lote: BatchId,
) -> OrdersAnswer:
    """Radica un lote de órdenes: todo o nada, una sola vez, revisado orden por orden."""
    who = current(request)
    assert who.broker is not None, "only brokers file"
    with uploaded(archivo) as path:
        try:
            result = import_orders(request.app.state.engine, etapa, path, who.broker, lote, who.who)
        except StageError as exc:
            raise refused(exc) from None
        except StorageError as exc:
            raise Conflict(str(exc)) from None
    return OrdersAnswer(
        detalle=result.message,
        creado=result.created,
        numero_lote=result.number,
        filas=result.rows,
        resultado=cast(list[OrderDecision], result.decisions.to_dicts()),  # checked here
    )


def _orders(conn: Connection, stage: StoredStage, who: Principal) -> list[dict[str, Any]]:
    frame = current_orders(conn, stage)
    if who.broker is not None:
        frame = frame.filter(frame["comisionista"] == who.broker)
    return [{k: plain(v) for k, v in row.items()} for row in frame.drop("id").to_dicts()]


@route(router, "GET", "/etapas/{etapa}/ordenes", "api.etapa.ordenes")
def list_orders(etapa: str, request: Request) -> list[OrderRow]:
    """Las órdenes vigentes, en orden de ingreso (un comisionista: las suyas)."""
    with request.app.state.engine.connect() as conn:
        rows = _orders(conn, stage_or_404(conn, etapa), current(request))
    return cast(list[OrderRow], rows)  # checked against it as it leaves


@route(router, "POST", "/etapas/{etapa}/ordenes/{radicado}/retiro", "api.etapa.orden.retirar")
def withdraw(etapa: str, radicado: str, data: StageStepReason, request: Request) -> Message:
    """Retira una orden propia mientras la etapa está abierta (queda su historia)."""
    who = current(request)
    engine = request.app.state.engine
    with engine.connect() as conn:
        mine = [o["radicado"] for o in _orders(conn, stage_or_404(conn, etapa), who)]
    if radicado not in mine:  # another broker's order answers as a missing one
        raise NotFound(f"No hay una orden vigente con radicado {radicado}.")
    try:
        withdraw_order(engine, etapa, radicado, who.who, data.motivo)
    except StageError as exc:
        raise Conflict(str(exc)) from None
    return Message(detalle=f"Orden {radicado} retirada.")
