"""A run started from a terminal, or a CI runner, that sets COLUMNS reads the same messages.

The command line's consoles are made when their modules are imported, and a console made
while COLUMNS is set keeps that width for good: ``tests/conftest.py`` unsets it before
anything of democratiza is imported. This runs one test whose refusal is longer than a
narrow line in a pytest of its own, started with COLUMNS=60, as CI starts the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Its message ("…faltan las entradas 3 a 3") is wider than 60 columns, and is read whole.
LONG_REFUSAL = "tests/test_web_cli.py::test_people_tokens_and_the_audit_chain_from_the_console"


def test_a_run_started_with_columns_set_reads_unwrapped_messages(tmp_path: Path) -> None:
    env = {**os.environ, "COLUMNS": "60"}
    env.pop("PYTEST_XDIST_WORKER", None)  # a run of its own, with its own database
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "--basetemp",
            str(tmp_path / "run"),
            LONG_REFUSAL,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "1 passed" in done.stdout
