"""Helpers for the storage tests (no tests here): an adjudicated sample offer, and a
database that refuses some writes."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import polars as pl
import yaml
from sqlalchemy import Engine, text

from democratiza.adjudication.record import adjudicate
from democratiza.filing.batches import import_batch
from democratiza.offers.lifecycle import advance, create_offer, load_offer

SAMPLE = Path(__file__).parents[1] / "examples/primera-etapa"
REFUSAL = "disco lleno (simulado)"
# The sample's adjudication, a business date after its close (2018-02-26): sales, payments
# and Central's fine bands count from it.
ADJUDICATED = date(2018, 3, 1)


def refuse_acceptances_where(engine: Engine, condition: str) -> None:
    """From now on the database refuses each acceptance row matching ``condition`` (SQL on
    ``NEW``), with ``REFUSAL``, as a full disk would, after the rows before it were written."""
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(
                text(f"""
                CREATE FUNCTION rechazar() RETURNS trigger AS $$
                BEGIN RAISE EXCEPTION '{REFUSAL}'; END $$ LANGUAGE plpgsql""")
            )
            conn.execute(
                text(f"""
                CREATE TRIGGER rechazo BEFORE INSERT ON aceptaciones FOR EACH ROW
                WHEN ({condition}) EXECUTE FUNCTION rechazar()""")
            )
        else:
            conn.execute(
                text(f"""
                CREATE TRIGGER rechazo BEFORE INSERT ON aceptaciones
                WHEN {condition}
                BEGIN SELECT RAISE(ABORT, '{REFUSAL}'); END""")
            )


def adjudicate_sample(
    engine: Engine, code: str, program: str = "central-seguros-vida"
) -> pl.DataFrame:
    """Central's sample offer (``examples/primera-etapa``) with Casa de Bolsa's batch,
    closed and adjudicated; the adjudication's results by radicado. ``program``: an id or
    the path of a program file (a variant of Central's)."""
    params = yaml.safe_load((SAMPLE / "oferta.yaml").read_text(encoding="utf-8"))
    with engine.begin() as conn:
        stored = create_offer(conn, code, program, params, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "apertura")
    import_batch(engine, code, SAMPLE / "lote-1-casa-de-bolsa.csv", "Casa de Bolsa", "L1", "x")
    with engine.begin() as conn:
        advance(conn, load_offer(conn, code), "cerrada", "oficina", "cierre")
    return adjudicate(engine, code, "bolsa", "adjudicación", ADJUDICATED).results.sort("radicado")
