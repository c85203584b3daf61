"""The audit log: every service change leaves an entry; tampering shows; no fork under load."""

from __future__ import annotations

import threading

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, delete, select, update

from democratiza.adjudication.record import adjudicate, publish
from democratiza.filing.batches import withdraw
from democratiza.storage import audit
from democratiza.storage.schema import acceptances, audit_log
from democratiza.web.app import create_app
from tests.test_web_support import (
    BROKER_A,
    CODE,
    add_people,
    file_samples,
    log_in,
    move,
    open_offer,
)


def actions(engine: Engine) -> list[str]:
    with engine.connect() as conn:
        return list(conn.execute(select(audit_log.c.accion).order_by(audit_log.c.id)).scalars())


def first_radicado(engine: Engine) -> str:
    """The radicado received first (the order of receipt, not the radicados' own order)."""
    with engine.connect() as conn:
        first = select(acceptances.c.radicado).order_by(acceptances.c.recepcion).limit(1)
        return str(conn.execute(first).scalar_one())


def test_every_change_of_a_primera_etapa_is_in_the_chain(engine: Engine) -> None:
    open_offer(engine)
    file_samples(engine)
    with engine.connect() as conn:
        radicado = conn.execute(
            select(audit_log.c.entidad).where(audit_log.c.accion == "lote.recibir")
        ).first()
    assert radicado is not None
    withdraw(engine, CODE, first_radicado(engine), "scb", "el aceptante desistió")
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


def test_an_anchor_detects_the_newest_entries_removed_or_rewritten(engine: Engine) -> None:
    open_offer(engine)  # entries 1 and 2: the offer created and opened
    file_samples(engine)  # 3 and 4: two batches received
    with engine.connect() as conn:
        kept = audit.anchor(conn)
    assert kept.entries == 4 and audit.Anchor.parse(kept.text()) == kept
    move(engine, "cerrada")  # 5: later entries do not disturb the anchor
    with engine.connect() as conn:
        assert audit.verify(conn, kept).ok
    # The two newest entries removed: the chain left is whole, only the anchor tells.
    with engine.begin() as conn:
        conn.execute(delete(audit_log).where(audit_log.c.id >= 4))
    with engine.connect() as conn:
        assert audit.verify(conn).ok
        cut = audit.verify(conn, kept)
    assert (cut.ok, cut.entries, cut.broken_at) == (False, 3, 4)
    assert "faltan las entradas 4 a 4" in cut.message()
    # Rewritten from there with new entries: the number is reached, with another hash.
    with engine.begin() as conn:
        for n in (1, 2):
            audit.append(conn, "alguien", "otra.cosa", f"cosas/{n}", None, {"n": n})
    with engine.connect() as conn:
        assert audit.verify(conn).ok
        forged = audit.verify(conn, kept)
    assert (forged.ok, forged.broken_at) == (False, 4)
    assert "no es la entrada que se ancló" in forged.message()


def test_the_auditors_take_and_check_an_anchor_on_the_web(engine: Engine) -> None:
    open_offer(engine)
    add_people(engine)
    with TestClient(create_app(engine)) as auditor:
        log_in(auditor, "auditor")
        taken = auditor.get("/api/auditoria/ancla").json()
        last = taken["entradas"]  # the offer created and opened, the four people
        assert last == 6 and taken["ancla"] == f"6:{taken['huella']}"
        page = auditor.get("/auditoria").text
        assert taken["ancla"] in page
        good = auditor.get("/api/auditoria/verificacion", params={"ancla": taken["ancla"]})
        assert good.json()["integra"] is True
        with engine.begin() as conn:
            conn.execute(delete(audit_log).where(audit_log.c.id == last))
        cut = auditor.get("/api/auditoria/verificacion", params={"ancla": taken["ancla"]})
        assert cut.json()["integra"] is False and cut.json()["rota_en"] == last
        shown = auditor.get("/auditoria/verificacion", params={"ancla": taken["ancla"]}).text
        assert "faltan las entradas 6 a 6" in shown
        bad = auditor.get("/api/auditoria/verificacion", params={"ancla": "6:xyz"})
        assert bad.status_code == 422 and "ancla no válida" in bad.json()["detalle"]


def test_an_anchor_is_written_number_colon_hash() -> None:
    digest = "ab" * 32
    assert audit.Anchor.parse(f" 12:{digest.upper()} ") == audit.Anchor(12, digest)
    for bad in ("12", f"x:{digest}", "12:abc", f"12:{'g' * 64}", f"-1:{digest}"):
        with pytest.raises(ValueError, match="ancla no válida"):
            audit.Anchor.parse(bad)


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
