"""Benchmark: what watching ``lote importar``'s bar costs the evaluation of a batch.

``python benchmarks/bench_import_pieces.py [--n 200000]``

A watched import evaluates its batch in pieces of ``filing.batches.PIECE_ROWS`` rows, to
tell the rows done; unwatched (the service, a script) it evaluates it in one piece. Prints
the median of five evaluations each way on ``geb-2017`` and their ratio; target: at most
1,2 × the single piece (on a quiet machine; the pieces are decided exactly alike, which
``tests/test_import_progress.py`` checks).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from fractions import Fraction

import polars as pl
from generate import generate

from democratiza.filing.batches import PIECE_ROWS, evaluate_in_pieces
from democratiza.money import fixed, group
from democratiza.programs.loader import load_program
from democratiza.programs.parameters import make_offer
from democratiza.rules.engine import CompiledProgram
from democratiza.tables.parse import parse
from democratiza.tables.readers import RawTable

OFFER = {"trm": "2984.00", "fecha_aviso": "2017-12-22", "fecha_cierre": "2018-02-26"}
TARGET = 1.2


def median_seconds(run: Callable[[], object], times: int = 5) -> float:
    spent = []
    for _ in range(times):
        start = time.perf_counter()
        run()
        spent.append(time.perf_counter() - start)
    return statistics.median(spent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=200_000)
    n = parser.parse_args().n
    text = generate(n).with_row_index("fila", 2).with_columns(pl.col("fila").cast(pl.Int64))
    frame = parse(RawTable("sintetico", text))
    compiled = CompiledProgram(make_offer(load_program("geb-2017"), OFFER))
    compiled.evaluate(frame.head(100))  # the plan built once, as for a real offer
    whole = median_seconds(lambda: compiled.evaluate(frame))
    pieces = median_seconds(lambda: evaluate_in_pieces(compiled, frame, lambda *_: None))
    ratio = pieces / whole
    print(f"{group(n)} aceptaciones")
    print(f"  una pieza: {fixed(Fraction(whole), 3)} s")
    print(f"  en piezas de {group(PIECE_ROWS)}: {fixed(Fraction(pieces), 3)} s")
    print(f"  razón: {fixed(Fraction(ratio), 2)} × (meta: ≤ {fixed(Fraction(TARGET), 1)} ×)")


if __name__ == "__main__":
    main()
