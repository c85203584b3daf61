"""Benchmark: generate, read, type and evaluate N acceptances; check against the reference.

``python benchmarks/bench_engine.py [--n 1000000] [--reference-sample K] [--seed S]``

Prints, each timed with ``time.perf_counter``: the generation of the synthetic file, the bare
CSV parse (Polars and, for comparison, PyArrow, every column as text), the intake
(``read_table`` + ``parse``) to the typed frame, the evaluation (best and median of three),
the peak memory (``ru_maxrss``) and the decision counts. Then it runs the plain per-row
``Decimal`` reference (``tests/reference.py``) on every row (or on a random sample of K rows;
``--reference-sample 0`` skips it) and counts the limits on which the two disagree.
"""

from __future__ import annotations

import argparse
import importlib
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol, cast

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.csv as pacsv
from generate import generate

from democratiza.money import group
from democratiza.programs.loader import load_program
from democratiza.programs.parameters import Offer, make_offer
from democratiza.rules.engine import CompiledProgram, limit_column
from democratiza.tables.parse import parse
from democratiza.tables.readers import read_table

PROGRAM = "geb-2017"
# The TRM converts the foreigners' dollars. The generated file has new managers (with their
# date of arrival), and for them the engine needs the closing date to check that they were
# in post the business day before it: without it the whole batch is refused. 26 Feb 2018 is
# the day the GEB Primera Etapa closed (fuentes.md §3).
OFFER_PARAMETERS: dict[str, object] = {"trm": "2984.00", "fecha_cierre": "2018-02-26"}
EVALUATION_RUNS = 3
TESTS_DIR = Path(__file__).resolve().parent.parent / "tests"
LABEL_WIDTH = 62


class ReferenceResult(Protocol):
    @property
    def limits(self) -> dict[str, int | None]: ...

    @property
    def permitted(self) -> int: ...

    @property
    def binding(self) -> str | None: ...


ReferenceEvaluate = Callable[[Offer, dict[str, Any]], ReferenceResult]


def load_reference() -> ReferenceEvaluate:
    """``reference_evaluate`` from ``tests/reference.py`` (the tests are not a package)."""
    if str(TESTS_DIR) not in sys.path:
        sys.path.insert(0, str(TESTS_DIR))
    module = importlib.import_module("reference")
    return cast(ReferenceEvaluate, module.reference_evaluate)


# --- Spanish rendering ---------------------------------------------------------------------


def seconds(value: float) -> str:
    digits = 2 if value >= 0.1 else 3
    return f"{value:.{digits}f}".replace(".", ",") + " s"


def decimal(value: float, digits: int = 1) -> str:
    whole, _, frac = f"{value:.{digits}f}".partition(".")
    grouped: str = group(int(whole))
    return grouped + ("," + frac if frac else "")


def mebibytes(n_bytes: float) -> str:
    return decimal(n_bytes / 2**20) + " MiB"


def peak_memory_bytes() -> int:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # Linux reports KiB


def line(label: str, value: str) -> None:
    print(f"  {label:<{LABEL_WIDTH}} {value:>18}")


def heading(title: str) -> None:
    print()
    print(title)
    print("  " + "-" * (LABEL_WIDTH + 19))


# --- the comparison with the reference -----------------------------------------------------


def compare_with_reference(
    offer: Offer,
    typed: pl.DataFrame,
    result: pl.DataFrame,
    sample: int | None,
    seed: int,
) -> None:
    reference_evaluate = load_reference()
    rules = offer.program.limits
    if sample is None or sample >= typed.height:
        rows, decided = typed, result
    else:
        chosen = np.sort(np.random.default_rng(seed).choice(typed.height, sample, replace=False))
        rows, decided = typed[chosen], result[chosen]
    engine_columns = [limit_column(r) for r in rules]
    engine = decided.select(
        "fila",
        "referencia",
        "decision",
        "cantidad_permitida",
        "regla_limitante",
        *engine_columns,
    )
    limit_disagreements: list[str] = []
    rows_disagreeing = 0
    outcome_disagreements: list[str] = []
    start = time.perf_counter()
    for row, mine in zip(rows.iter_rows(named=True), engine.iter_rows(), strict=True):
        fila, referencia, decision, permitted, binding, *limits = mine
        if row["fila"] != fila:
            raise AssertionError(f"filas desalineadas: {row['fila']} ≠ {fila}")
        expected = reference_evaluate(offer, row)
        row_bad = False
        for rule, value in zip(rules, limits, strict=True):
            if expected.limits[rule.id] != value:
                row_bad = True
                limit_disagreements.append(
                    f"fila {fila} ({referencia}), {rule.id}: motor {value}, "
                    f"referencia {expected.limits[rule.id]}"
                )
        rows_disagreeing += row_bad
        if decision != "rechazada":
            if permitted != expected.permitted:
                outcome_disagreements.append(
                    f"fila {fila} ({referencia}): cantidad permitida motor {permitted}, "
                    f"referencia {expected.permitted}"
                )
            elif decision == "reducida" and binding != expected.binding:
                outcome_disagreements.append(
                    f"fila {fila} ({referencia}): regla limitante motor {binding}, "
                    f"referencia {expected.binding}"
                )
    elapsed = time.perf_counter() - start

    heading(f"Referencia Decimal por fila ({group(rows.height)} aceptaciones)")
    line("Tiempo de la referencia (iter_rows + reference_evaluate)", seconds(elapsed))
    line("Aceptaciones por segundo (referencia)", group(round(rows.height / elapsed)))
    line(
        f"Límites comparados ({len(rules)} reglas por aceptación)", group(rows.height * len(rules))
    )
    line("Discrepancias en límites", group(len(limit_disagreements)))
    line("Aceptaciones con alguna discrepancia", group(rows_disagreeing))
    line("Discrepancias en cantidad permitida o regla limitante", group(len(outcome_disagreements)))
    for label, items in (
        ("límites", limit_disagreements),
        ("cantidad o regla", outcome_disagreements),
    ):
        if items:
            print(f"  Primeras discrepancias ({label}):")
            for item in items[:5]:
                print(f"    - {item}")


