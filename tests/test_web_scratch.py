"""An upload's folder is named with the process that made it; the service, when it starts,
removes the folders of processes that died without removing them (``kill -9``), and never
those of a process still running."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import uvicorn
from typer.testing import CliRunner

from democratiza.cli.main import app
from democratiza.web.server import scratch
from democratiza.web.server.scratch import (
    PREFIX,
    SERVICE_VARIABLE,
    remove_leftovers,
    remove_older,
    scratch_folder,
    service_folder,
)


def ended_pid() -> int:
    """The id of a process that has ended."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def leftover(where: Path, pid: int) -> Path:
    folder = where / f"{PREFIX}{pid}-abc123"
    folder.mkdir()
    (folder / "lote.csv").write_bytes(b"x" * 1000)
    return folder


def test_an_upload_folder_carries_its_process_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    folder = scratch_folder()
    assert folder.parent == tmp_path and folder.name.startswith(f"{PREFIX}{os.getpid()}-")


def test_only_the_folders_of_ended_processes_are_removed(tmp_path: Path) -> None:
    ended = leftover(tmp_path, ended_pid())
    running = leftover(tmp_path, os.getpid())
    older = tmp_path / f"{PREFIX}sinproceso"  # not one of ours to judge: left alone
    older.mkdir()
    assert remove_leftovers(tmp_path) == [ended]
    assert not ended.exists() and running.exists() and older.exists()


def test_the_service_removes_the_leftovers_when_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(uvicorn, "run", lambda *_, **__: None)  # started, and stopped at once
    ended = leftover(tmp_path, ended_pid())
    result = CliRunner().invoke(app, ["servir", "--db", f"sqlite:///{tmp_path / 'x.db'}"])
    assert result.exit_code == 0, result.output
    assert not ended.exists()


def test_the_service_folder_is_private_and_not_a_fixed_shared_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(scratch, "_own", [])
    monkeypatch.delenv(SERVICE_VARIABLE, raising=False)
    folder = service_folder()
    assert folder.parent == tmp_path and folder.name.startswith(f"{PREFIX}{os.getpid()}-")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert service_folder() == folder  # the same for every request of the process
    # A folder named by the variable is used only if it is a private folder of this user.
    shared = tmp_path / "compartida"
    shared.mkdir(mode=0o755)
    shared.chmod(0o755)
    monkeypatch.setenv(SERVICE_VARIABLE, str(shared))
    assert service_folder() == folder
    shared.chmod(0o700)
    assert service_folder() == shared
    link = tmp_path / "enlace"
    link.symlink_to(shared)
    monkeypatch.setenv(SERVICE_VARIABLE, str(link))
    assert service_folder() == folder


def planted(tmp_path: Path) -> tuple[Path, Path]:
    """A folder of someone else's files, and a link to it planted where cleanup looks."""
    victim = tmp_path / "ajenos"
    victim.mkdir()
    (victim / "importante.txt").write_text("no se borra", encoding="utf-8")
    return victim, victim / "importante.txt"


def test_removing_old_downloads_never_follows_a_planted_link(tmp_path: Path) -> None:
    victim, precious = planted(tmp_path)
    kept = tmp_path / "descargas"
    kept.mkdir()
    link = kept / ("a" * 32)
    link.symlink_to(victim, target_is_directory=True)
    old = kept / ("b" * 32)
    old.mkdir()
    (old / "comparacion-disenos.csv").write_text("x", encoding="utf-8")
    new = kept / ("c" * 32)
    new.mkdir()
    for path in (link, old):
        os.utime(path, (1_000, 1_000), follow_symlinks=False)
    remove_older(kept, 3600, now=time.time())
    assert not link.exists() and not link.is_symlink() and not old.exists() and new.exists()
    assert precious.read_text(encoding="utf-8") == "no se borra" and victim.is_dir()


def test_leftover_cleanup_leaves_a_planted_link_and_what_it_points_to(tmp_path: Path) -> None:
    victim, precious = planted(tmp_path)
    link = tmp_path / f"{PREFIX}{ended_pid()}-plantado"
    link.symlink_to(victim, target_is_directory=True)
    assert remove_leftovers(tmp_path) == []
    assert link.is_symlink() and precious.exists()
