"""The audit log: every service change leaves an entry; tampering shows; no fork under load."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import Engine, delete, select, update

from democratiza.adjudication.record import adjudicate, publish
from democratiza.intake.batches import withdraw
from democratiza.storage import audit
from democratiza.storage.schema import audit_log
from tests.test_web_support import BROKER_A, CODE, file_samples, move, open_offer


def actions(engine: Engine) -> list[str]:
    with engine.connect() as conn:
        return list(conn.execute(select(audit_log.c.accion).order_by(audit_log.c.id)).scalars())


def test_every_change_of_a_primera_etapa_is_in_the_chain(engine: Engine) -> None:
    open_offer(engine)
    file_samples(engine)
    with engine.connect() as conn:
        radicado = conn.execute(
            select(audit_log.c.entidad).where(audit_log.c.accion == "lote.recibir")
        ).first()
    assert radicado is not None
    withdraw(engine, CODE, "000001-000001", "scb", "el aceptante desistió")
    move(engine, "cerrada")
    adjudicate(engine, CODE, "bolsa", "adjudicación")
    publish(engine, CODE, "oficina", "publicación")
    assert actions(engine) == [
        "oferta.creacion",
        "oferta.transicion",  # abierta
        "lote.recibir",
        "lote.recibir",
        "aceptacion.retirar",
        "oferta.transicion",  # cerrada
        "oferta.adjudicar",
        "oferta.transicion",  # adjudicada
        "oferta.transicion",  # publicada
    ]
    with engine.connect() as conn:
        report = audit.verify(conn)
        first = audit.entries(conn, 1)[0]
    assert report.ok and report.entries == 9
    assert "íntegra: 9 entradas" in report.message()
    assert first["quien"] == "oficina" and '"publicada"' in first["despues"]


def test_editing_an_entry_breaks_the_chain_at_that_entry(engine: Engine) -> None:
    open_offer(engine)
    file_samples(engine)
    with engine.begin() as conn:
        conn.execute(
            update(audit_log)
            .where(audit_log.c.id == 3)
            .values(despues=f'{{"comisionista":"{BROKER_A}","filas":1}}')
        )
    with engine.connect() as conn:
        report = audit.verify(conn)
    assert (report.ok, report.broken_at, report.entries) == (False, 3, 2)
    assert "rota en la entrada 3" in report.message()


def test_deleting_or_rechaining_an_entry_is_detected(engine: Engine) -> None:
    open_offer(engine)
    file_samples(engine)
    with engine.begin() as conn:
        conn.execute(delete(audit_log).where(audit_log.c.id == 2))
    with engine.connect() as conn:
        gap = audit.verify(conn)
    assert (gap.broken_at, gap.reason) == (2, "falta la entrada 2 (sigue la 3)")
    # Rewriting a whole entry with a fresh hash still breaks the link to the next one.
    with engine.begin() as conn:
        row = conn.execute(select(audit_log).where(audit_log.c.id == 3)).one()
        forged = audit.entry_hash(
            row.huella_anterior, 3, row.cuando, "otro", row.accion, row.entidad, row.antes, None
        )
        conn.execute(
            update(audit_log)
            .where(audit_log.c.id == 3)
            .values(quien="otro", despues=None, huella=forged)
        )
        conn.execute(delete(audit_log).where(audit_log.c.id == 1))
    with engine.connect() as conn:
        assert audit.verify(conn).broken_at == 1


def test_concurrent_writers_never_fork_the_chain(engine: Engine) -> None:
    """Eight threads append 25 entries each at once: one straight chain of 200."""
    if engine.dialect.name != "postgresql":
        pytest.skip("la concurrencia de escritores se prueba en PostgreSQL")
    start = threading.Barrier(8)
    failures: list[BaseException] = []

    def writer(n: int) -> None:
        start.wait()
        try:
            for i in range(25):
                with engine.begin() as conn:
                    audit.append(conn, f"hilo-{n}", "prueba", f"x/{i}", None, {"i": i})
        except BaseException as exc:  # reported below
            failures.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    with engine.connect() as conn:
        report = audit.verify(conn)
        previous = conn.execute(select(audit_log.c.huella_anterior)).scalars().all()
    assert report.ok and report.entries == 200
    assert len(set(previous)) == 200
