"""The columnar explanations write, row for row, the text of the plain reference.

``rules.explain`` builds every sentence as a column expression; ``tests/explain_reference.py``
writes the same sentences one row at a time in plain Python, the way a person would read
the rules. Both must agree byte for byte on every row: the decision files of the sample and
of generated populations of the four programs (every category, document, limit and cause),
and on limits that tie.
"""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import yaml

from democratiza.programs.loader import load_program
from democratiza.programs.parameters import make_offer
from democratiza.reports.decisions import explain_chunk
from democratiza.rules.engine import CompiledProgram
from democratiza.rules.explain import SEPARATOR, Explainer, explainer_for
from democratiza.tables.parse import parse
from democratiza.tables.readers import RawTable, read_table
from tests.explain_reference import ReferenceExplainer

EXAMPLES = Path(__file__).parents[1] / "examples"
GENERATOR = Path(__file__).parents[1] / "benchmarks" / "generate.py"


def _generator() -> Any:
    """``benchmarks/generate.py``, the synthetic population's generator (a script, not a
    package: loaded from its file)."""
    spec = importlib.util.spec_from_file_location("generador", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generate = _generator().generate
PARAMS: dict[str, dict[str, object]] = {
    "geb-2017": {"trm": "2984.00", "fecha_cierre": "2018-02-26"},
    "coltel-2018": {  # the generator files in January and February 2018
        "fecha_aviso": "2017-12-22",
        "fecha_cierre": "2018-02-26",
        "fecha_corte_directivos": "2017-12-22",
    },
    "ebsa": {
        "precio": "2500.00",
        "acciones_ofrecidas": 10_000_000,
        "fecha_corte_directivos": "2008-06-30",
        "fecha_cierre": "2018-02-26",
    },
    "central-seguros-vida": {"precio": "1000.00", "acciones_ofrecidas": 40_000_000},
}


def reference_columns(compiled: CompiledProgram, frame: pl.DataFrame) -> pl.DataFrame:
    results = compiled.evaluate(frame)
    rows = list(ReferenceExplainer(compiled).explain_all(results, frame))
    return pl.DataFrame(
        {
            "explicacion": [e.summary for e in rows],
            "causas_detalle": [SEPARATOR.join(e.causes) for e in rows],
            "limites_detalle": [SEPARATOR.join(e.limits) for e in rows],
        }
    )


def typed(frame: pl.DataFrame) -> pl.DataFrame:
    buffer = io.BytesIO()
    frame.write_csv(buffer)
    return parse(RawTable("generado.csv", _raw(buffer.getvalue())))


def _raw(data: bytes) -> pl.DataFrame:
    frame = pl.read_csv(data, infer_schema=False)
    frame = frame.select(pl.all().str.strip_chars().replace("", None))
    return frame.with_row_index("fila", offset=2).with_columns(pl.col("fila").cast(pl.Int64))


@pytest.mark.parametrize("program_id", list(PARAMS))
def test_a_generated_population_is_explained_as_the_reference_does(program_id: str) -> None:
    params = PARAMS[program_id]
    frame = typed(generate(4_000, seed=7, program_id=program_id, params=params))
    compiled = CompiledProgram(make_offer(load_program(program_id), params))
    results = compiled.evaluate(frame)
    columnar = Explainer(compiled).columns(results, frame)
    expected = reference_columns(compiled, frame)
    for name in expected.columns:
        different = (columnar[name] != expected[name]).arg_true()
        assert different.len() == 0, (
            f"{name}, fila {different[0]}: {columnar[name][different[0]]!r} "
            f"≠ {expected[name][different[0]]!r}"
        )


def test_the_sample_decision_file_is_the_reference_s() -> None:
    offer_file = yaml.safe_load((EXAMPLES / "oferta-geb-2017.yaml").read_text(encoding="utf-8"))
    compiled = CompiledProgram(make_offer(load_program("geb-2017"), offer_file))
    frame = parse(read_table(EXAMPLES / "aceptaciones-geb-2017.csv"))
    results = compiled.evaluate(frame)
    exported = explain_chunk(Explainer(compiled), results, frame)
    expected = reference_columns(compiled, frame)
    assert exported.select(expected.columns).equals(expected)
    assert exported["causas_codigos"].str.len_chars().sum() > 0  # some rows were rejected


def test_one_row_explanation_objects_match_the_reference() -> None:
    params = PARAMS["geb-2017"]
    frame = typed(generate(300, seed=3, params=params))
    compiled = CompiledProgram(make_offer(load_program("geb-2017"), params))
    results = compiled.evaluate(frame)
    columnar = list(Explainer(compiled).explain_all(results, frame))
    expected = list(ReferenceExplainer(compiled).explain_all(results, frame))
    assert columnar == expected


def test_a_compiled_program_keeps_one_explainer_whose_answers_are_a_new_ones() -> None:
    """Built once per compiled program (the plan of its sentences costs more than a group of
    single acceptances), and explaining exactly as an explainer made for the occasion."""
    params = PARAMS["geb-2017"]
    frame = typed(generate(50, seed=5, params=params))
    compiled = CompiledProgram(make_offer(load_program("geb-2017"), params))
    again = CompiledProgram(make_offer(load_program("geb-2017"), params))
    assert explainer_for(compiled) is explainer_for(compiled)
    assert explainer_for(again) is not explainer_for(compiled)  # another program object
    results = compiled.evaluate(frame)
    kept = explainer_for(compiled).explain_not_accepted(results, frame)
    assert kept == Explainer(compiled).explain_not_accepted(results, frame)
    assert any(e is not None for e in kept)  # the sample has rows reduced or rejected