# --- the benchmark -------------------------------------------------------------------------


def decision_counts(result: pl.DataFrame) -> Mapping[str, int]:
    counts = result["decision"].value_counts()
    found = dict(zip(counts["decision"].cast(pl.String), counts["count"], strict=True))
    return {d: int(found.get(d, 0)) for d in ("aceptada", "reducida", "rechazada")}


def run(n: int, seed: int, reference_sample: int | None) -> None:
    print(
        f"Banco de pruebas del motor: {group(n)} aceptaciones sintéticas del programa "
        f"{PROGRAM} (semilla {seed})"
    )

    heading("Generación")
    start = time.perf_counter()
    raw = generate(n, seed=seed, program_id=PROGRAM)
    line(f"Generación ({group(n)} aceptaciones, texto)", seconds(time.perf_counter() - start))
    line("Memoria pico acumulada", mebibytes(peak_memory_bytes()))

    with tempfile.TemporaryDirectory(prefix="democratiza-bench-") as tmp:
        path = Path(tmp) / "aceptaciones.csv"
        start = time.perf_counter()
        raw.write_csv(path, separator=",")
        written = time.perf_counter() - start
        names = raw.columns
        del raw
        line(f"Escritura del CSV ({mebibytes(path.stat().st_size)})", seconds(written))

        heading("(a) Lectura del CSV sola (todas las columnas como texto)")
        start = time.perf_counter()
        plain = pl.read_csv(path, infer_schema=False)
        line("polars.read_csv (infer_schema=False)", seconds(time.perf_counter() - start))
        assert plain.height == n
        del plain
        options = pacsv.ConvertOptions(
            column_types=dict.fromkeys(names, pa.string()), strings_can_be_null=True
        )
        start = time.perf_counter()
        arrow = pacsv.read_csv(path, convert_options=options)
        line("pyarrow.csv.read_csv (todo string)", seconds(time.perf_counter() - start))
        assert arrow.num_rows == n
        del arrow

        heading("(b) Ingreso: archivo → tabla tipada")
        start = time.perf_counter()
        table = read_table(path)
        read = time.perf_counter() - start
        start = time.perf_counter()
        typed = parse(table)
        parsed = time.perf_counter() - start
        del table
    line("tables.readers.read_table (lectura y limpieza)", seconds(read))
    line("tables.parse.parse (tipos, centavos, errores)", seconds(parsed))
    line(f"Ingreso total ({group(typed.height)} aceptaciones)", seconds(read + parsed))
    line("Memoria pico acumulada", mebibytes(peak_memory_bytes()))

    heading(f"(c) Evaluación ({EVALUATION_RUNS} corridas)")
    offer = make_offer(load_program(PROGRAM), OFFER_PARAMETERS)
    runs: list[float] = []
    result = pl.DataFrame()
    for _ in range(EVALUATION_RUNS):
        start = time.perf_counter()
        result = CompiledProgram(offer).evaluate(typed)
        runs.append(time.perf_counter() - start)
    best, median = min(runs), statistics.median(runs)
    line(f"Evaluación ({group(n)} aceptaciones), la mejor", seconds(best))
    line(f"Evaluación ({group(n)} aceptaciones), la mediana", seconds(median))
    line("Aceptaciones por segundo (la mejor)", group(round(n / best)))

    heading("(d) Memoria")
    line("Memoria pico del proceso (ru_maxrss)", mebibytes(peak_memory_bytes()))

    heading("(e) Decisiones")
    for decision, count in decision_counts(result).items():
        line(decision.capitalize(), f"{group(count)} ({decimal(100 * count / n, 2)} %)")

    if reference_sample != 0:
        compare_with_reference(offer, typed, result, reference_sample, seed)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Mide el ingreso y la evaluación del motor.")
    parser.add_argument(
        "--n", type=int, default=1_000_000, help="aceptaciones a generar (por defecto 1.000.000)"
    )
    parser.add_argument(
        "--reference-sample",
        type=int,
        default=None,
        metavar="K",
        help="comparar con la referencia solo K filas al azar; 0 la omite (por defecto: todas)",
    )
    parser.add_argument("--seed", type=int, default=2017, help="semilla (por defecto 2017)")
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error("--n debe ser positivo")
    if args.reference_sample is not None and args.reference_sample < 0:
        parser.error("--reference-sample no puede ser negativo")
    run(args.n, args.seed, args.reference_sample)


if __name__ == "__main__":
    main()
