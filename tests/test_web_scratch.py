"""An upload's folder is named with the process that made it; the service, when it starts,
removes the folders of processes that died without removing them (``kill -9``), and never
those of a process still running."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import uvicorn
from typer.testing import CliRunner

from democratiza.cli.main import app
from democratiza.web.server.scratch import PREFIX, remove_leftovers, scratch_folder


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
