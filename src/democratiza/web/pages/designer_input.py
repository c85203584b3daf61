"""What the designer's page takes in: the designs file uploaded, and the population chosen.

Why bounds: a request runs the engine and the adjudication once per design on the whole
population; at most ``MAX_POPULATION`` acceptants and ``MAX_DESIGNS`` designs keep it to
seconds (``democratiza simular`` has no bound: it runs where the office chooses). The
population is counted before it is built, so one too large is refused without building it.
"""

from __future__ import annotations

import polars as pl
from sqlalchemy import Engine

from democratiza.design.designs import Design
from democratiza.design.sources import (
    example_populations,
    from_offer,
    from_spec,
    offer_size,
    spec_size,
)
from democratiza.money import group
from democratiza.offers.lifecycle import OfferError

MAX_POPULATION = 600_000  # acceptants: the national example fits, a run takes seconds
MAX_DESIGNS = 10
MAX_DESIGNS_FILE = 256 * 1024  # bytes of a designs file


class Refused(Exception):
    """A choice or a file the page cannot take: the field it belongs under, and why."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field, self.message = field, message


def designs_text(data: bytes) -> str:
    """The uploaded designs file as text (refused if too large or not UTF-8)."""
    if len(data) > MAX_DESIGNS_FILE:
        raise Refused("disenos", f"el archivo pasa del límite de {group(MAX_DESIGNS_FILE)} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused("disenos", "el archivo no está en UTF-8") from None


def population(engine: Engine, form: dict[str, str], base: Design) -> pl.DataFrame:
    """The chosen population, counted first and refused if too large to simulate here."""
    code, path = form.get("oferta", ""), None
    if form.get("fuente") == "oferta":
        field = "oferta"
        try:
            size = offer_size(engine, code)
        except OfferError as exc:
            raise Refused(field, str(exc)) from None
    else:
        field, path = "ejemplo", example_populations().get(form.get("ejemplo", ""))
        if path is None:
            raise Refused(field, "elija una de las poblaciones de ejemplo")
        size = spec_size(path)
    if size == 0:
        raise Refused(field, "la población no tiene aceptaciones vigentes")
    if size > MAX_POPULATION:
        raise Refused(
            field,
            f"la población tiene {group(size)} aceptantes y aquí se simulan a lo sumo "
            f"{group(MAX_POPULATION)} (para más, use democratiza simular en la línea de comandos)",
        )
    return from_offer(engine, code) if path is None else from_spec(path, base)
