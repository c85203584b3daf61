"""Brokers' filings over HTTP, through the very same ``intake.batches.import_batch``.

Why: the all-or-nothing, once-only, evaluated-at-intake guarantees live in ``import_batch``;
the web adds only what HTTP needs: the upload is streamed to a private temporary folder
under its own (sanitised) name with a size limit, the batch is filed as the authenticated
broker (never a name the client sends), and the answer is JSON, row by row, with the
intake's errors under the uploaded file's name.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import polars as pl
from fastapi import UploadFile
from sqlalchemy import Engine

from democratiza.intake.batches import BatchResult, StorageError, import_batch
from democratiza.intake.errors import InputRejected
from democratiza.offers.lifecycle import OfferError
from democratiza.reports.exports import slug
from democratiza.rules.explain import Explainer
from democratiza.web.auth import Principal
from democratiza.web.errors import (
    MAX_ITEMS,
    Conflict,
    NotFound,
    TooLarge,
    Unprocessable,
    WrongMediaType,
    input_items,
)

FORMATS = (".csv", ".xlsx", ".json")
MAX_UPLOAD = 64 * 1024 * 1024  # bytes; about 250.000 rows of CSV
BLOCK = 1 << 20


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
    engine: Engine, code: str, path: Path, shown: str, batch: str, who: Principal
) -> dict[str, Any]:
    """File one batch as the authenticated broker; errors become ``WebError`` with rows."""
    assert who.broker is not None, "only brokers file"
    try:
        result = import_batch(engine, code, path, who.broker, batch, who.who)
    except InputRejected as exc:
        items = input_items(exc.errors, shown, str(path.parent))
        raise Unprocessable(
            f"El lote tiene {len(exc.errors)} error(es); no se guardó nada.", items, len(exc.errors)
        ) from None
    except OfferError as exc:
        if str(exc).startswith("No existe la oferta"):
            raise NotFound(str(exc)) from None
        raise Conflict(str(exc)) from None
    except StorageError as exc:
        raise Conflict(str(exc)) from None
    finally:
        shutil.rmtree(path.parent, ignore_errors=True)
    return batch_answer(result)


def batch_answer(result: BatchResult) -> dict[str, Any]:
    """The batch's rows with decision and radicado; the first rows not accepted, explained."""
    decisions = result.decisions
    counts = decisions.group_by("decision").len().sort("decision")
    explained: list[str | None] = [None] * decisions.height
    if result.evaluated is not None:
        compiled, results, frame = result.evaluated
        explainer = Explainer(compiled)
        shown = 0
        for i, explanation in enumerate(explainer.explain_all(results, frame)):
            if explanation.decision != "aceptada" and shown < MAX_ITEMS:
                explained[i] = " ".join(explanation.lines()[:4])
                shown += 1
    rows = decisions.with_columns(pl.Series("explicacion", explained, dtype=pl.String))
    return {
        "detalle": result.message,
        "creado": result.created,
        "lote_id": result.batch_id,
        "filas": result.rows,
        "por_decision": {str(d): int(n) for d, n in counts.iter_rows()},
        "resultado": rows.to_dicts(),
    }


def file_one(
    engine: Engine, code: str, acceptance: dict[str, Any], batch: str | None, who: Principal
) -> dict[str, Any]:
    """One acceptance as a batch of one; the same content sent twice is filed once."""
    assert who.broker is not None, "only brokers file"
    acceptance = {"comisionista": who.broker, **acceptance}
    text = json.dumps({"aceptaciones": [acceptance]}, ensure_ascii=False, sort_keys=True)
    batch = batch or "web-" + hashlib.sha256(text.encode()).hexdigest()[:24]
    folder = Path(tempfile.mkdtemp(prefix="democratiza-"))
    path = folder / "aceptacion.json"
    path.write_text(text, encoding="utf-8")
    return file_batch(engine, code, path, "aceptación", batch, who)
