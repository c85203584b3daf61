"""The program office's own folder, from an installed wheel (not this checkout): issue 27.

The project is built into a wheel and installed, not editable, in a new virtual environment
in a temporary folder; a program written in another temporary folder, with its decree's text
and its sources beside it, runs the whole offer there on SQLite and on PostgreSQL. Nothing
comes from ``src/``: the installed package has neither the program nor its texts.

Installing every dependency again takes minutes, so the new environment reads the
dependencies from this checkout's environment (a ``.pth`` line: its site-packages, where the
editable hook of this checkout is a ``.pth`` that is not followed from there) and only
``democratiza`` comes from the wheel. ``DEMOCRATIZA_WHEEL_VENV`` names an environment where
``pip install .`` installed everything instead (the check made by hand before a release).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_program_folder import CREDIT_LINE, FOLDER, HEADER, OFFER, ROWS

ROOT = Path(__file__).parents[1]
# Minutes on a loaded machine (each command a new process): run where asked, e.g. before a
# release; the same flow runs in-process on both databases in tests/test_program_folder.py.
pytestmark = pytest.mark.skipif(
    not os.environ.get("DEMOCRATIZA_TEST_WHEEL"),
    reason="la prueba desde una rueda instalada corre con DEMOCRATIZA_TEST_WHEEL=1",
)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The ``democratiza`` command of a new environment with the wheel installed."""
    given = os.environ.get("DEMOCRATIZA_WHEEL_VENV")
    if given:
        yield Path(given) / "bin/democratiza"
        return
    place = tmp_path_factory.mktemp("rueda")
    wheels = place / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
        check=True,
        capture_output=True,
    )
    [wheel] = wheels.glob("democratiza-*.whl")
    venv = place / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin/python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(purelib, "dependencias.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", purelib, wheel],
        check=True,
        capture_output=True,
    )
    script = venv / "bin/democratiza"
    script.write_text(f"#!{python}\nfrom democratiza.cli.main import app\napp()\n")
    script.chmod(0o755)
    yield script


def test_the_command_is_the_wheels(installed: Path, tmp_path: Path) -> None:
    where = subprocess.run(
        [str(installed.parent / "python"), "-c", "import democratiza; print(democratiza.__file__)"],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    ).stdout
    assert str(ROOT / "src") not in where and str(installed.parents[1]) in where


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_the_whole_offer_from_an_installed_wheel(
    installed: Path, tmp_path: Path, kind: str, request: pytest.FixtureRequest
) -> None:
    if kind == "sqlite":
        db = f"sqlite:///{tmp_path / 'oferta.db'}"
    else:
        from tests.conftest import fresh_postgres

        db = request.getfixturevalue("pg_url")
        fresh_postgres(db)
    folder = tmp_path / "oficina"
    shutil.copytree(FOLDER, folder)
    (tmp_path / "oferta.yaml").write_text(OFFER, encoding="utf-8")
    (tmp_path / "lote.csv").write_text("\n".join([HEADER, *ROWS]) + "\n", encoding="utf-8")
    env = {**os.environ, "COLUMNS": "1000", "DEMOCRATIZA_DB": db}

    def run(*args: str) -> str:
        done = subprocess.run(
            [str(installed), *args], capture_output=True, text=True, cwd=tmp_path, env=env
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return " ".join(done.stdout.split())

    program = str(folder / "programa.yaml")
    assert "es válido" in run("programa", "validar", program)
    run("oferta", "crear", "prueba", "-p", program, "--oferta", "oferta.yaml")
    run("credito", "registrar", "prueba", *CREDIT_LINE)
    run("oferta", "abrir", "prueba")
    run("lote", "importar", "prueba", "lote.csv", "--comisionista", "Casa de Bolsa", "--lote", "L1")
    run("oferta", "cerrar", "prueba")
    out = run("oferta", "adjudicar", "prueba", "--fecha", "2018-03-01")
    assert "demanda válida: 210.001.000.003; adjudicadas: 210.001.000.003" in out
    run("oferta", "publicar", "prueba")
    run("oferta", "exportar", "prueba", "--salida", "salidas")
    report = (tmp_path / "salidas/prueba/informe-adjudicacion.html").read_text(encoding="utf-8")
    assert "$ 2.136.970.176,03" in report
    run("paquete", "oferta", "prueba", "-o", "paquete")
    assert (tmp_path / "paquete/norma-decreto-prueba-banco.txt").exists()
    assert "El paquete coincide" in run("verificar", "paquete")
