"""Without axe-core installed the browser tests fail and say how to install it: a sweep that
skipped axe in silence would pass while checking nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.browser import checks


def test_without_axe_core_the_sweep_fails_and_says_to_run_make_setup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checks, "AXE", tmp_path / "node_modules" / "axe-core")
    with pytest.raises(pytest.fail.Exception) as failed:
        checks.axe_source.__wrapped__()
    assert "corra `make setup`" in str(failed.value)
    assert str(tmp_path) in str(failed.value)


def test_the_installed_axe_core_is_the_pinned_version() -> None:
    lock = json.loads((Path(checks.__file__).parent / "axe" / "package-lock.json").read_text())
    pinned = lock["packages"]["node_modules/axe-core"]["version"]
    assert f"axe v{pinned}" in checks.axe_source()[:200]
