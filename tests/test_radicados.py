"""A radicado tells a broker nothing about other brokers; the order of receipt is kept apart.

Casa de Bolsa's tag is CLYF and Acciones y Valores' is MFZJ (``storage.radicados``). Before,
a radicado was ``<batch id>-<row>`` with one sequence of batch ids for every broker: the
broker that got ``000017-000001`` knew that sixteen batches had been filed before its own.
Now each broker counts only its own batches, and the order of receipt that Ley 226 leaves
to the system (which filing consumes a person's limit first) is a column of its own.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select, text

from democratiza.adjudication.record import adjudicate
from democratiza.filing.batches import import_batch
from democratiza.storage.database import MIGRATIONS, make_engine, migrate
from democratiza.storage.radicados import broker_tag, take_batch_numbers, take_many_batch_numbers
from democratiza.storage.schema import acceptances, batches, broker_counters
from democratiza.web.app import create_app
from tests.test_receipt_order import one_row
from tests.test_web_support import BROKER_A, BROKER_B, CODE, SAMPLE, bearer, move, open_offer


def test_a_brokers_tag_is_drawn_from_its_name_and_never_shared_in_an_offer() -> None:
    assert (broker_tag("Casa de Bolsa"), broker_tag("Acciones y Valores")) == ("CLYF", "MFZJ")
    # Had another broker of the offer drawn CLYF first, Casa de Bolsa takes the next letters.
    assert broker_tag("Casa de Bolsa", taken={"CLYF"}) == "LYFO"
    assert broker_tag("Casa de Bolsa", taken={"CLYF", "LYFO"}) == "YFOT"


def test_a_broker_counts_only_its_own_batches(engine: Engine, tmp_path: Path) -> None:
    open_offer(engine)
    for n in range(1, 4):  # Casa de Bolsa files three batches
        row = one_row(tmp_path, f"a{n}.csv", referencia=f"CB-{n}")
        done = import_batch(engine, CODE, row, BROKER_A, f"A{n}", "scb")
        assert done.number == n
        assert done.decisions["radicado"].to_list() == [f"CLYF-{n:06d}-0000001"]
    # Acciones y Valores then files its first: nothing in it counts Casa de Bolsa's.
    theirs = import_batch(
        engine, CODE, SAMPLE / "lote-2-acciones-y-valores.csv", BROKER_B, "B1", "ayv"
    )
    assert theirs.number == 1 and theirs.batch_id == 4  # the database's id is not shown
    assert theirs.decisions["radicado"][0] == "MFZJ-000001-0000001"
    assert theirs.decisions["radicado"][-1] == f"MFZJ-000001-{theirs.rows:07d}"
    with TestClient(create_app(engine), headers=bearer(engine, BROKER_B)) as client:
        listed = client.get(f"/api/ofertas/{CODE}/lotes").json()
        body = (SAMPLE / "lote-2-acciones-y-valores.csv").read_bytes()
        sent = client.post(
            f"/api/ofertas/{CODE}/lotes", files={"archivo": ("b.csv", body)}, data={"lote": "B1"}
        ).json()
    assert [(b["numero"], b["lote"]) for b in listed] == [(1, "B1")]
    assert "id" not in listed[0]
    assert sent["numero_lote"] == 1 and "lote_id" not in sent  # the resend's answer


def test_the_order_of_receipt_decides_where_the_radicados_sort_otherwise(
    engine: Engine, tmp_path: Path
) -> None:
    # One person through two brokers, each filing the person's whole limit. Acciones y
    # Valores (MFZJ) files first; Casa de Bolsa's radicado (CLYF) sorts before it but was
    # received second, and is the one left with nothing.
    open_offer(engine)
    first = one_row(tmp_path, "b.csv", comisionista=BROKER_B, referencia="AV-1", cantidad="2000000")
    second = one_row(tmp_path, "a.csv", cantidad="2000000")
    earlier = import_batch(engine, CODE, first, BROKER_B, "B1", "ayv").decisions["radicado"][0]
    later = import_batch(engine, CODE, second, BROKER_A, "A1", "scb").decisions["radicado"][0]
    assert later < earlier
    move(engine, "cerrada")
    results = adjudicate(engine, CODE, "oficina", "adjudicación").results
    by_radicado = {r["radicado"]: r for r in results.iter_rows(named=True)}
    assert by_radicado[earlier]["cantidad_persona"] > 0
    assert by_radicado[later]["cantidad_persona"] == 0
    assert by_radicado[later]["consumido_por"] == earlier
    assert results["radicado"].to_list() == [earlier, later]  # the record lists them so


def test_a_tag_another_broker_took_first_moves_to_the_next_letters(engine: Engine) -> None:
    open_offer(engine)
    with engine.begin() as conn:
        row = {"ambito": "oferta:1", "comisionista": "Otra", "prefijo": "CLYF", "ultimo_lote": 1}
        conn.execute(broker_counters.insert().values(**row))
        where = {"oferta_id": 1}
        assert take_batch_numbers(conn, "oferta:1", BROKER_A, 2, batches, where) == ("LYFO", 1)
        assert take_batch_numbers(conn, "oferta:1", BROKER_A, 1, batches, where) == ("LYFO", 3)


def test_two_transactions_of_one_broker_never_take_the_same_number(db_url: str) -> None:
    if not db_url.startswith("postgresql"):
        pytest.skip("SQLite has one writer at a time: the question does not arise")
    engine = make_engine(db_url)
    migrate(engine)
    open_offer(engine)
    where = {"oferta_id": 1}
    with engine.begin() as conn:  # the broker's counter exists: both transactions update it
        take_batch_numbers(conn, "oferta:1", BROKER_A, 1, batches, where)
    taken: list[int] = []
    holding = threading.Event()

    def second() -> None:
        holding.wait(10)
        with engine.begin() as conn:
            taken.append(take_batch_numbers(conn, "oferta:1", BROKER_A, 1, batches, where)[1])

    other = threading.Thread(target=second)
    other.start()
    with engine.begin() as conn:
        taken.append(take_batch_numbers(conn, "oferta:1", BROKER_A, 1, batches, where)[1])
        holding.set()
        other.join(0.5)
        assert other.is_alive()  # waiting for this transaction's counter row
    other.join(10)
    engine.dispose()
    assert taken == [2, 3]


def _at(engine: Engine, revision: str, downgrade: bool = False) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        (command.downgrade if downgrade else command.upgrade)(config, revision)


def test_the_migration_keeps_the_order_of_radicados_stored_before_it(
    engine: Engine, tmp_path: Path
) -> None:
    open_offer(engine)
    import_batch(engine, CODE, SAMPLE / "lote-1-casa-de-bolsa.csv", BROKER_A, "A1", "x")
    import_batch(engine, CODE, SAMPLE / "lote-2-acciones-y-valores.csv", BROKER_B, "B1", "x")
    import_batch(engine, CODE, one_row(tmp_path, "a2.csv", referencia="CB-2"), BROKER_A, "A2", "x")
    with engine.connect() as conn:
        before = dict(conn.execute(select(acceptances.c.id, acceptances.c.recepcion)).all())
        numbers = dict(conn.execute(select(batches.c.id, batches.c.numero)).all())
    assert numbers == {1: 1, 2: 1, 3: 2}
    _at(engine, "0011", downgrade=True)
    with engine.begin() as conn:  # the radicados as they were written before 0012
        for row_id, receipt in before.items():
            old = f"{receipt // 10**9:06d}-{receipt % 10**9:06d}"
            conn.execute(
                text("UPDATE aceptaciones SET radicado = :r WHERE id = :i"), {"r": old, "i": row_id}
            )
    _at(engine, "head")
    with engine.connect() as conn:
        after = dict(conn.execute(select(acceptances.c.id, acceptances.c.recepcion)).all())
        assert dict(conn.execute(select(batches.c.id, batches.c.numero)).all()) == numbers
    assert after == before
    # A batch after the migration continues the broker's own count.
    third = import_batch(
        engine, CODE, one_row(tmp_path, "a3.csv", referencia="CB-3"), BROKER_A, "A3", "x"
    )
    assert third.number == 3 and third.decisions["radicado"][0] == "CLYF-000003-0000001"


def test_a_large_batch_being_written_does_not_hold_its_brokers_counter(
    db_url: str, tmp_path: Path
) -> None:
    # The numbers are taken in a short transaction of their own: while Casa de Bolsa's batch
    # is still being written, a single acceptance of the same broker (grouped with other
    # brokers' singles) takes its number at once instead of waiting for that commit.
    if not db_url.startswith("postgresql"):
        pytest.skip("SQLite has one writer at a time: every write waits for the batch anyway")
    engine = make_engine(db_url)
    migrate(engine)
    open_offer(engine)
    taken: list[tuple[str, int]] = []

    def meanwhile() -> None:  # inside the batch's transaction, just before its commit
        with engine.begin() as conn:
            conn.execute(text("SET LOCAL lock_timeout = '2s'"))
            taken.append(take_batch_numbers(conn, "oferta:1", BROKER_A, 1, batches, {}))

    import_batch(engine, CODE, SAMPLE / "lote-1-casa-de-bolsa.csv", BROKER_A, "A1", "x", meanwhile)
    engine.dispose()
    assert taken == [("CLYF", 2)]


def test_single_acceptances_of_several_brokers_take_their_numbers_at_once(engine: Engine) -> None:
    open_offer(engine)
    where = {"oferta_id": 1}
    with engine.begin() as conn:
        take_batch_numbers(conn, "oferta:1", BROKER_A, 1, batches, where)  # Casa de Bolsa: 1
        taken = take_many_batch_numbers(
            conn, "oferta:1", {BROKER_A: 2, BROKER_B: 3}, batches, where
        )
    # Casa de Bolsa's next two are 2 and 3; Acciones y Valores, new here, starts at 1.
    assert taken == {BROKER_A: ("CLYF", 2), BROKER_B: ("MFZJ", 1)}
    with engine.begin() as conn:
        again = take_many_batch_numbers(
            conn, "oferta:1", {BROKER_A: 1, BROKER_B: 1}, batches, where
        )
    assert again == {BROKER_A: ("CLYF", 4), BROKER_B: ("MFZJ", 4)}
