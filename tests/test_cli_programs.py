"""``democratiza programa``: show a program, check a program file for the program office."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from democratiza.cli.main import app
from democratiza.programs.loader import read_program

GEB = Path(__file__).parents[1] / "src/democratiza/programs/data/geb-2017.yaml"
runner = CliRunner()


def run(*args: str, ok: bool = True) -> str:
    result = runner.invoke(app, list(args), env={"COLUMNS": "250"})
    assert (result.exit_code == 0) == ok, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.output


def test_programa_id_is_programa_ver_id() -> None:
    assert run("programa", "geb-2017") == run("programa", "ver", "geb-2017")
    out = run("programa", "no-existe", ok=False)
    assert "programa desconocido; disponibles: central-seguros-vida, coltel-2018" in out


def test_validar_accepts_a_good_file_and_names_its_hash() -> None:
    out = run("programa", "validar", str(GEB))
    assert "el programa geb-2017 (versión 4) es válido; huella SHA-256 " in out
    assert read_program("geb-2017").sha256 in out


def test_validar_reports_every_problem_at_once_with_its_key_path(tmp_path: Path) -> None:
    text = GEB.read_text(encoding="utf-8")
    for old, new in [
        ("texto: geb-decreto-706-2017.txt", "texto: geb-706.txt"),
        ("fuentes: [limite_inversion]", "fuentes: [limite_inversiones]"),
        ("tope_acciones: 3184458\n    cita: {norma: d706, ref: art. 10.1}", "tope_acciones: 0"),
        ("{norma: d706, ref: art. 9.2.3}\n  - id: geb-10.1", "{norma: d999, ref: x}\n  - id: g"),
    ]:
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / "nuevo.yaml"
    path.write_text(text, encoding="utf-8")
    out = run("programa", "validar", str(path), ok=False)
    lines = [line.strip() for line in out.splitlines()]
    assert f"{path}: 5 problemas; el programa no se carga:" in " ".join(lines)
    for expected in (
        "• limites[6].base.fuentes[0]: valor no admitido (se admite: 'patrimonio_liquido',",
        "• limites[7].tope_acciones: debe ser mayor o igual a 1",
        "• limites[7].cita: falta este campo",
        "• normas.d706.texto: 'geb-706.txt' no es un texto incluido en el paquete ni un",
        "• limites[6].cita.norma: la norma 'd999' no está declarada en 'normas'",
    ):
        assert any(line.startswith(expected) for line in lines), expected


def test_validar_says_a_broken_yaml_in_spanish(tmp_path: Path) -> None:
    path = tmp_path / "roto.yaml"
    path.write_text("id: x\n  nombre: y\n", encoding="utf-8")
    out = run("programa", "validar", str(path), ok=False)
    assert "(archivo): no es YAML válido (línea 2, columna 9)" in out
    out = run("programa", "validar", str(tmp_path / "no-esta.yaml"), ok=False)
    assert "(archivo): no se puede leer (No such file or directory)" in out


GUIDE = Path(__file__).parents[1] / "docs/nuevo-programa.md"


def guide_example() -> str:
    return (
        GUIDE.read_text(encoding="utf-8").split("## Anexo")[1].split("```yaml\n")[1].split("```")[0]
    )


def test_the_guides_complete_example_is_a_valid_program(tmp_path: Path) -> None:
    path = tmp_path / "ejemplo.yaml"
    path.write_text(guide_example(), encoding="utf-8")
    assert "el programa ejemplo-geb (versión 1) es válido" in run("programa", "validar", str(path))


def test_the_guides_refusals_are_those_validar_gives(tmp_path: Path) -> None:
    text = guide_example()
    for old, new in [
        ("valor: 1836235403", "valor: muchas"),
        ("fuentes: [patrimonio_liquido]", "fuentes: [patrimonio]"),
        ("    cita: {norma: d706, ref: art. 10.1}\n", ""),
        ("texto: geb-decreto-706-2017.txt}", "texto: decreto-706.txt}"),
    ]:
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / "programa.yaml"
    path.write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["programa", "validar", str(path)], env={"COLUMNS": "1000"})
    shown = [line.strip() for line in result.output.splitlines()]
    guide = [
        line.strip().removesuffix("…").rstrip()
        for line in GUIDE.read_text(encoding="utf-8")
        .split("dice todos los problemas")[1]
        .split("```\n")[1]
        .splitlines()
    ]
    assert guide[0] == "ruta/programa.yaml: 4 problemas; el programa no se carga:"
    assert shown[0] == f"{path}: 4 problemas; el programa no se carga:"
    assert len(shown) == len(guide) == 5
    assert all(s.startswith(g) for s, g in zip(shown[1:], guide[1:], strict=True)), shown
