"""Helpers for the storage tests (no tests here): a database that refuses some writes."""

from __future__ import annotations

from sqlalchemy import Engine, text

REFUSAL = "disco lleno (simulado)"


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
