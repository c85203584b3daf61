"""Where a designer's population comes from: an offer's own acceptances, a file, or a spec.

- an offer in the database: its current acceptances as filed (withdrawn ones left out: they
  take no shares), with their radicados, so the order of receipt is the offer's own;
- a file in the acceptance format (``docs/formato-aceptaciones.md``), read and typed as a
  broker's batch is; its rows are received in the order they are written;
- a synthetic population (``population``), each acceptant asking for a share of the limit
  the base design leaves them.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
from sqlalchemy import Engine, select

from democratiza.design.designs import Design
from democratiza.design.population import load_population_spec, population
from democratiza.design.simulate import requested
from democratiza.offers.lifecycle import load_offer
from democratiza.storage.database import read_frame
from democratiza.storage.schema import acceptances
from democratiza.tables.acceptances import typed_schema
from democratiza.tables.parse import parse
from democratiza.tables.readers import read_table


def from_offer(engine: Engine, code: str) -> pl.DataFrame:
    """The offer's current acceptances, typed as the engine reads them, with radicados."""
    schema = {"radicado": pl.String(), **typed_schema()}
    schema.pop("fila")
    schema.pop("cantidad_fraccionaria")
    with engine.connect() as conn:
        stored = load_offer(conn, code)
        statement = select(*(acceptances.c[name] for name in schema)).where(
            acceptances.c.oferta_id == stored.id,
            acceptances.c.vigente,
            acceptances.c.estado != "retirada",
        )
        frame = read_frame(conn, statement, schema)
    return frame.with_columns(
        pl.int_range(1, pl.len() + 1).alias("fila"),
        pl.lit(False).alias("cantidad_fraccionaria"),
    ).select(["radicado", *typed_schema()])


def from_file(path: Path) -> pl.DataFrame:
    """Acceptances from a file in the acceptance format (refused whole if any cell is bad)."""
    return parse(read_table(path))


def from_spec(path: Path, base: Design) -> pl.DataFrame:
    """A synthetic population and what each asks for under the base design."""
    spec = load_population_spec(path)
    share = spec.request.share_of_limit
    return requested(population(spec), base.offer, share.low, share.high, spec.seed)
