"""Benchmark: adjudicate N random demands with each method and remainder rule.

``python benchmarks/bench_adjudication.py [--n 1000000] [--seed S] [--runs R] [--check]``

The demands are seeded random whole quantities: most acceptants ask for a few hundred to a
few thousand shares, a tenth up to 200.000, a hundredth up to 5.000.000 (a long tail, many
ties). The supply is 40 % of the total demand, so every method runs in full. Each line is
the best and the median of R runs of ``allocate`` (``time.perf_counter``), in whole shares
and in lots of 100; the last lines force the Int128 prorate with demands of up to 10¹² shares.
With ``--check`` every result is also compared with the plain ``Fraction`` reference
(``tests/adjudication_reference.py``), which takes a few seconds per line.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from democratiza.adjudication.adjudicate import allocate
from democratiza.money import group
from democratiza.vocabulary import METHODS, REMAINDERS, Method, Remainder

LABEL_WIDTH = 58
LINEAR_PERCENT = 25
TESTS_DIR = Path(__file__).resolve().parent.parent / "tests"

Reference = Callable[..., Any]


def load_reference() -> Reference:
    """``reference_allocate`` from ``tests/adjudication_reference.py``."""
    if str(TESTS_DIR) not in sys.path:
        sys.path.insert(0, str(TESTS_DIR))
    module = importlib.import_module("adjudication_reference")
    return cast(Reference, module.reference_allocate)


def seconds(value: float) -> str:
    return f"{value:.3f}".replace(".", ",") + " s"


def demands(n: int, seed: int) -> NDArray[np.int64]:
    rng = np.random.default_rng(seed)
    demand = rng.integers(100, 5_000, n, dtype=np.int64)
    tail = rng.random(n)
    demand[tail < 0.1] = rng.integers(5_000, 200_000, int(np.count_nonzero(tail < 0.1)))
    demand[tail < 0.01] = rng.integers(200_000, 5_000_000, int(np.count_nonzero(tail < 0.01)))
    return demand


def timed(
    demand: NDArray[np.int64],
    supply: int,
    method: Method,
    remainder: Remainder,
    unit: int,
    runs: int,
) -> tuple[float, float, NDArray[np.int64]]:
    percent = LINEAR_PERCENT if method == "lineal_proporcional" else None
    times = []
    awards = np.zeros(0, dtype=np.int64)
    for _ in range(runs):
        start = time.perf_counter()
        awards = allocate(demand, supply, method, remainder, unit, percent).awards
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times), awards


def report(
    demand: NDArray[np.int64], supply: int, unit: int, runs: int, reference: Reference | None
) -> None:
    for method in METHODS:
        for remainder in REMAINDERS:
            best, median, awards = timed(demand, supply, method, remainder, unit, runs)
            label = f"{method} / {remainder}"
            line = (
                f"  {label:<{LABEL_WIDTH}} {seconds(best)}  (mediana {seconds(median)})  "
                f"adjudicadas {group(int(awards.sum()))}"
            )
            if reference is not None:
                percent = LINEAR_PERCENT if method == "lineal_proporcional" else None
                expected = reference(demand.tolist(), supply, method, remainder, unit, percent)
                line += "  = referencia" if awards.tolist() == expected.awards else "  ≠ REFERENCIA"
            print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=226)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--check", action="store_true", help="compare with the reference")
    args = parser.parse_args()
    reference = load_reference() if args.check else None

    demand = demands(args.n, args.seed)
    total = int(demand.sum())
    supply = total * 2 // 5
    print(
        f"{group(args.n)} aceptantes, demanda {group(total)} acciones, oferta {group(supply)} "
        f"(40 %); mejor y mediana de {args.runs} corridas"
    )
    for unit in (1, 100):
        print(f"\nLote de {group(unit)} {'acción' if unit == 1 else 'acciones'}:")
        report(demand, supply, unit, args.runs, reference)

    huge = np.random.default_rng(args.seed).integers(1, 10**12, args.n, dtype=np.int64)
    huge_supply = int(huge.sum()) * 2 // 5
    print("\nDemandas de hasta 10¹² acciones (prorrateo en Int128):")
    report(huge, huge_supply, 1, args.runs, reference)


if __name__ == "__main__":
    main()
