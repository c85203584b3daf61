"""Brokers' filings over HTTP, through the very same intake as files from the command line.

Why: the all-or-nothing, once-only, evaluated-at-intake guarantees live in ``import_batch``
(files) and ``filing.singles`` (single acceptances, grouped with others filed at the same
moment, each still its own one-row batch); the web adds only what HTTP needs: the upload
is streamed to a private temporary folder (``uploads``), the batch is filed as the
authenticated broker (never a name the client sends), and the answer is JSON, row by row,
with the intake's errors under the uploaded file's name. A broker also withdraws its own
acceptances here.
"""

from __future__ import annotations

import asyncio
import shutil
import threading
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Request, UploadFile
from fastapi.responses import Response
from pydantic import BaseModel, Field
from sqlalchemy import Engine

from democratiza.filing.batches import withdraw
from democratiza.filing.singles import single_filing
from democratiza.offers.lifecycle import OfferError
from democratiza.storage import advisory
from democratiza.web.api import views
from democratiza.web.api.answers import Message
from democratiza.web.api.uploads import BatchId, file_field, save_upload
from democratiza.web.errors import ERROR_RESPONSES, Conflict
from democratiza.web.security.access import current, route
from democratiza.web.security.auth import Principal
from democratiza.web.server import metrics
from democratiza.web.server.bulk_lane import BulkLane, file_batch_here
from democratiza.web.server.filing_answers import (
    REFUSALS,
    BatchAnswer,
    answer_json,
    batch_answer,
    filing_refusal,
)
from democratiza.web.server.group_commit import intake_for
from democratiza.web.server.observability import note_rows, rows_of

SINGLE_SOURCE = "aceptación"  # the file name a single acceptance's errors give
# Batches typed and decided at once in this process. Why one: Polars already spreads one
# batch over every core, so a second one at the same time only makes both slower, and
# starves the single acceptances (which need a few milliseconds of CPU each, now). Held
# from when the file has been read: reading a slow workbook holds no one else back.
BATCHES_AT_ONCE = threading.BoundedSemaphore(1)
# One batch of each broker at a time: a broker's next batch waits for its previous one, so
# no broker fills the lane and holds the others' back. In this process by a lock in memory,
# and, on PostgreSQL, among every process on the database by an advisory lock
# (``storage.advisory``), taken once this process's own lock is held (so a broker's batches
# waiting in one process hold one connection, not one each).
_BROKERS: dict[str, threading.Lock] = {}
_BROKERS_LOCK = threading.Lock()


def _one_at_a_time() -> AbstractContextManager[None]:
    """This process's one batch at a time, its wait counted as the lane's."""
    return metrics.waited(metrics.LANE_TURN, BATCHES_AT_ONCE)


def broker_turn(broker: str) -> threading.Lock:
    with _BROKERS_LOCK:
        return _BROKERS.setdefault(broker, threading.Lock())


router = APIRouter(prefix="/api", tags=["comisionistas"], responses=ERROR_RESPONSES)


def file_batch(
    engine: Engine,
    code: str,
    path: Path,
    shown: str,
    batch: str,
    who: Principal,
    lane: BulkLane | None = None,
) -> bytes:
    """File one batch as the authenticated broker: its answer as JSON (``BatchAnswer``);
    errors become ``WebError`` with rows.

    With a ``lane`` the work runs in the lane's process (``web.server.bulk_lane``), else here.
    """
    assert who.broker is not None, "only brokers file"
    try:
        with metrics.waited(
            metrics.BROKER_TURN,
            broker_turn(who.broker),
            advisory.turn(engine, f"lote:{who.broker}"),
        ):
            if lane is not None:
                return lane.file(code, path, shown, batch, who.broker, who.who)
            return file_batch_here(
                engine, code, path, shown, batch, who.broker, who.who, _one_at_a_time
            )
    finally:
        shutil.rmtree(path.parent, ignore_errors=True)


async def file_one(
    engine: Engine, code: str, acceptance: dict[str, Any], batch: str | None, who: Principal
) -> dict[str, Any]:
    """One acceptance as a batch of one; the same content sent twice is filed once.

    Filed through the group commit (``web.server.group_commit``): acceptances filed at the
    same moment are typed, decided and stored together, each still its own batch with its
    own answer. The request waits for its own answer without holding a worker thread (the
    work is done by the collecting thread), so many brokers can wait at once.
    """
    assert who.broker is not None, "only brokers file"
    filing = single_filing(code, acceptance, who.broker, batch, who.who, SINGLE_SOURCE)
    try:
        result = await asyncio.wrap_future(intake_for(engine).submit(filing))
    except REFUSALS as exc:
        metrics.count_refusal()
        raise filing_refusal(exc, SINGLE_SOURCE, SINGLE_SOURCE) from None
    answer = batch_answer(result)
    metrics.count_filing(answer["creado"], answer["por_decision"])
    return answer


class OneAcceptance(BaseModel):
    lote: str | None = Field(None, max_length=120, description="Identificador del envío")
    aceptacion: dict[str, str | int | bool | None] = Field(
        description="Una fila del archivo de aceptaciones (columnas de `democratiza formato`)"
    )


class Withdrawal(BaseModel):
    motivo: str = Field(min_length=1, max_length=500)


# The answer is checked against ``BatchAnswer`` and written as JSON once, where it is built
# (for a batch, in the bulk lane's process): the routes send those bytes as they are.
@route(
    router,
    "POST",
    "/ofertas/{codigo}/lotes",
    "api.lote.subir",
    status_code=201,
    response_model=BatchAnswer,
)
def upload_batch(
    codigo: str,
    request: Request,
    archivo: Annotated[UploadFile, file_field("Lote en CSV, XLSX o JSON")],
    lote: BatchId,
) -> Response:
    """Radica un lote: todo o nada, una sola vez, evaluado fila por fila al recibirlo."""
    who = current(request)
    path, shown = save_upload(archivo)
    state = request.app.state
    answer = file_batch(state.engine, codigo, path, shown, lote, who, state.lane)
    note_rows(request.state, rows_of(answer))
    return Response(answer, status_code=201, media_type="application/json")


@route(
    router,
    "POST",
    "/ofertas/{codigo}/aceptaciones",
    "api.aceptacion.radicar",
    status_code=201,
    response_model=BatchAnswer,
)
async def file_acceptance(codigo: str, data: OneAcceptance, request: Request) -> Response:
    """Radica una sola aceptación (un lote de una); el mismo contenido dos veces, una vez."""
    # The gate has already identified the broker: ``current`` reads it without the database.
    answer = await file_one(
        request.app.state.engine, codigo, dict(data.aceptacion), data.lote, current(request)
    )
    note_rows(request.state, answer["filas"])
    return Response(answer_json(answer), status_code=201, media_type="application/json")


@route(router, "POST", "/ofertas/{codigo}/aceptaciones/{radicado}/retiro", "api.aceptacion.retirar")
def withdraw_acceptance(codigo: str, radicado: str, data: Withdrawal, request: Request) -> Message:
    """Retira una aceptación propia mientras la oferta está abierta (queda el historial)."""
    who = current(request)
    engine = request.app.state.engine
    with engine.connect() as conn:
        stored = views.offer_or_404(conn, codigo)
        views.one_acceptance(conn, stored, who, radicado)  # another broker's: not found
    try:
        withdraw(engine, codigo, radicado, who.who, data.motivo)
    except OfferError as exc:
        raise Conflict(str(exc)) from None
    return Message(detalle=f"Aceptación {radicado} retirada.")
