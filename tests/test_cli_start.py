"""A command imports what it runs, not every other command's modules.

Worked example: ``democratiza evaluar --help`` reads no database and serves no page, so the
web service (FastAPI), the database layer (SQLAlchemy) and the Parquet writer stay
unimported; before, every command imported all of them first (about 1,7 s of the processor).
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from typer.testing import CliRunner

from democratiza.cli.main import COMMANDS, app, loaded

HEAVY = ("fastapi", "sqlalchemy", "pyarrow.parquet", "democratiza.web", "matplotlib")


def imported_after(arguments: list[str]) -> list[str]:
    """The heavy modules a new process has imported after running ``democratiza arguments``."""
    script = (
        "import sys\n"
        "from democratiza.cli.main import app\n"
        "try:\n"
        f"    app({arguments!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print('importados:', *(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return done.stdout.splitlines()[-1].split()[1:]


@pytest.mark.parametrize("arguments", [["evaluar", "--help"], ["programas"], ["formato"]])
def test_a_command_without_a_database_imports_neither_the_web_nor_the_database(
    arguments: list[str],
) -> None:
    assert imported_after(arguments) == []


def test_the_help_lists_every_command_in_order_with_its_own_help() -> None:
    shown = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"}).output
    listed = [line.split()[0] for line in shown.split("Comandos:")[1].splitlines() if line.strip()]
    assert listed == list(COMMANDS)
    assert "evaluar    Evalúa un archivo de aceptaciones" in shown


def test_every_command_is_found_and_built_once() -> None:
    for name in COMMANDS:
        assert loaded(name) is loaded(name)
        assert loaded(name).name == name
    offer = loaded("oferta")
    assert {"interrumpir", "desierta", "ver"} <= set(offer.commands)  # type: ignore[attr-defined]
    assert "pago" in loaded("etapa").commands  # type: ignore[attr-defined]
