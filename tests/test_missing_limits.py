"""A decree whose per-acceptant limits are not in the text at hand: the file declares them not
modelled (``no_modelado`` with ``seccion: limites``) instead of inventing a cap, and every
output that needs them says they are missing (programa ver, validar, evaluar, calcular)."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from democratiza.cli.main import app
from tests.test_program_folder import HEADER, OFFER, ROWS

FOLDER = Path(__file__).parent / "programs/decreto-prueba"
DECLARED = (
    "no_modelado:\n"
    "  - disposicion: Límites por aceptante\n"
    "    cita: {norma: prueba, ref: art. 6}\n"
    "    razon: La copia del texto no trae el artículo de los límites.\n"
    "    seccion: limites\n"
)
MISSING = (
    "El programa de enajenación de las acciones de la Nación en el Banco de Prueba S.A. "
    "(decreto de prueba) no trae los límites por aceptante: Límites por aceptante (Decreto de "
    "prueba art. 6): La copia del texto no trae el artículo de los límites. No se puede decir "
    "cuántas acciones puede adquirir cada aceptante."
)
runner = CliRunner()


def run(*args: str, ok: bool = True) -> str:
    result = runner.invoke(app, list(args), env={"COLUMNS": "400"})
    assert (result.exit_code == 0) == ok, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return " ".join(result.output.split())


def without_limits(tmp_path: Path, declared: bool = True) -> Path:
    """The test decree's program with its ``limites`` section taken out."""
    folder = tmp_path / "oficina"
    shutil.copytree(FOLDER, folder)
    path = folder / "programa.yaml"
    text = path.read_text(encoding="utf-8")
    start, end = text.index("limites:\n"), text.index("formas_de_pago:")
    text = text[:start] + text[end:]
    if declared:
        text = text.replace("no_modelado:\n", DECLARED, 1)
    path.write_text(text, encoding="utf-8")
    (tmp_path / "oferta.yaml").write_text(OFFER, encoding="utf-8")
    (tmp_path / "lote.csv").write_text("\n".join([HEADER, *ROWS]) + "\n", encoding="utf-8")
    return path


def test_limits_neither_written_nor_declared_are_refused(tmp_path: Path) -> None:
    out = run("programa", "validar", str(without_limits(tmp_path, declared=False)), ok=False)
    assert (
        "limites: falta 'limites': escríbalos con su cita o, si el texto no los trae, declárelo "
        "en no_modelado (disposicion, cita, razon y 'seccion: limites')"
    ) in out


def test_declared_limits_are_said_missing_by_ver_and_validar(tmp_path: Path) -> None:
    path = str(without_limits(tmp_path))
    assert MISSING in run("programa", "ver", path)
    assert f"Para evaluar o adjudicar aceptaciones y para la calculadora: {MISSING}" in run(
        "programa", "validar", path
    )


def test_evaluar_and_calcular_say_the_limits_are_missing_instead_of_inventing(
    tmp_path: Path,
) -> None:
    path = str(without_limits(tmp_path))
    offer = str(tmp_path / "oferta.yaml")
    out = run(
        "evaluar",
        "-p",
        path,
        str(tmp_path / "lote.csv"),
        "--oferta",
        offer,
        "-o",
        str(tmp_path / "salidas"),
        ok=False,
    )
    assert f"No se puede evaluar con esta oferta: • {MISSING}" in out
    assert not (tmp_path / "salidas" / "decisiones-lote.csv").exists()
    out = run(
        "calcular",
        "-p",
        path,
        "--oferta",
        offer,
        "--categoria",
        "trabajador_activo",
        "--ingresos",
        "60000000",
        ok=False,
    )
    assert f"No se puede calcular con esta oferta: • {MISSING}" in out


def test_a_file_with_limits_cannot_declare_them_not_modelled(tmp_path: Path) -> None:
    folder = tmp_path / "oficina"
    shutil.copytree(FOLDER, folder)
    path = folder / "programa.yaml"
    text = path.read_text(encoding="utf-8").replace("no_modelado:\n", DECLARED, 1)
    path.write_text(text, encoding="utf-8")
    out = run("programa", "validar", str(path), ok=False)
    assert "el archivo modela 'limites': la cobertura no puede decir que no" in out


def test_evaluar_and_calcular_say_the_undertakings_are_not_checked(tmp_path: Path) -> None:
    # The test decree's text sends its undertakings to a reglamento no one has.
    folder = tmp_path / "oficina"
    shutil.copytree(FOLDER, folder)
    path, offer = str(folder / "programa.yaml"), str(tmp_path / "oferta.yaml")
    (tmp_path / "oferta.yaml").write_text(OFFER, encoding="utf-8")
    (tmp_path / "lote.csv").write_text("\n".join([HEADER, *ROWS]) + "\n", encoding="utf-8")
    unchecked = (
        "El programa de enajenación de las acciones de la Nación en el Banco de Prueba S.A. "
        "(decreto de prueba) "
        "no trae los compromisos de los adquirentes: Compromisos que deben "
        "manifestar los aceptantes (Decreto de prueba art. 7): El texto los remite al reglamento "
        "de enajenación y adjudicación, que no se tiene; no se exige ninguno. No se puede exigir "
        "ni verificar compromisos."
    )
    lote = str(tmp_path / "lote.csv")
    assert unchecked in run("evaluar", "-p", path, lote, "--oferta", offer, "-o", str(tmp_path))
    args = ["--oferta", offer, "--categoria", "trabajador_activo", "--ingresos", "60000000"]
    assert unchecked in run("calcular", "-p", path, *args)
    # A program whose text has its undertakings says nothing of the kind.
    assert "no trae los compromisos" not in run("calcular", "-p", "geb-2017", *args[2:])
