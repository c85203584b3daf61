"""The migrated database is exactly the schema the code describes, on both databases."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
import yaml
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Connection, Engine, delete, select, text, update
from sqlalchemy.exc import DBAPIError

from democratiza.filing.batches import import_batch
from democratiza.offers.lifecycle import OfferError, advance, create_offer, load_offer
from democratiza.storage.bulk import BulkWriteRefused, rows_with_keys, write_rows
from democratiza.storage.database import migrate
from democratiza.storage.schema import acceptances, batches, metadata, offers

SAMPLE = Path(__file__).parents[1] / "examples/primera-etapa"


def differences(conn: Connection) -> list[Any]:
    """What the database lacks or has beyond the metadata.

    On PostgreSQL migration 0005 replaces the two row-by-row foreign keys of ``aceptaciones``
    (to ``ofertas`` and ``lotes``) with statement triggers; they are the only difference
    allowed, and the tests below prove the triggers refuse what the keys refused.
    """
    found: list[Any] = compare_metadata(MigrationContext.configure(conn), metadata)
    if conn.dialect.name != "postgresql":
        return found
    replaced = {("aceptaciones", ("lote_id",)), ("aceptaciones", ("oferta_id",))}
    kept = []
    for diff in found:
        if diff[0] == "add_fk":
            key = (diff[1].parent.name, tuple(c.name for c in diff[1].columns))
            if key in replaced:
                replaced.remove(key)
                continue
        kept.append(diff)
    assert not replaced, f"foreign keys expected to be replaced but present: {replaced}"
    return kept


def test_migrations_create_exactly_the_described_schema(engine: Engine) -> None:
    with engine.connect() as conn:
        assert differences(conn) == []


def test_the_migrations_are_one_line_from_the_first_to_the_last() -> None:
    """Each revision revises the one before it: a database is always at one known point."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from democratiza.storage.database import MIGRATIONS

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    script = ScriptDirectory.from_config(config)
    chain = [r.revision for r in script.walk_revisions()]
    assert script.get_heads() == [chain[0]]
    assert chain == sorted(chain, reverse=True)
    assert all(len(r.revision) == 4 for r in script.walk_revisions())


def test_migrating_twice_changes_nothing(engine: Engine) -> None:
    migrate(engine)
    with engine.connect() as conn:
        assert differences(conn) == []


@pytest.fixture
def two_offers(engine: Engine) -> Engine:
    """Offer ``uno`` with one batch of acceptances, and offer ``dos`` with none."""
    params = yaml.safe_load((SAMPLE / "oferta.yaml").read_text(encoding="utf-8"))
    with engine.begin() as conn:
        for code in ("uno", "dos"):
            stored = create_offer(conn, code, "central-seguros-vida", params, "oficina", "aviso")
            advance(conn, stored, "abierta", "oficina", "apertura")
    import_batch(
        engine, "uno", SAMPLE / "lote-1-casa-de-bolsa.csv", "Casa de Bolsa", "L1", "prueba"
    )
    return engine


def refused(engine: Engine, statement: Any) -> None:
    """The database refuses the statement and nothing changes."""
    with (
        pytest.raises(DBAPIError, match=r"(?i)foreign key|aceptaci|lote"),
        engine.begin() as conn,
    ):
        conn.execute(statement)


def test_an_acceptance_must_name_a_batch_of_its_own_offer(two_offers: Engine) -> None:
    with two_offers.connect() as conn:
        other = load_offer(conn, "dos").id
        missing = int(conn.execute(text("SELECT max(id) + 1 FROM lotes")).scalar_one())
    refused(two_offers, update(acceptances).values(oferta_id=other))
    refused(two_offers, update(acceptances).values(lote_id=missing))
    with two_offers.connect() as conn:
        offers_named = text("SELECT count(DISTINCT oferta_id) FROM aceptaciones")
        assert conn.execute(offers_named).scalar() == 1


