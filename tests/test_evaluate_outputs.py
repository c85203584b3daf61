"""What ``democratiza evaluar`` writes: by default one CSV a person can open; the per-limit
sentences, the JSON and the Parquet only when asked, with today's detailed bytes."""

from __future__ import annotations

import json
import mmap
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from democratiza.cli.evaluate import INDIVIDUAL
from democratiza.cli.main import app
from democratiza.cli.offer_options import offer_from
from democratiza.programs.loader import load_program
from democratiza.programs.parameters import make_offer
from democratiza.reports import decisions
from democratiza.reports.decisions import (
    Outputs,
    explain_chunk,
    export_columns,
    short_columns,
    write_decisions,
)
from democratiza.rules.engine import CompiledProgram
from democratiza.rules.explain import Explainer
from democratiza.tables.cells import csv_bytes, csv_style
from democratiza.tables.parse import parse
from democratiza.tables.readers import read_table
from tests.test_explanations import PARAMS, generate, typed

ROOT = Path(__file__).parents[1]
SAMPLE = ROOT / "examples/aceptaciones-geb-2017.csv"  # 22 acceptances
OFFER = ROOT / "examples/oferta-geb-2017.yaml"
STEM = "decisiones-aceptaciones-geb-2017"
runner = CliRunner()


def evaluar(out: Path, *options: str) -> str:
    arguments = ["evaluar", "-p", "geb-2017", str(SAMPLE), "--oferta", str(OFFER), "-o", str(out)]
    result = runner.invoke(app, [*arguments, *options], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    return result.output


def compiled() -> CompiledProgram:
    return CompiledProgram(offer_from("geb-2017", None, OFFER))


def test_by_default_one_csv_with_a_sentence_and_each_limits_number(tmp_path: Path) -> None:
    evaluar(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == [f"{STEM}.csv"]
    decisions = pl.read_csv(tmp_path / f"{STEM}.csv", infer_schema=False)
    assert decisions.columns == short_columns(compiled())
    assert "limites_detalle" not in decisions.columns
    assert decisions.height == 22
    reduced = decisions.filter(pl.col("decision") == "reducida").row(0, named=True)
    # The binding rule in words with its article, and the sentence with its arithmetic.
    assert "art." in reduced["regla_limitante_cita"]
    assert reduced["explicacion"].startswith("Reducida de ")
    assert reduced["limite__geb-8.2.1"] is not None


def test_detalle_and_json_give_the_brokers_files_byte_for_byte(tmp_path: Path) -> None:
    """``--detalle --json`` writes the two files every broker's batch gets (and that
    ``evaluar`` wrote before the short CSV): the same writer, the same bytes."""
    evaluar(tmp_path / "cli", "--detalle", "--json")
    program = compiled()
    frame = parse(read_table(SAMPLE))
    whole = write_decisions(program, program.evaluate(frame), frame, tmp_path / "whole", STEM)
    written = sorted((tmp_path / "cli").iterdir())
    assert [p.name for p in written] == [f"{STEM}.csv", f"{STEM}.json"]
    assert [p.read_bytes() for p in written] == [p.read_bytes() for p in whole]
    header = (tmp_path / "cli" / f"{STEM}.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header.split(",") == export_columns(program)


def test_detalle_alone_adds_the_sentences_of_each_limit(tmp_path: Path) -> None:
    evaluar(tmp_path, "--detalle")
    assert [p.name for p in tmp_path.iterdir()] == [f"{STEM}.csv"]
    decisions = pl.read_csv(tmp_path / f"{STEM}.csv", infer_schema=False)
    assert decisions["limites_detalle"].str.contains("art.").all()


def test_parquet_holds_every_column_of_the_json(tmp_path: Path) -> None:
    evaluar(tmp_path, "--json", "--parquet")
    table = pl.read_parquet(tmp_path / f"{STEM}.parquet")
    document = json.loads((tmp_path / f"{STEM}.json").read_text(encoding="utf-8"))
    assert table.columns == export_columns(compiled())
    assert table["referencia"].to_list() == [d["referencia"] for d in document["decisiones"]]
    assert table["cantidad_permitida"].to_list() == [
        d["cantidad_permitida"] for d in document["decisiones"]
    ]
    assert table["limites_detalle"].to_list() == [
        d["limites_detalle"] for d in document["decisiones"]
    ]


def test_the_first_line_says_each_row_is_evaluated_alone(tmp_path: Path) -> None:
    """Issue 27 point 8: two rows of one person are not added up by ``evaluar`` (the
    adjudication does it); its first line says so."""
    output = evaluar(tmp_path)
    assert " ".join(output.split()).startswith(" ".join(INDIVIDUAL.split()))


@pytest.mark.parametrize("program_id", list(PARAMS))
def test_the_default_csv_is_the_detailed_ones_columns_byte_for_byte(
    program_id: str, tmp_path: Path
) -> None:
    """The CSV a person opens writes the sentences only where its explanation reads them
    (a row not accepted, or with a cause): with either separator, its bytes are those of
    the detailed file's columns written alone."""
    params = PARAMS[program_id]
    frame = typed(generate(3_000, seed=7, program_id=program_id, params=params))
    program = CompiledProgram(make_offer(load_program(program_id), params))
    results = program.evaluate(frame)
    assert set(results["decision"].cast(pl.String)) >= {"aceptada", "reducida"}
    assert (results["causas"] != 0).any()  # some rows are explained by their causes
    explainer = Explainer(program)
    detailed = explain_chunk(explainer, results, frame).select(short_columns(program))
    assert explain_chunk(explainer, results, frame, detail=False).equals(detailed)
    for separator in (",", ";"):
        outputs = Outputs(detail=False, json=False, separator=separator)
        [written] = write_decisions(
            program, results, frame, tmp_path / separator, "d", None, outputs
        )
        assert written.read_bytes() == csv_bytes(detailed, **csv_style(separator))


def test_the_json_is_polars_write_json_of_the_rows_even_with_newlines_in_a_cell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The JSON's records are written as lines and their newlines made commas in place
    (``reports.decisions._close_array``): a newline, a quote or a backslash inside a cell
    stays escaped, in pieces of any size, and the array holds the bytes ``write_json``
    gives for the same rows."""
    program = compiled()
    frame = parse(read_table(SAMPLE))
    frame = frame.with_columns(
        pl.when(pl.col("fila") % 3 == 0)
        .then(pl.concat_str([pl.col("nombre"), pl.lit(' "alias"\n\\ ')]))
        .otherwise(pl.col("nombre"))
        .alias("nombre")
    )
    results = program.evaluate(frame)
    expected = explain_chunk(Explainer(program), results, frame).with_columns(
        pl.col("fecha_radicacion").dt.to_string()
    )
    # The in-place pass a window at a time too: the smallest a map allows.
    monkeypatch.setattr(decisions, "ARRAY_STEP", mmap.ALLOCATIONGRANULARITY)
    for chunk in (5, 22):
        monkeypatch.setattr(decisions, "CHUNK", chunk)
        outputs = Outputs(detail=True, json=True)
        _, written = write_decisions(
            program, results, frame, tmp_path / str(chunk), "d", None, outputs
        )
        text = written.read_bytes()
        assert len(text) > 3 * mmap.ALLOCATIONGRANULARITY
        assert text.endswith(b"]}\n")
        assert text[text.index(b'"decisiones": [') + 14 : -2] == expected.write_json().encode()
        document = json.loads(text)
        assert [d["nombre"] for d in document["decisiones"]] == frame["nombre"].to_list()


@pytest.mark.parametrize("program_id", list(PARAMS))
def test_the_causes_codes_are_each_rows_failed_checks_in_order(program_id: str) -> None:
    """``causas_codigos`` is looked up by the distinct values of the bits
    (``reports.decisions.cause_codes``): row by row, the codes of the checks whose bit is set,
    in the program's order, and '' for a row with no cause."""
    params = PARAMS[program_id]
    frame = typed(generate(3_000, seed=5, program_id=program_id, params=params))
    program = CompiledProgram(make_offer(load_program(program_id), params))
    results = program.evaluate(frame)
    assert results["causas"].n_unique() > 2  # several kinds of rejection, and none
    found = explain_chunk(Explainer(program), results, frame)["causas_codigos"].to_list()
    expected = [
        ";".join(c.code for i, c in enumerate(program.checks) if bits & (1 << i))
        for bits in results["causas"].to_list()
    ]
    assert found == expected
    assert "" in found


def test_a_piece_that_fails_to_be_written_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pieces are written by a thread of their own (``DecisionFiles``): an error there
    is raised to the caller, and nothing is left behind, not even the folder."""
    program = compiled()
    frame = parse(read_table(SAMPLE))
    results = program.evaluate(frame)
    written: list[int] = []

    def fails_third(part: pl.DataFrame, target: object) -> None:
        written.append(part.height)
        if len(written) == 3:
            raise OSError("disco lleno")

    monkeypatch.setattr(decisions, "CHUNK", 5)
    monkeypatch.setattr(decisions, "_write_records", fails_third)
    with pytest.raises(OSError, match="disco lleno"):
        write_decisions(program, results, frame, tmp_path / "salida", "d")
    assert written == [5, 5, 5]  # in order, and none after the error
    assert not (tmp_path / "salida").exists()
