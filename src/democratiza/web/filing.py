"""Brokers' filings over HTTP, through the very same intake as files from the command line.

Why: the all-or-nothing, once-only, evaluated-at-intake guarantees live in ``import_batch``
(files) and ``filing.singles`` (single acceptances, grouped with others filed at the same
moment, each still its own one-row batch); the web adds only what HTTP needs: the upload
is streamed to a private temporary folder under its own (sanitised) name with a size
limit, the batch is filed as the authenticated broker (never a name the client sends), and
the answer is JSON, row by row, with the intake's errors under the uploaded file's name.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from fastapi import UploadFile
from pydantic import BaseModel
from sqlalchemy import Engine

from democratiza.filing.batches import BatchResult, import_batch
from democratiza.filing.singles import intake_for, single_filing
from democratiza.offers.lifecycle import OfferError
from democratiza.reports.exports import slug
from democratiza.rules.explain import Explainer, Explanation
from democratiza.storage.receipts import StorageError
from democratiza.tables.errors import InputRejected
from democratiza.web.auth import Principal
from democratiza.web.bulk_lane import BulkLane
from democratiza.web.errors import (
    MAX_ITEMS,
    TooLarge,
    WrongMediaType,
    refused,
    rejected_file,
)

FORMATS = (".csv", ".xlsx", ".json")
MAX_UPLOAD = 64 * 1024 * 1024  # bytes; about 250.000 rows of CSV
BLOCK = 1 << 20
SINGLE_SOURCE = "aceptación"  # the file name a single acceptance's errors give
# Batches typed and decided at once in this process. Why one: Polars already spreads one
# batch over every core, so a second one at the same time only makes both slower, and
# starves the single acceptances (which need a few milliseconds of CPU each, now).
BATCHES_AT_ONCE = threading.BoundedSemaphore(1)


class BatchAnswer(BaseModel):
    """A filing's answer: every row's decision and radicado, the first ones not accepted
    explained."""

    detalle: str
    creado: bool
    lote_id: int
    filas: int
    por_decision: dict[str, int]
    resultado: list[dict[str, Any]]


def answer_json(answer: dict[str, Any]) -> bytes:
    """The answer checked against ``BatchAnswer`` and written as JSON."""
    return BatchAnswer.model_validate(answer).model_dump_json().encode()


def upload_name(filename: str | None) -> tuple[str, str]:
    """(safe stem, suffix) of an uploaded file's name; refuses formats we cannot read."""
    name = Path(filename or "").name
    suffix = Path(name).suffix.lower()
    if suffix not in FORMATS:
        raise WrongMediaType(
            f"Formato no admitido ('{name or 'sin nombre'}'): envíe un archivo .csv, .xlsx o .json."
        )
    return slug(Path(name).stem)[:80] or "lote", suffix


def save_upload(upload: UploadFile, limit: int = MAX_UPLOAD) -> tuple[Path, str]:
    """Stream the upload to a new private folder; returns (path, name as the broker sent it)."""
    stem, suffix = upload_name(upload.filename)
    folder = Path(tempfile.mkdtemp(prefix="democratiza-"))
    path = folder / f"{stem}{suffix}"
    size = 0
    with path.open("wb") as out:
        while block := upload.file.read(BLOCK):
            size += len(block)
            if size > limit:
                out.close()
                shutil.rmtree(folder, ignore_errors=True)
                raise TooLarge(f"El archivo pasa del límite de {limit // (1024 * 1024)} MiB.")
            out.write(block)
    return path, Path(upload.filename or path.name).name


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

    With a ``lane`` the work runs in the lane's process (``web.bulk_lane``), else here.
    """
    assert who.broker is not None, "only brokers file"
    try:
        if lane is not None:
            return lane.file(code, path, shown, batch, who.broker, who.who)
        with BATCHES_AT_ONCE:
            return file_batch_here(engine, code, path, shown, batch, who.broker, who.who)
    finally:
        shutil.rmtree(path.parent, ignore_errors=True)


def file_batch_here(
    engine: Engine, code: str, path: Path, shown: str, batch: str, broker: str, who: str
) -> bytes:
    """The batch filed in this process: the intake's answer as JSON, or its ``WebError``."""
    answer = _answer(
        lambda: import_batch(engine, code, path, broker, batch, who), shown, str(path.parent)
    )
    return answer_json(answer)


def _answer(file: Callable[[], BatchResult], shown: str, hidden: str) -> dict[str, Any]:
    """The filing's JSON answer; the intake's refusals as the API's errors."""
    try:
        result = file()
    except (InputRejected, OfferError, StorageError) as exc:
        raise _web_error(exc, shown, hidden) from None
    return batch_answer(result)


def _web_error(
    exc: InputRejected | OfferError | StorageError, shown: str, hidden: str
) -> Exception:
    """The intake's refusal as the API's error (422 with the rows, 404 or 409)."""
    if isinstance(exc, InputRejected):
        return rejected_file(exc, shown, hidden)
    return refused(exc)


def batch_answer(result: BatchResult) -> dict[str, Any]:
    """The batch's rows with decision and radicado; the first rows not accepted, explained."""
    decisions = result.decisions
    counts = Counter(decisions["decision"].to_list())
    explanations: Iterable[Explanation | None] = ()
    if result.explanations is not None:
        explanations = result.explanations
    elif result.evaluated is not None:
        compiled, results, frame = result.evaluated
        explanations = Explainer(compiled).explain_not_accepted(results, frame, MAX_ITEMS)
    explained: list[str | None] = [None] * decisions.height
    shown = 0
    for i, explanation in enumerate(explanations):
        if explanation is not None and explanation.decision != "aceptada" and shown < MAX_ITEMS:
            explained[i] = " ".join(explanation.lines()[:4])
            shown += 1
    rows = decisions.to_dicts()
    for row, text in zip(rows, explained, strict=True):
        row["explicacion"] = text
    return {
        "detalle": result.message,
        "creado": result.created,
        "lote_id": result.batch_id,
        "filas": result.rows,
        "por_decision": {str(d): n for d, n in sorted(counts.items())},
        "resultado": rows,
    }


async def file_one(
    engine: Engine, code: str, acceptance: dict[str, Any], batch: str | None, who: Principal
) -> dict[str, Any]:
    """One acceptance as a batch of one; the same content sent twice is filed once.

    Filed through ``filing.singles``: acceptances filed at the same moment are typed,
    decided and stored together, each still its own batch with its own answer. The request
    waits for its own answer without holding a worker thread (the work is done by the
    intake's collecting thread), so many brokers can wait at once.
    """
    assert who.broker is not None, "only brokers file"
    filing = single_filing(code, acceptance, who.broker, batch, who.who, SINGLE_SOURCE)
    try:
        result = await asyncio.wrap_future(intake_for(engine).submit(filing))
    except (InputRejected, OfferError, StorageError) as exc:
        raise _web_error(exc, SINGLE_SOURCE, SINGLE_SOURCE) from None
    return batch_answer(result)
