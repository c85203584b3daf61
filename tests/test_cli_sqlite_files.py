"""A damaged SQLite file is refused in Spanish before any command writes to it, and the audit
check does not call a chain in a damaged file "íntegra"; an archived copy (a read-only file
in a read-only folder) can still be read: ``oferta ver`` and ``auditoria verificar`` work on
it, and nothing is written beside it."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from democratiza.cli.main import app
from democratiza.storage.database import make_engine, migrate
from tests.test_web_support import CODE, add_people, open_offer

PASSWORD = "una-clave-bastante-larga\n"


@pytest.fixture
def sound(tmp_path: Path) -> Path:
    """A database with an open offer and its audit entries, closed (no journal beside it,
    still in WAL mode as the service leaves it)."""
    path = tmp_path / "democratiza.db"
    engine = make_engine(f"sqlite:///{path}")
    migrate(engine)
    add_people(engine)
    open_offer(engine)
    engine.dispose()  # the last connection folds the WAL back into the file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["democratiza.db"]
    return path


def run(*args: str, db: Path, given: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(app, [*args, "--db", f"sqlite:///{db}"], input=given)
    return result.exit_code, result.output


def damaged(path: Path) -> Path:
    """The file with one more page that no table owns, as a torn write leaves it: SQLite
    opens and reads it, and only its own check finds the fault."""
    with sqlite3.connect(path) as conn:
        [size] = conn.execute("PRAGMA page_size").fetchone()
        [pages] = conn.execute("PRAGMA page_count").fetchone()
    with path.open("r+b") as fh:
        fh.seek(0, 2)
        fh.write(b"\0" * size)
        fh.seek(28)  # the header's page count
        fh.write((pages + 1).to_bytes(4, "big"))
    return path


def overwritten(path: Path) -> Path:
    """The file with the first page of its users' table overwritten (as a bad disk would)."""
    with sqlite3.connect(path) as conn:
        query = "SELECT rootpage FROM sqlite_master WHERE name = 'usuarios'"
        [root] = conn.execute(query).fetchone()
        [size] = conn.execute("PRAGMA page_size").fetchone()
    with path.open("r+b") as fh:
        fh.seek((root - 1) * size)
        fh.write(b"\xa5" * size)
    return path


def add_auditor(path: Path) -> tuple[int, str]:
    """A command that writes: a new auditor's account."""
    return run(
        "usuario",
        "crear",
        "nueva",
        "--nombre",
        "Nueva",
        "--rol",
        "auditor",
        "--clave-stdin",
        db=path,
        given=PASSWORD,
    )


def test_a_command_that_writes_refuses_a_damaged_file_and_writes_nothing(sound: Path) -> None:
    path = damaged(sound)
    before = path.read_bytes()
    code, output = add_auditor(path)
    assert code == 1 and "Traceback" not in output
    said = " ".join(output.split())
    assert "está dañada: la revisión de SQLite (PRAGMA quick_check) encontró" in said
    assert "No se hizo nada; restáurela desde un respaldo" in said
    assert path.read_bytes() == before


def test_a_file_too_damaged_to_check_is_refused_in_spanish(sound: Path) -> None:
    path = overwritten(sound)
    before = path.read_bytes()
    code, output = add_auditor(path)
    assert code == 1 and "Traceback" not in output
    assert "dañad" in output and path.read_bytes() == before


def test_the_audit_check_does_not_call_a_damaged_file_sound(sound: Path) -> None:
    code, output = run("auditoria", "verificar", db=damaged(sound))
    assert code == 1 and "íntegra" not in output
    assert "(PRAGMA integrity_check) encontró" in " ".join(output.split())


@pytest.fixture
def archived(sound: Path, tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "archivo"
    folder.mkdir()
    path = folder / "democratiza.db"
    shutil.copy(sound, path)
    path.chmod(0o444)
    folder.chmod(0o555)
    yield path
    folder.chmod(0o755)


def test_an_archived_copy_in_a_read_only_folder_can_be_read(archived: Path) -> None:
    code, output = run("oferta", "ver", CODE, db=archived)
    assert code == 0, output
    assert f"Oferta '{CODE}'" in output
    code, output = run("auditoria", "verificar", db=archived)
    assert code == 0, output
    assert "íntegra" in output
    assert sorted(p.name for p in archived.parent.iterdir()) == ["democratiza.db"]


def test_a_command_that_writes_refuses_an_archived_copy_in_spanish(archived: Path) -> None:
    code, output = add_auditor(archived)
    assert code == 1 and "Traceback" not in output
    assert "es de solo lectura" in " ".join(output.split())
