"""``democratiza evaluar`` reads a file as it goes, in pieces: the decision files are the
same bytes as evaluating the file whole, rows keep their numbers, and an error in any piece
refuses the whole file with every piece's errors."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from democratiza.cli import evaluate
from democratiza.cli.main import app
from democratiza.cli.offer_options import offer_from
from democratiza.reports.decisions import Outputs, write_decisions
from democratiza.rules.engine import CompiledProgram
from democratiza.tables.parse import parse
from democratiza.tables.readers import read_csv_chunks, read_table

ROOT = Path(__file__).parents[1]
SAMPLE = ROOT / "examples/aceptaciones-geb-2017.csv"  # 22 acceptances
OFFER = ROOT / "examples/oferta-geb-2017.yaml"
runner = CliRunner()


def run(path: Path, out: Path, *options: str) -> str:
    arguments = ["evaluar", "-p", "geb-2017", str(path), "--oferta", str(OFFER), "-o", str(out)]
    arguments += options
    result = runner.invoke(app, arguments, env={"COLUMNS": "400"})
    return f"{result.exit_code}\n{result.output}"


def test_pieces_of_five_rows_give_the_bytes_of_the_whole_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compiled = CompiledProgram(offer_from("geb-2017", None, OFFER))
    frame = parse(read_table(SAMPLE))
    results = compiled.evaluate(frame)
    whole = write_decisions(
        compiled, results, frame, tmp_path / "whole", "d", outputs=Outputs(parquet=True)
    )
    monkeypatch.setattr(evaluate, "CHUNK", 5)
    assert run(SAMPLE, tmp_path / "pieces", "--detalle", "--json", "--parquet").startswith("0\n")
    pieces = sorted((tmp_path / "pieces").iterdir())
    # A Parquet file's bytes hold how it was cut into row groups: the same rows, read back.
    parquet, whole_parquet = pieces.pop(), whole.pop()
    assert parquet.suffix == whole_parquet.suffix == ".parquet"
    assert [p.read_bytes() for p in pieces] == [p.read_bytes() for p in whole]
    assert pl.read_parquet(parquet).equals(pl.read_parquet(whole_parquet))
    assert pl.read_parquet(parquet).height == 22


def test_the_pieces_number_their_rows_as_the_file_does() -> None:
    chunks = read_csv_chunks(SAMPLE, 5)
    assert chunks.rows == 22
    numbers = [n for piece in chunks.pieces for n in piece.frame["fila"].to_list()]
    assert numbers == list(range(2, 24))  # the header is row 1


def test_errors_in_two_pieces_refuse_the_file_and_are_all_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2].replace(",50000,", ",cinco mil,", 1)  # row 3, first piece
    lines[20] = lines[20].replace("fondo_pensiones_cesantias", "gerente", 1)  # row 21, fifth
    bad = tmp_path / "malo.csv"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setattr(evaluate, "CHUNK", 5)
    output = run(bad, tmp_path / "salida")
    assert output.startswith("1\n")
    assert "El archivo tiene 2 errores; no se escribió nada" in output
    assert "fila 3, columna 'cantidad'" in output
    assert "fila 21, columna 'categoria': valor desconocido 'gerente'" in output
    assert not (tmp_path / "salida").exists()
