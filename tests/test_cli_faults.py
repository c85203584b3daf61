"""When the database itself fails, every command (and the service) says so in Spanish and
writes nothing.

A damaged SQLite file, a read-only one, another writer holding the lock, a PostgreSQL
server that ends the connection while the schema is checked, a full disk: each ends in a
sentence a person can act on, never in the driver's English traceback.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text
from typer.testing import CliRunner, Result

from democratiza.cli import offers
from democratiza.cli.main import app
from democratiza.offers.lifecycle import load_offer
from democratiza.storage import database
from democratiza.storage.database import make_engine, migrate
from democratiza.storage.faults import SQLITE_FAULTS, database_fault
from democratiza.web.app import create_app
from tests.test_web_support import CODE, open_offer

runner = CliRunner()
DAMAGED = SQLITE_FAULTS["file is not a database"]
READ_ONLY = SQLITE_FAULTS["attempt to write a readonly database"]
BUSY = SQLITE_FAULTS["database is locked"]


def run(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    # Never an exception of the program's own: only the exit the command chose.
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def said(result: Result) -> str:
    return " ".join(result.output.split())


def commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    for name, command in getattr(group, "commands", {}).items():
        if hasattr(command, "commands"):
            yield from commands(command, (*path, name))
        else:
            yield (*path, name), command


def placeholder_arguments(command: Any, db: str, folder: Path) -> list[str]:
    """Any value for each required parameter: the command opens the database first."""
    file = folder / "x.csv"
    file.write_text("a\n1\n", encoding="utf-8")
    args = ["--db", db]
    for param in command.params:
        if not param.required:
            continue
        kind = param.type_descriptor.annotation
        value = str(file) if kind is Path else "1" if kind in (int, float) else "x"
        if type(param).__name__ == "TyperArgument":
            args.append(value)
        else:
            args += [param.opts[0], value]
    return args


WITH_DATABASE = [
    path
    for path, command in commands(typer.main.get_command(app))
    if any(p.name == "db" for p in command.params) and path != ("usuario", "crear")  # asks
]


@pytest.mark.parametrize("path", WITH_DATABASE, ids=" ".join)
def test_every_command_on_a_damaged_sqlite_file_answers_in_spanish(
    path: tuple[str, ...], tmp_path: Path
) -> None:
    damaged = tmp_path / "democratiza.db"
    damaged.write_bytes(b"esto no es una base de datos SQLite" * 200)
    command = dict(commands(typer.main.get_command(app)))[path]
    result = run(*path, *placeholder_arguments(command, f"sqlite:///{damaged}", tmp_path))
    assert result.exit_code == 1
    # A command that reads a file, or amounts and dates, of its own first may refuse them
    # instead.
    assert DAMAGED in said(result) or path in {
        ("simular",),
        ("etapa", "crear"),  # its terms file
        ("oferta", "crear"),  # its offer file, read strictly since the YAML reader is one
        ("credito", "registrar"),  # its amounts and dates, as a form checks them
        ("credito", "corregir"),  # the same fields as registrar
        ("respaldo", "crear"),  # its destination, which must not exist yet
        ("verificar",),  # its package, before the chain its --db holds
        ("multa", "calcular"),  # its program, before the series its --db may hold
    }


@pytest.fixture
def sqlite_url(tmp_path: Path) -> Iterator[str]:
    url = f"sqlite:///{tmp_path / 'democratiza.db'}"
    engine = make_engine(url)
    migrate(engine)
    open_offer(engine)
    engine.dispose()
    yield url


def state(url: str) -> str:
    engine = make_engine(url)
    with engine.connect() as conn:
        found = load_offer(conn, CODE).state
    engine.dispose()
    return found


def test_a_read_only_database_is_told_and_left_as_it_was(sqlite_url: str) -> None:
    path = sqlite_url.removeprefix("sqlite:///")
    read_only = f"sqlite:///file:{path}?mode=ro&uri=true"
    closed = run("oferta", "cerrar", CODE, "--db", read_only)
    token = run("token", "crear", "--comisionista", "Casa de Bolsa", "--db", read_only)
    assert (closed.exit_code, token.exit_code) == (1, 1)
    assert said(closed) == said(token) == READ_ONLY
    assert state(sqlite_url) == "abierta"


def hold_the_write_lock(url: str) -> sqlite3.Connection:
    path = url.removeprefix("sqlite:///")
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    return other


def test_a_command_that_finds_another_writer_waits_its_turn(sqlite_url: str) -> None:
    other = hold_the_write_lock(sqlite_url)
    # The other writer finishes a moment later; the command waits instead of failing.
    finished = threading.Timer(0.5, other.commit)
    finished.start()
    closed = run("oferta", "cerrar", CODE, "--db", sqlite_url)
    finished.join()
    other.close()
    assert closed.exit_code == 0, closed.output
    assert state(sqlite_url) == "cerrada"


def test_a_lock_held_past_the_wait_is_told_in_spanish_and_nothing_changes(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database, "SQLITE_WAIT_SECONDS", 0)  # the wait, already over
    other = hold_the_write_lock(sqlite_url)
    closed = run("oferta", "cerrar", CODE, "--db", sqlite_url)
    token = run("token", "crear", "--comisionista", "Casa de Bolsa", "--db", sqlite_url)
    other.rollback()
    other.close()
    assert (closed.exit_code, token.exit_code) == (1, 1)
    assert said(closed) == said(token) == BUSY
    assert state(sqlite_url) == "abierta"


def test_the_embedded_database_waits_minutes_for_another_writer(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    with engine.connect() as conn:
        waits_ms = conn.execute(text("PRAGMA busy_timeout")).scalar_one()
    engine.dispose()
    assert waits_ms == 600_000  # ten minutes: a queue of large batches, not a refusal


def test_a_postgresql_backend_ended_during_the_schema_check_is_told_in_spanish(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def ended_while_checking(engine: Engine) -> None:
        with engine.connect() as conn:
            conn.execute(text("SELECT pg_terminate_backend(pg_backend_pid())"))

    monkeypatch.setattr(offers, "migrate", ended_while_checking)
    result = run("oferta", "ver", CODE, "--db", pg_url)
    assert result.exit_code == 1
    assert said(result).startswith("Se perdió la conexión con la base de datos (")
    assert "revise el estado antes de repetirla" in said(result)


def test_a_full_disk_is_told_in_spanish() -> None:
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "salidas/lote.csv")
    assert database_fault(full) == "No queda espacio en el disco para escribir salidas/lote.csv."


def test_the_service_on_a_damaged_database_answers_503_in_spanish(tmp_path: Path) -> None:
    damaged = tmp_path / "democratiza.db"
    damaged.write_bytes(b"esto no es una base de datos SQLite" * 200)
    engine = make_engine(f"sqlite:///{damaged}")
    with TestClient(create_app(engine)) as client:
        answer = client.get("/api/ofertas")
        page = client.get("/")
    engine.dispose()
    assert answer.status_code == 503 and answer.json()["detalle"] == DAMAGED
    assert page.status_code == 503 and "no es una base SQLite" in page.text


def test_a_postgresql_server_that_is_not_there_is_told_in_spanish() -> None:
    result = run("oferta", "ver", CODE, "--db", "postgresql://postgres@127.0.0.1:1/nadie")
    assert result.exit_code == 1
    assert said(result).startswith("No se pudo conectar con la base de datos (")
    assert said(result).endswith(
        "revise que el servidor esté en marcha y la dirección de --db; "
        "no se guardó nada de esta operación."
    )


def test_a_file_the_system_refuses_is_told_in_spanish() -> None:
    refused = OSError(errno.EACCES, os.strerror(errno.EACCES), "salidas/informe.html")
    assert database_fault(refused) == (
        "No se pudo usar salidas/informe.html: no hay permiso para usarlo."
    )


def test_an_offer_file_with_a_key_written_twice_is_refused_before_anything_is_created(
    tmp_path: Path,
) -> None:
    # YAML would keep the second price and say nothing: the office would never know the
    # first line it wrote was ignored.
    offer = tmp_path / "oferta.yaml"
    offer.write_text('precio: "1000.00"\nprecio: "990.00"\n', encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'democratiza.db'}"
    result = run("oferta", "crear", "c", "-p", "central-seguros-vida", "--oferta", str(offer),
                 "--db", db)  # fmt: skip
    assert result.exit_code == 1
    assert "la clave 'precio' está repetida (línea 2, columna 1)" in said(result)
    assert not (tmp_path / "democratiza.db").exists()
