"""What the designer's page takes in: the designs file uploaded, and the population chosen.

Why bounds: a request runs the engine and the adjudication once per design on the whole
population; at most ``MAX_POPULATION`` acceptants and ``MAX_DESIGNS`` designs keep it to
seconds (``democratiza simular`` has no bound: it runs where the office chooses). The
population is counted before it is built, so one too large is refused without building it.

A population the office uploads is either a file in the acceptance format, read by the
very reader and checks of a broker's batch (``design.sources.from_file``), as large as a
batch may be (the application's ``max_upload``) and saved to a private folder the request
removes; or a population parameter file (YAML), as small as a designs file. Nothing
uploaded is kept.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from sqlalchemy import Engine
from starlette.datastructures import UploadFile

from democratiza.design.designs import Design
from democratiza.design.population import PopulationSpecError, parse_population_spec
from democratiza.design.sources import (
    TooMany,
    example_populations,
    from_file,
    from_offer,
    from_spec,
    offer_size,
    spec_size,
    synthetic,
)
from democratiza.money import group
from democratiza.offers.lifecycle import OfferError
from democratiza.web.api.uploads import FORMATS, save_upload
from democratiza.web.errors import TooLarge

MAX_POPULATION = 600_000  # acceptants: the national example fits, a run takes seconds
MAX_DESIGNS = 10
MAX_DESIGNS_FILE = 256 * 1024  # bytes of a designs file, and of a population parameter file
SPEC_FORMATS = (".yaml", ".yml")
FILE = "poblacion"  # the field of an uploaded population


class Refused(Exception):
    """A choice or a file the page cannot take: the field it belongs under, why, and the
    status the page answers with (413 for a file too large)."""

    def __init__(self, field: str, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.field, self.message, self.status = field, message, status


@dataclass(frozen=True)
class Uploaded:
    """An uploaded population: its name as the office gave it, and either the saved file in
    the acceptance format (``path``, in a folder of its own) or a parameter file's text."""

    name: str
    path: Path | None = None
    text: str = ""

    def remove(self) -> None:
        if self.path is not None:
            shutil.rmtree(self.path.parent, ignore_errors=True)


def _too_large(limit: int) -> Refused:
    return Refused(FILE, f"el archivo pasa del límite de {limit // (1024 * 1024)} MiB", 413)


def designs_text(data: bytes, field: str = "disenos") -> str:
    """An uploaded YAML file as text (refused if too large or not UTF-8)."""
    if len(data) > MAX_DESIGNS_FILE:
        raise Refused(field, f"el archivo pasa del límite de {group(MAX_DESIGNS_FILE)} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(field, "el archivo no está en UTF-8") from None


def population_upload(upload: UploadFile, limit: int) -> Uploaded:
    """The uploaded population, by its name's ending; refused before it is read if its size
    (as the request gave it) is over the limit, and while it is read if it turns out to be."""
    name = Path(upload.filename or "").name[:120]
    suffix = Path(name).suffix.lower()
    if suffix in SPEC_FORMATS:
        if (upload.size or 0) > MAX_DESIGNS_FILE:
            raise Refused(FILE, f"el archivo pasa del límite de {group(MAX_DESIGNS_FILE)} bytes")
        return Uploaded(name, text=designs_text(upload.file.read(MAX_DESIGNS_FILE + 1), FILE))
    if suffix not in FORMATS:
        raise Refused(
            FILE,
            f"formato no admitido ('{name or 'sin nombre'}'): suba las aceptaciones en .csv, "
            ".xlsx o .json, o la descripción de una población en .yaml",
        )
    if (upload.size or 0) > limit:
        raise _too_large(limit)
    try:
        path, _ = save_upload(upload, limit)
    except TooLarge:
        raise _too_large(limit) from None
    return Uploaded(name, path)


def _bounded(field: str, size: int) -> None:
    if size == 0:
        raise Refused(field, "la población no tiene aceptaciones vigentes")
    if size > MAX_POPULATION:
        raise Refused(
            field,
            f"la población tiene {group(size)} aceptantes y aquí se simulan a lo sumo "
            f"{group(MAX_POPULATION)} (para más, use democratiza simular en la línea de comandos)",
        )


def population(
    engine: Engine, form: dict[str, str], base: Design, uploaded: Uploaded | None = None
) -> pl.DataFrame:
    """The chosen population, counted first and refused if too large to simulate here.

    A file in the acceptance format that the batch checks refuse raises their
    ``InputRejected``, every error under the temporary path (the page names the file)."""
    source = form.get("fuente")
    if source == "archivo":
        if uploaded is None:
            raise Refused(FILE, "falta el archivo de la población")
        if uploaded.path is not None:
            try:
                rows = from_file(uploaded.path, MAX_POPULATION)
            except TooMany as exc:
                _bounded(FILE, exc.size)
                raise  # not reached: more than MAX_POPULATION is refused above
            _bounded(FILE, rows.height)
            return rows
        try:
            spec = parse_population_spec(uploaded.text, uploaded.name)
        except PopulationSpecError as exc:
            raise Refused(FILE, str(exc)) from None
        _bounded(FILE, spec.size)
        return synthetic(spec, base)
    code = form.get("oferta", "")
    if source == "oferta":
        try:
            _bounded("oferta", offer_size(engine, code))
        except OfferError as exc:
            raise Refused("oferta", str(exc)) from None
        return from_offer(engine, code)
    path = example_populations().get(form.get("ejemplo", ""))
    if path is None:
        raise Refused("ejemplo", "elija una de las poblaciones de ejemplo")
    _bounded("ejemplo", spec_size(path))
    return from_spec(path, base)