def test_a_bulk_write_of_an_acceptance_without_its_batch_is_refused_whole(
    two_offers: Engine,
) -> None:
    """The bulk path (COPY on PostgreSQL) is checked too, and the good rows go with the bad."""
    with two_offers.connect() as conn:
        rows = [dict(r) for r in conn.execute(select(acceptances).limit(2)).mappings()]
        missing = int(conn.execute(text("SELECT max(id) + 1 FROM lotes")).scalar_one())
    for n, row in enumerate(rows):
        del row["id"]
        row["radicado"] = f"copia-{n}"
    rows[1]["lote_id"] = missing
    with (
        pytest.raises((BulkWriteRefused, DBAPIError), match="sin lote de su oferta"),
        two_offers.begin() as conn,
    ):
        write_rows(conn, acceptances, pl.DataFrame(rows))
    with two_offers.connect() as conn:
        copies = text("SELECT count(*) FROM aceptaciones WHERE radicado LIKE 'copia-%'")
        assert conn.execute(copies).scalar() == 0
    with two_offers.begin() as conn:  # the good row alone is written
        write_rows(conn, acceptances, pl.DataFrame(rows[:1]))
    with two_offers.connect() as conn:
        assert conn.execute(copies).scalar() == 1


@pytest.fixture
def many_batches(two_offers: Engine) -> Engine:
    """PostgreSQL with 3.000 more batches of offer ``uno``, and no statistics yet: a new
    database before autovacuum first analyses it, when the planner guesses sizes."""
    if two_offers.dialect.name != "postgresql":
        pytest.skip("what the PostgreSQL planner chooses without statistics")
    with two_offers.begin() as conn:
        model = dict(conn.execute(select(batches).limit(1)).mappings().one())
        del model["id"]
        conn.execute(batches.insert(), [{**model, "lote": f"relleno-{n}"} for n in range(3_000)])
    return two_offers


# The backend's counts so far in this transaction (PostgreSQL 15 includes those not yet
# reported): compared before and after a statement, in the same transaction.
READS = text("SELECT seq_scan, idx_tup_fetch FROM pg_stat_xact_user_tables WHERE relname = :table")


def reads(conn: Connection, table: str) -> tuple[int, int]:
    seq_scans, fetched = conn.execute(READS, {"table": table}).one()
    return int(seq_scans), int(fetched)


def test_checking_the_batches_of_new_acceptances_does_not_read_every_batch(
    many_batches: Engine,
) -> None:
    """Every single acceptance is a batch, so ``lotes`` grows with each; the statement
    trigger (migration 0006) looks up each batch it checks by its key."""
    with many_batches.connect() as conn:
        rows = [dict(r) for r in conn.execute(select(acceptances).limit(2)).mappings()]
    for n, row in enumerate(rows):
        del row["id"]
        row["radicado"] = f"copia-{n}"
    with many_batches.begin() as conn:
        before = reads(conn, "lotes")
        write_rows(conn, acceptances, pl.DataFrame(rows))
        after = reads(conn, "lotes")
    # One batch named by the two rows: one row fetched by the primary key, no scan.
    assert (after[0] - before[0], after[1] - before[1]) == (0, 1)


def test_rows_are_looked_up_by_their_keys_without_reading_the_table(
    many_batches: Engine,
) -> None:
    """The intake's lookups (resent single acceptances, corrected references) fetch the
    rows they ask for, not every row of the offer."""
    with many_batches.begin() as conn:
        offer_id = load_offer(conn, "uno").id
        wanted = pl.DataFrame(
            {"comisionista": ["Casa de Bolsa"] * 3, "lote": ["relleno-7", "L1", "no-existe"]}
        )
        before = reads(conn, "lotes")
        found = rows_with_keys(conn, batches, wanted, ["lote"], {"oferta_id": offer_id})
        after = reads(conn, "lotes")
        assert sorted(r.lote for r in found) == ["L1", "relleno-7"]
        assert (after[0] - before[0], after[1] - before[1]) == (0, 2)

        references = conn.execute(select(acceptances.c.referencia).limit(3)).scalars().all()
        wanted = pl.DataFrame({"comisionista": ["Casa de Bolsa"] * 3, "referencia": references})
        before = reads(conn, "aceptaciones")
        found = rows_with_keys(
            conn, acceptances, wanted, ["referencia"], {"oferta_id": offer_id, "vigente": True}
        )
        after = reads(conn, "aceptaciones")
        assert sorted(r.referencia for r in found) == sorted(references)
        assert (after[0] - before[0], after[1] - before[1]) == (0, 3)


def temporary_files(conn: Connection) -> int:
    """Temporary files this database has written so far, this connection's included."""
    conn.execute(text("SELECT pg_stat_force_next_flush()"))
    conn.commit()  # the connection reports its counts once idle, here at once
    conn.execute(text("SELECT pg_stat_clear_snapshot()"))
    files = "SELECT temp_files FROM pg_stat_database WHERE datname = current_database()"
    count = int(conn.execute(text(files)).scalar_one())
    conn.commit()
    return count


