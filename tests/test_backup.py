"""Backups that restore, on both databases: ``democratiza respaldo crear`` and ``restaurar``.

Worked example: an offer with the two sample batches, closed and adjudicated; the copy is
taken, and afterwards another offer is opened and filed. Restored into a new database, the
copy brings back every offer, batch, acceptance and award as they were when it was taken
(the later offer is not there), its audit chain verifies and ends at the copy's anchor; a
second restore into that database, which now has data, is refused unless ``--sobrescribir``.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, make_url, select, text
from typer.testing import CliRunner

from democratiza.adjudication.record import adjudicate
from democratiza.cli.main import app
from democratiza.filing.batches import import_batch
from democratiza.storage import audit
from democratiza.storage.database import make_engine
from democratiza.storage.schema import (
    acceptances,
    adjudications,
    audit_log,
    awards,
    batches,
    offers,
)
from tests.conftest import _admin
from tests.test_web_support import BROKER_A, CODE, SAMPLE, add_people, move, open_offer

COMPARED = (offers, batches, acceptances, adjudications, awards, audit_log)
runner = CliRunner()


@pytest.fixture
def new_url(db_url: str, tmp_path: Path) -> Iterator[str]:
    """An empty database of the same kind as the source, never migrated."""
    if db_url.startswith("sqlite"):
        yield f"sqlite:///{tmp_path / 'restaurada.db'}"
        return
    name = f"{make_url(db_url).database}_copia_{uuid.uuid4().hex[:6]}"
    admin = _admin()
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    yield make_url(db_url).set(database=name).render_as_string(hide_password=False)
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def rows(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    with engine.connect() as conn:
        return {
            t.name: [tuple(r) for r in conn.execute(select(t).order_by(*t.primary_key.columns))]
            for t in COMPARED
        }


def test_a_copy_restores_what_the_database_held_when_it_was_taken(
    engine: Engine, db_url: str, new_url: str, tmp_path: Path
) -> None:
    add_people(engine)
    open_offer(engine)
    import_batch(engine, CODE, SAMPLE / "lote-1-casa-de-bolsa.csv", BROKER_A, "L1", "scb")
    move(engine, "cerrada")
    adjudicate(engine, CODE, "oficina", "adjudicación")
    then = rows(engine)
    assert then["adjudicados"] and then["aceptaciones"] and then["auditoria"]
    copy = tmp_path / "copias" / "respaldo.copia"

    made = runner.invoke(app, ["respaldo", "crear", str(copy), "--db", db_url])
    assert made.exit_code == 0, made.output
    assert "La cadena de auditoría está íntegra" in made.output
    manifest = json.loads((tmp_path / "copias" / "respaldo.copia.json").read_text())
    assert manifest["tablas"]["aceptaciones"] == len(then["aceptaciones"])
    total = sum(manifest["tablas"].values())
    tables = len(manifest["tablas"])
    said = " ".join(made.output.split())  # counts with thousands dots
    assert f"Filas: {total:,} en {tables} tablas (".replace(",", ".") in said, said
    with engine.connect() as conn:
        assert manifest["ancla"] == audit.anchor(conn).text()
    again = runner.invoke(app, ["respaldo", "crear", str(copy), "--db", db_url])
    assert again.exit_code == 1 and "Ya existe" in again.output

    # After the copy: another offer, with a batch. The copy must not have them.
    open_offer(engine, "otra-oferta")
    import_batch(engine, "otra-oferta", SAMPLE / "lote-1-casa-de-bolsa.csv", BROKER_A, "L1", "x")

    restored = runner.invoke(app, ["respaldo", "restaurar", str(copy), "--db", new_url])
    assert restored.exit_code == 0, restored.output
    assert "conteos y ancla iguales" in restored.output
    target = make_engine(new_url)
    try:
        assert rows(target) == then
        with target.connect() as conn:
            assert audit.verify(conn).ok
            assert audit.anchor(conn).text() == manifest["ancla"]

        # The new database has data now: a second restore is refused, unless told to.
        refused = runner.invoke(app, ["respaldo", "restaurar", str(copy), "--db", new_url])
        assert refused.exit_code == 1 and "ya tiene datos" in refused.output
        forced = ["respaldo", "restaurar", str(copy), "--db", new_url, "--sobrescribir"]
        assert runner.invoke(app, forced).exit_code == 0
        assert rows(target) == then
    finally:
        target.dispose()


def test_a_copy_whose_counts_do_not_match_its_manifest_is_refused(
    engine: Engine, db_url: str, new_url: str, tmp_path: Path
) -> None:
    add_people(engine)
    open_offer(engine)
    copy = tmp_path / "respaldo.copia"
    assert runner.invoke(app, ["respaldo", "crear", str(copy), "--db", db_url]).exit_code == 0
    manifest_file = tmp_path / "respaldo.copia.json"
    manifest = json.loads(manifest_file.read_text())
    manifest["tablas"]["ofertas"] += 1  # a copy cut short, or the manifest of another copy
    manifest_file.write_text(json.dumps(manifest))
    answer = runner.invoke(app, ["respaldo", "restaurar", str(copy), "--db", new_url])
    assert answer.exit_code == 1
    said = " ".join(answer.output.split())
    assert "no son los del manifiesto: ofertas: 1 filas, el manifiesto dice 2" in said
    other = tmp_path / "otra.copia"
    other.write_bytes(b"no es una copia")
    answer = runner.invoke(
        app, ["respaldo", "restaurar", str(other), "--db", new_url, "--sobrescribir"]
    )
    assert answer.exit_code == 1 and "no es una copia" in " ".join(answer.output.split())


def test_a_copy_taken_while_batches_are_filed_holds_each_batch_whole_or_not_at_all(
    engine: Engine, db_url: str, new_url: str, tmp_path: Path
) -> None:
    add_people(engine)
    open_offer(engine)
    import_batch(engine, CODE, SAMPLE / "lote-1-casa-de-bolsa.csv", BROKER_A, "L1", "scb")
    brokers = [
        ("lote-2-acciones-y-valores.csv", "Acciones y Valores"),
        ("lote-3-valores-bancolombia.csv", "Valores Bancolombia"),
        ("lote-4-credicorp-capital.csv", "Credicorp Capital"),
    ]

    def file_the_rest() -> None:
        for name, broker in brokers:
            import_batch(engine, CODE, SAMPLE / name, broker, "L1", "comisionista")

    filing = threading.Thread(target=file_the_rest)
    filing.start()
    copy = tmp_path / "durante.copia"
    try:
        made = runner.invoke(app, ["respaldo", "crear", str(copy), "--db", db_url])
    finally:
        filing.join()
    assert made.exit_code == 0, made.output
    # The restore itself requires the chain to verify and the manifest's counts and anchor.
    restored = runner.invoke(app, ["respaldo", "restaurar", str(copy), "--db", new_url])
    assert restored.exit_code == 0, restored.output
    source, target = rows(engine), make_engine(new_url)
    try:
        copied = rows(target)
    finally:
        target.dispose()
    # What the copy holds is the source up to one instant: every row as it is in the source
    # (the offer itself may have changed since only by its own later events) ...
    for name in ("lotes", "aceptaciones", "auditoria"):
        assert set(copied[name]) <= set(source[name]), name
    # ... and each batch with all its acceptances, none with part of them.
    by_batch = Counter(r[2] for r in source["aceptaciones"])
    assert Counter(r[2] for r in copied["aceptaciones"]) == {
        b[0]: by_batch[b[0]] for b in copied["lotes"]
    }
    assert len(copied["lotes"]) >= 1
