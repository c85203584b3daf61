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
from pathlib import Path
from typing import Any

from fastapi import UploadFile
from sqlalchemy import Engine

from democratiza.filing.singles import single_filing
from democratiza.reports.exports import slug
from democratiza.web.errors import TooLarge, WrongMediaType
from democratiza.web.security.auth import Principal
from democratiza.web.server.bulk_lane import BulkLane, file_batch_here
from democratiza.web.server.filing_answers import REFUSALS, batch_answer, filing_refusal
from democratiza.web.server.group_commit import intake_for

FORMATS = (".csv", ".xlsx", ".json")
MAX_UPLOAD = 64 * 1024 * 1024  # bytes; about 250.000 rows of CSV
BLOCK = 1 << 20
SINGLE_SOURCE = "aceptación"  # the file name a single acceptance's errors give
# Batches typed and decided at once in this process. Why one: Polars already spreads one
# batch over every core, so a second one at the same time only makes both slower, and
# starves the single acceptances (which need a few milliseconds of CPU each, now).
BATCHES_AT_ONCE = threading.BoundedSemaphore(1)


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

    With a ``lane`` the work runs in the lane's process (``web.server.bulk_lane``), else here.
    """
    assert who.broker is not None, "only brokers file"
    try:
        if lane is not None:
            return lane.file(code, path, shown, batch, who.broker, who.who)
        with BATCHES_AT_ONCE:
            return file_batch_here(engine, code, path, shown, batch, who.broker, who.who)
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
        raise filing_refusal(exc, SINGLE_SOURCE, SINGLE_SOURCE) from None
    return batch_answer(result)