def test_a_large_bulk_write_keeps_its_new_rows_in_memory(two_offers: Engine) -> None:
    """The statement trigger reads the COPY's new rows from a store; for 20.000 acceptances
    (about 6 MB) it stays in memory instead of spilling to a temporary file."""
    if two_offers.dialect.name != "postgresql":
        pytest.skip("statement triggers with the new rows are PostgreSQL's")
    with two_offers.connect() as conn:
        row = dict(conn.execute(select(acceptances).limit(1)).mappings().one())
        del row["id"]
        many = pl.DataFrame([row]).select(pl.all().repeat_by(20_000).explode())
        many = many.with_columns(pl.format("copia-{}", pl.int_range(pl.len())).alias("radicado"))
        before = temporary_files(conn)
        with conn.begin():
            write_rows(conn, acceptances, many)
        assert temporary_files(conn) == before
        stored = "SELECT count(*) FROM aceptaciones WHERE radicado LIKE 'copia-%'"
        assert conn.execute(text(stored)).scalar() == 20_000


def test_a_batch_or_offer_with_acceptances_cannot_be_removed(two_offers: Engine) -> None:
    refused(two_offers, delete(batches))
    refused(two_offers, delete(offers).where(offers.c.codigo == "uno"))
    with two_offers.connect() as conn:
        batch_id = int(conn.execute(text("SELECT min(id) FROM lotes")).scalar_one())
    refused(two_offers, update(batches).values(id=batch_id + 1000))
    if two_offers.dialect.name == "postgresql":
        refused(two_offers, text("TRUNCATE lotes CASCADE"))
    with two_offers.begin() as conn:  # an offer without acceptances can still change
        conn.execute(update(offers).where(offers.c.codigo == "dos").values(estado="cerrada"))


def test_a_state_changes_only_from_the_state_the_caller_saw(two_offers: Engine) -> None:
    """Two clerks both saw the offer open; the second one's close is refused, not repeated."""
    with two_offers.connect() as conn:
        seen_by_both = load_offer(conn, "dos")
    with two_offers.begin() as conn:
        advance(conn, seen_by_both, "cerrada", "primero", "cierre")
    with (
        pytest.raises(OfferError, match="cambió de estado mientras tanto"),
        two_offers.begin() as conn,
    ):
        advance(conn, seen_by_both, "cerrada", "segundo", "cierre")
    with two_offers.connect() as conn:
        closings = conn.execute(
            text("SELECT count(*) FROM eventos_oferta WHERE a_estado = 'cerrada'")
        ).scalar()
    assert closings == 1


def test_a_bulk_write_on_sqlite_stores_each_value_as_sqlalchemy_binds_it(tmp_path: Path) -> None:
    """The fast SQLite path writes the very text and types SQLAlchemy's own INSERT writes."""
    from datetime import date, datetime

    from sqlalchemy import (
        BigInteger,
        Boolean,
        Column,
        Date,
        DateTime,
        Integer,
        MetaData,
        String,
        Table,
        insert,
    )

    from democratiza.storage.bulk import sqlite_values
    from democratiza.storage.database import make_engine

    kinds = MetaData()
    fast, plain = (
        Table(
            name,
            kinds,
            Column("id", Integer, primary_key=True),
            Column("cuando", DateTime),
            Column("dia", Date),
            Column("si", Boolean),
            Column("n", BigInteger),
            Column("texto", String),
        )
        for name in ("rapida", "comun")
    )
    rows = pl.DataFrame(
        {
            "cuando": [datetime(2026, 12, 1, 15, 30), datetime(2026, 1, 2, 3, 4, 5, 6), None],
            "dia": [date(2026, 12, 1), None, date(1999, 1, 9)],
            "si": [True, False, None],
            "n": [1, -(2**40), None],
            "texto": ["ñandú", "", None],
        }
    )
    engine = make_engine(f"sqlite:///{tmp_path / 'tipos.db'}")
    kinds.create_all(engine)
    assert sqlite_values(fast, rows) is not None  # every column goes the fast way
    with engine.begin() as conn:
        write_rows(conn, fast, rows)
        conn.execute(insert(plain), rows.to_dicts())  # SQLAlchemy binds each value
        shown = ", ".join(f"typeof({c}), {c}" for c in rows.columns)
        read = [
            conn.exec_driver_sql(f"SELECT {shown} FROM {t} ORDER BY id").all()
            for t in ("rapida", "comun")
        ]
    assert read[0] == read[1]
    assert read[0][0][:2] == ("text", "2026-12-01 15:30:00.000000")
