"""Where a designer's population comes from: an offer's own acceptances, a file, or a spec.

- an offer in the database: its current acceptances as filed (withdrawn ones left out: they
  take no shares), with their radicados and order of receipt (``recepcion``), the offer's own;
- a file in the acceptance format (``docs/formato-aceptaciones.md``), read and typed as a
  broker's batch is; its rows are received in the order they are written;
- a synthetic population (``population``), each acceptant asking for a share of the limit
  the base design leaves them; the parameter files shipped in ``examples/simulacion/`` are
  offered by name (``example_populations``).

``offer_size`` and ``spec_size`` count a population before it is built, so that a caller
that bounds its work (the designer's page) refuses one too large without building it.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
from sqlalchemy import ColumnElement, Engine, and_, func, select

from democratiza.design.designs import Design
from democratiza.design.population import PopulationSpec, load_population_spec, population
from democratiza.design.simulate import requested
from democratiza.money import group
from democratiza.offers.lifecycle import load_offer
from democratiza.storage.database import read_frame
from democratiza.storage.schema import acceptances
from democratiza.tables.acceptances import typed_schema
from democratiza.tables.parse import parse
from democratiza.tables.readers import read_table
from democratiza.words import WITHDRAWN

# The parameter files shipped with the project (in its checkout, next to ``src``).
EXAMPLES = Path(__file__).parents[3] / "examples" / "simulacion"


def example_populations() -> dict[str, Path]:
    """The shipped population parameter files, by name ('poblacion-geb'); none if the
    project's examples are not installed with it."""
    return {path.stem: path for path in sorted(EXAMPLES.glob("poblacion-*.yaml"))}


def spec_size(path: Path) -> int:
    """How many acceptants a population parameter file describes."""
    return load_population_spec(path).size


class TooMany(ValueError):
    """A file with more acceptances than its reader takes: how many it has, before any is
    typed or checked."""

    def __init__(self, size: int) -> None:
        super().__init__(f"la población tiene {group(size)} aceptantes")
        self.size = size


def _current(offer_id: int) -> ColumnElement[bool]:
    a = acceptances.c
    return and_(a.oferta_id == offer_id, a.vigente, a.estado != WITHDRAWN)


def offer_size(engine: Engine, code: str) -> int:
    """How many current acceptances an offer has (withdrawn ones left out)."""
    with engine.connect() as conn:
        stored = load_offer(conn, code)
        found = conn.execute(select(func.count()).where(_current(stored.id))).scalar_one()
    return int(found)


def from_offer(engine: Engine, code: str) -> pl.DataFrame:
    """The offer's current acceptances, typed as the engine reads them, with radicados and
    their order of receipt."""
    schema = {"radicado": pl.String(), "recepcion": pl.Int64(), **typed_schema()}
    schema.pop("fila")
    schema.pop("cantidad_fraccionaria")
    with engine.connect() as conn:
        stored = load_offer(conn, code)
        statement = select(*(acceptances.c[name] for name in schema)).where(_current(stored.id))
        frame = read_frame(conn, statement, schema)
    return frame.with_columns(
        pl.int_range(1, pl.len() + 1).alias("fila"),
        pl.lit(False).alias("cantidad_fraccionaria"),
    ).select(["radicado", "recepcion", *typed_schema()])


def from_file(path: Path, most: int | None = None) -> pl.DataFrame:
    """Acceptances from a file in the acceptance format, read and checked as a broker's batch
    (refused whole if any cell is bad); more than ``most`` rows are refused (``TooMany``)
    once read, before they are typed."""
    raw = read_table(path)
    if most is not None and raw.frame.height > most:
        raise TooMany(raw.frame.height)
    return parse(raw)


def from_spec(path: Path, base: Design) -> pl.DataFrame:
    """A synthetic population and what each asks for under the base design."""
    return synthetic(load_population_spec(path), base)


def synthetic(spec: PopulationSpec, base: Design) -> pl.DataFrame:
    """The population a parameter file describes, each asking for their share of the limit
    the base design leaves them."""
    share = spec.request.share_of_limit
    return requested(population(spec), base.offer, share.low, share.high, spec.seed)
