"""Uploaded files streamed to a private temporary folder, under a safe name, with a limit.

Why one place: batches of acceptances, of orders and of payments arrive the same way, and
each must be refused the same way when it is too large or in a format we cannot read, or
when its rows are refused: with every row's error under the name the person gave the
file, never the temporary path.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import File, Form, UploadFile
from pydantic import AfterValidator
from starlette import datastructures

from democratiza.reports.exports import slug
from democratiza.tables.errors import InputRejected
from democratiza.web.errors import TooLarge, WrongMediaType, rejected_file
from democratiza.web.server.scratch import scratch_folder
from democratiza.web.server.text_guard import without_nul

FORMATS = (".csv", ".xlsx", ".json")
MAX_UPLOAD = 64 * 1024 * 1024  # bytes; about 250.000 rows of CSV
BLOCK = 1 << 20
# The routes that take an uploaded file, and so a body up to the upload limit (``max_upload``)
# instead of 1 MiB (``web.server.middleware``). By name, so that the limit belongs to the
# route, whatever its path looks like; ``tests/test_web_input.py`` checks that every route
# with a file is here, and nothing else.
UPLOAD_ROUTES = frozenset(
    {
        "api.lote.subir",
        "api.pagos.subir",
        "api.etapa.lote.subir",
        "api.etapa.pagos.subir",
        "pag.lote.subir",
        "pag.etapa.lote.subir",
        "pag.etapa.pagos.subir",
        "pag.pagos.subir",
        "pag.credito.serie",
    }
)
# The name a broker or the office gives a file it uploads (what makes a resend recognised).
BatchId = Annotated[
    str,
    Form(min_length=1, max_length=120, description="Identificador del lote"),
    AfterValidator(without_nul),
]


def file_field(description: str) -> Any:
    """An uploaded file's field, described as binary: a generated client then sends it as
    a file (OpenAPI 3.1's ``contentMediaType`` alone, some generators read as text)."""
    return File(description=description, json_schema_extra={"format": "binary"})


def upload_name(filename: str | None) -> tuple[str, str]:
    """(safe stem, suffix) of an uploaded file's name; refuses formats we cannot read."""
    name = Path(filename or "").name
    suffix = Path(name).suffix.lower()
    if suffix not in FORMATS:
        raise WrongMediaType(
            f"Formato no admitido ('{name or 'sin nombre'}'): envíe un archivo .csv, .xlsx o .json."
        )
    return slug(Path(name).stem)[:80] or "lote", suffix


def save_upload(upload: datastructures.UploadFile, limit: int = MAX_UPLOAD) -> tuple[Path, str]:
    """Stream the upload to a new private folder; returns (path, name as the broker sent it)."""
    stem, suffix = upload_name(upload.filename)
    folder = scratch_folder()
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


@contextmanager
def uploaded(upload: UploadFile, what: str = "El lote") -> Iterator[Path]:
    """The upload saved for the work inside the block, and removed after it.

    The intake's refusal of its rows (``InputRejected``) leaves the block as the API's 422,
    every error under the uploaded file's name (``what`` says what the file is).
    """
    path, shown = save_upload(upload)
    try:
        yield path
    except InputRejected as exc:
        raise rejected_file(exc, shown, str(path.parent), what) from None
    finally:
        shutil.rmtree(path.parent, ignore_errors=True)
