"""The command line as a person reads it: its help and its usage errors in Spanish, its tables
in words, and every identifier a person must type shown whole, even at 80 columns."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from democratiza.cli.main import app
from democratiza.programs.loader import bundled_program_ids, load_program
from democratiza.rules.explain import cite

runner = CliRunner()
NARROW = {"COLUMNS": "80"}
# What typer and its click write in English; none of it may reach a person.
ENGLISH = re.compile(
    r"Usage|Options|Arguments|Commands|Show this message|\[required\]|\[default|Missing|"
    r"Try '|No such|Invalid value|Got unexpected|requires an argument|Input should|"
    r"<str>|<path>|<int>|Did you mean"
)


@pytest.mark.parametrize(
    "args",
    [["--help"], ["evaluar", "--help"], ["oferta", "--help"], ["oferta", "crear", "--help"]],
)
def test_the_help_frame_is_spanish(args: list[str]) -> None:
    result = runner.invoke(app, args, env=NARROW, prog_name="democratiza")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Uso: democratiza")
    assert "Muestra esta ayuda y termina." in result.output
    assert not ENGLISH.search(result.output), result.output


def test_a_required_option_and_a_default_are_marked_in_spanish() -> None:
    result = runner.invoke(app, ["evaluar", "--help"], env={"COLUMNS": "200"})
    assert "Argumentos:" in result.output and "Opciones:" in result.output
    assert "[obligatorio]" in result.output and "[por defecto: salidas]" in result.output
    assert "archivo <ruta>" in result.output and "--programa <texto>" in result.output


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["evaluar"], "Error: Falta el argumento 'archivo'."),
        (["nada"], "Error: No existe el comando 'nada'."),
        (["lotes"], "Error: No existe el comando 'lotes'. ¿Quiso decir 'lote'?"),
        (["programa", "geb-2017", "otro"], "Error: Sobran argumentos: otro"),
        (["calcular", "-p"], "Error: La opción '-p' necesita un valor."),
        (["calcular", "--nada"], "Error: No existe la opción --nada."),
        (
            ["calcular", "-p", "geb-2017", "--categoria", "pensionado", "--cantidad", "mil"],
            "Error: Valor no válido para '--cantidad': 'mil' no es un número entero de acciones",
        ),
        (
            ["calcular", "-p", "geb-2017", "--categoria", "pensionado", "--fecha", "2018-02-30"],
            "Error: Valor no válido para --fecha: fecha no válida '2018-02-30': se escribe "
            "AAAA-MM-DD, p. ej. 2018-01-15",
        ),
        (
            ["calcular", "-p", "geb-2017", "--categoria", "pensionado", "--forma-pago", "tarjeta"],
            "Error: Valor no válido para --forma-pago: forma de pago desconocida 'tarjeta'; "
            "valores aceptados: contado, credito, cesantias, cuotas",
        ),
    ],
)
def test_a_mistyped_command_is_told_what_is_wrong_in_spanish(args: list[str], error: str) -> None:
    result = runner.invoke(app, args, env=NARROW)
    assert result.exit_code == 2
    assert error in result.output, result.output
    assert not ENGLISH.search(result.output), result.output


def test_programas_never_cuts_a_program_id_at_80_columns() -> None:
    result = runner.invoke(app, ["programas"], env=NARROW)
    assert result.exit_code == 0
    assert "…" not in result.output
    assert max(len(line) for line in result.output.splitlines()) <= 80
    for program_id in bundled_program_ids():
        assert re.search(rf"│ {re.escape(program_id)} +│", result.output), program_id


def test_programa_shows_codes_whole_and_everything_else_in_words() -> None:
    result = runner.invoke(app, ["programa", "geb-2017"], env=NARROW)
    assert result.exit_code == 0
    program = load_program("geb-2017")
    for category in program.categories:  # the code a file's categoria column takes, whole
        assert re.search(rf"^ • {category.id} *$", result.output, re.M), category.id
    assert "…" not in result.output
    wide = runner.invoke(app, ["programa", "geb-2017"], env={"COLUMNS": "250"}).output
    assert "Igualitario con redistribución; remanente: al primero en radicar" in wide
    assert "1 × (patrimonio líquido)" in wide
    for identifier in ("igualitario_redistribucion", "primero_radicado", "patrimonio_liquido"):
        assert identifier not in wide


@pytest.mark.parametrize("program_id", bundled_program_ids())
def test_programa_at_80_columns_wraps_notes_and_citations_between_words(program_id: str) -> None:
    """Every note and citation is read whole, its words never cut by the edge or split."""
    result = runner.invoke(app, ["programa", program_id], env=NARROW)
    assert result.exit_code == 0
    assert max(len(line.rstrip()) for line in result.output.splitlines()) <= 80
    shown = " ".join(result.output.split())
    program = load_program(program_id)
    for name, param in program.parameters.items():
        assert " ".join(cite(program, param.citation).split()) in shown, name
        if param.note:
            assert " ".join(param.note.split()) in shown, name
    for rule in program.limits:
        assert " ".join(cite(program, rule.citation).split()) in shown, rule.id
