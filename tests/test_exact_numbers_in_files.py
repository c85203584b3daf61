"""Share counts and amounts in files and forms are exact, written as a person writes them.

A stage's minimum order and lot take thousands dots ("40.000") as every other share count
does; and an unquoted ``1.500`` in a YAML file, which YAML reads as the decimal 1,5, is
refused with the file, the key and the value, and how to write it."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner

from democratiza.cli.main import app
from democratiza.programs.loader import ProgramFileError, load_program_file
from democratiza.stages.terms import StageTerms
from democratiza.validation_messages import YamlProblem, load_yaml

PROGRAMS = Path(__file__).parents[1] / "src" / "democratiza" / "programs" / "data"
TERMS = {
    "mecanismo": "subasta_holandesa",
    "fecha_aviso": date(2018, 4, 2),
    "fecha_apertura": date(2018, 4, 3),
    "fecha_cierre": date(2018, 4, 16),
    "fuente": "Reglamento de la Segunda Etapa (ilustrativo)",
}


def test_a_stages_minimum_order_and_lot_take_thousands_dots() -> None:
    terms = StageTerms.model_validate({**TERMS, "orden_minima": "40.000", "lote": "1.000"})
    assert (terms.minimum_order, terms.lot) == (40_000, 1_000)
    assert StageTerms.model_validate({**TERMS, "orden_minima": "5000"}).minimum_order == 5_000
    # The same share type for both fields: typed as text, a count is still at least one.
    for field in ("orden_minima", "lote"):
        with pytest.raises(ValueError, match=field):
            StageTerms.model_validate({**TERMS, field: "0"})


def test_a_badly_grouped_minimum_order_is_refused_in_spanish() -> None:
    with pytest.raises(ValueError, match=r"'40\.00' no es un número entero de acciones"):
        StageTerms.model_validate({**TERMS, "orden_minima": "40.00"})


def test_an_unquoted_1_500_is_refused_with_its_key_and_how_to_write_it() -> None:
    with pytest.raises(YamlProblem) as refused:
        load_yaml("parametros:\n  precio: {valor: 1.500}\n")
    told = str(refused.value)
    assert told.startswith("parametros.precio.valor: 1.500 (línea 2, columna 19)")
    assert 'escriba 1500, o "1.500" entre comillas' in told
    assert load_yaml('precio: "1.500"\nacciones: 1500\n') == {"precio": "1.500", "acciones": 1500}


def test_a_population_file_keeps_its_proportions() -> None:
    assert load_yaml("declaran_renta: 0.65\n", floats=True) == {"declaran_renta": 0.65}


def test_one_inexact_number_is_said_in_the_singular_two_in_the_plural() -> None:
    with pytest.raises(YamlProblem, match="YAML lee ese número como un decimal inexacto"):
        load_yaml("precio: 1.500\n")
    with pytest.raises(YamlProblem) as refused:
        load_yaml("precio: 1.500\nlotes: [2.5, 10]\n")
    assert str(refused.value).startswith(
        "precio: 1.500 (línea 1, columna 9); lotes[0]: 2.5 (línea 2, columna 9): "
        "YAML lee esos números como decimales inexactos"
    )


def test_an_alias_is_refused_before_any_inexact_number_and_in_a_population_too() -> None:
    # One walk finds both; the alias is what is said (nothing it stands for is walked).
    text = "a: &x [1.5, 2.5]\nb: *x\n"
    for floats in (False, True):
        with pytest.raises(YamlProblem, match="no se admiten anclas ni alias de YAML"):
            load_yaml(text, floats=floats)


def test_a_program_file_with_a_yaml_decimal_price_names_file_and_key(tmp_path: Path) -> None:
    text = (PROGRAMS / "geb-2017.yaml").read_text(encoding="utf-8")
    before = 'precio: {valor: "2018.00"'
    assert before in text
    path = tmp_path / "programa.yaml"
    path.write_text(text.replace(before, "precio: {valor: 2.018", 1), encoding="utf-8")
    with pytest.raises(ProgramFileError) as refused:
        load_program_file(path)
    told = str(refused.value)
    assert str(path) in told and "parametros.precio.valor: 2.018" in told


def test_an_offer_file_with_an_unquoted_1_500_is_refused_by_the_cli(tmp_path: Path) -> None:
    offer = tmp_path / "oferta.yaml"
    offer.write_text("precio: 1.500\nacciones_ofrecidas: 40000000\n", encoding="utf-8")
    args = ["calcular", "-p", "central-seguros-vida", "--oferta", str(offer)]
    args += ["--categoria", "trabajador_activo", "--patrimonio-liquido", "48000000"]
    out = CliRunner().invoke(app, args)
    assert out.exit_code != 0
    assert "precio: 1.500" in out.output and "entre comillas" in out.output
    assert "Traceback" not in out.output
