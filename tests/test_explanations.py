"""The columnar explanations write, row for row, the text written one row at a time.

``rules.explain`` builds every sentence as a column expression (a million rows in seconds);
``rules.explain_rows`` writes the same sentences one row at a time in plain Python (a few
rows: a group of single acceptances, a page, the calculator), the way a person would read
the rules. Both must agree byte for byte on every row: the decision files of the sample and
of generated populations of the four programs (every category, document, limit and cause),
groups of thirty as single acceptances are explained, and limits that tie.
"""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import yaml

from democratiza.programs.loader import load_program, load_program_file
from democratiza.programs.parameters import make_offer
from democratiza.reports.decisions import explain_chunk
from democratiza.rules.engine import CompiledProgram, limit_column
from democratiza.rules.explain import FEW_ROWS, SEPARATOR, Explainer, explainer_for
from democratiza.rules.explain_rows import Explanation, RowExplainer
from democratiza.tables.parse import parse
from democratiza.tables.readers import RawTable, read_table
from tests import test_program_folder as folder

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


def row_by_row_columns(compiled: CompiledProgram, frame: pl.DataFrame) -> pl.DataFrame:
    results = compiled.evaluate(frame)
    rows = list(RowExplainer(compiled).explain_all(results, frame))
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
def test_a_generated_population_is_explained_as_row_by_row(program_id: str) -> None:
    params = PARAMS[program_id]
    frame = typed(generate(4_000, seed=7, program_id=program_id, params=params))
    compiled = CompiledProgram(make_offer(load_program(program_id), params))
    results = compiled.evaluate(frame)
    columnar = Explainer(compiled).columns(results, frame)
    expected = row_by_row_columns(compiled, frame)
    for name in expected.columns:
        different = (columnar[name] != expected[name]).arg_true()
        assert different.len() == 0, (
            f"{name}, fila {different[0]}: {columnar[name][different[0]]!r} "
            f"≠ {expected[name][different[0]]!r}"
        )


def test_the_sample_decision_file_is_the_row_by_row_text() -> None:
    offer_file = yaml.safe_load((EXAMPLES / "oferta-geb-2017.yaml").read_text(encoding="utf-8"))
    compiled = CompiledProgram(make_offer(load_program("geb-2017"), offer_file))
    frame = parse(read_table(EXAMPLES / "aceptaciones-geb-2017.csv"))
    results = compiled.evaluate(frame)
    exported = explain_chunk(Explainer(compiled), results, frame)
    expected = row_by_row_columns(compiled, frame)
    assert exported.select(expected.columns).equals(expected)
    assert exported["causas_codigos"].str.len_chars().sum() > 0  # some rows were rejected


def test_explanation_objects_are_the_same_from_columns_and_rows() -> None:
    params = PARAMS["geb-2017"]
    frame = typed(generate(300, seed=3, params=params))
    compiled = CompiledProgram(make_offer(load_program("geb-2017"), params))
    results = compiled.evaluate(frame)
    columnar = list(Explainer(compiled).explain_all_columns(results, frame))
    expected = list(RowExplainer(compiled).explain_all(results, frame))
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


@pytest.mark.parametrize("program_id", list(PARAMS))
def test_groups_of_single_acceptances_are_explained_as_a_whole_file_is(program_id: str) -> None:
    """Thirty rows at a time, as a group of single acceptances is explained to its brokers
    (row by row), say what the columns say for the same rows in a file of 4.000."""
    params = PARAMS[program_id]
    frame = typed(generate(4_000, seed=11, program_id=program_id, params=params))
    compiled = CompiledProgram(make_offer(load_program(program_id), params))
    results = compiled.evaluate(frame)
    assert results.height > FEW_ROWS  # the whole file is explained as columns
    whole = list(Explainer(compiled).explain_all(results, frame))
    explainer = explainer_for(compiled)
    in_groups: list[Explanation] = []
    told: list[Explanation | None] = []  # what a broker is told: the rows not accepted
    for start in range(0, frame.height, 30):
        group = (results.slice(start, 30), frame.slice(start, 30))
        in_groups += explainer.explain_all(*group)
        told += explainer.explain_not_accepted(*group)
    assert in_groups == whole
    assert told == [None if e.decision == "aceptada" else e for e in whole]
    # What was compared: every decision, every limit's sentence, every cause.
    assert {e.decision for e in in_groups} == {"aceptada", "reducida", "rechazada"}
    rules = compiled.offer.program.limits
    applied = [r for r in rules if results[limit_column(r)].is_not_null().any()]
    assert len(applied) * 2 > len(rules)  # most limits apply to some row of the population
    for rule in applied:
        sentence = f"{rule.name}: "
        assert any(line.startswith(sentence) for e in in_groups for line in e.limits), rule.id
    found = results["causas"].cast(pl.Int64).to_list()
    kinds = {c.kind for i, c in enumerate(compiled.checks) if any(n >> i & 1 for n in found)}
    assert {"compromiso", "documento", "falta_valor", "justa_causa", "permitida_cero"} <= kinds


def test_the_office_folders_test_program_is_explained_alike_row_by_row() -> None:
    """The test decree (a price of six decimals, a cap in % of the issuer's outstanding
    shares, counts above 10¹³) says the same row by row as in columns: the calculator and a
    group of single acceptances explain it row by row."""
    program = load_program_file(folder.FOLDER / "programa.yaml")
    compiled = CompiledProgram(make_offer(program, yaml.safe_load(folder.OFFER)))
    csv = "\n".join([folder.HEADER, *folder.ROWS]) + "\n"
    frame = parse(RawTable("lote.csv", _raw(csv.encode())))
    results = compiled.evaluate(frame)
    columnar = Explainer(compiled).columns(results, frame)
    expected = row_by_row_columns(compiled, frame)
    for name in expected.columns:
        assert columnar[name].to_list() == expected[name].to_list(), name
    assert any("acciones en circulación" in line for line in expected["limites_detalle"])
