"""Benchmark: clear a Segunda Etapa book of N orders with each mechanism.

``python benchmarks/bench_clearing.py [--n 1000000] [--seed S] [--runs R] [--check]``

The book is seeded and random: prices on whole-peso ticks from the GEB minimum, COP 2.018,
to COP 2.400 (many orders at each price), quantities from the GEB minimum order of 5.000
shares with a long tail (a tenth up to 200.000, a hundredth up to 5.000.000), entry ranks a
random permutation. The offer is 40 % of the demand, so the Dutch price lies inside the book
and the orders at it are prorated. Book-building is run with the cut-off at that price (the
orders at it prorated) and ten pesos below it (more demand above the cut-off than the offer:
the orders above it prorated). A last book puts every order at one price, so that the whole
book is the margin.

Each line is the best and the median of R runs of ``clear`` (validation included), timed
with ``time.perf_counter``, against the target of 0,5 s per book. With ``--check`` every
result is also compared with the plain ``Fraction`` reference (``tests/clearing_reference.py``),
which takes several seconds per line.
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

from democratiza.money import group, pesos
from democratiza.stages.clearing import ClearingResult, clear, dutch_price
from democratiza.vocabulary import Mechanism

MINIMUM = 201_800  # COP 2.018 in centavos
TARGET = 0.5
LABEL_WIDTH = 52
TESTS_DIR = Path(__file__).resolve().parent.parent / "tests"

Reference = Callable[..., Any]
Book = tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]


def load_reference() -> Reference:
    """``reference_clear`` from ``tests/clearing_reference.py``."""
    if str(TESTS_DIR) not in sys.path:
        sys.path.insert(0, str(TESTS_DIR))
    module = importlib.import_module("clearing_reference")
    return cast(Reference, module.reference_clear)


def seconds(value: float) -> str:
    return f"{value:.3f}".replace(".", ",") + " s"


def random_book(n: int, seed: int) -> Book:
    rng = np.random.default_rng(seed)
    prices = (MINIMUM + rng.integers(0, 383, n, dtype=np.int64) * 100).astype(np.int64)
    quantities = rng.integers(5_000, 50_000, n, dtype=np.int64)
    tail = rng.random(n)
    quantities[tail < 0.1] = rng.integers(50_000, 200_000, int(np.count_nonzero(tail < 0.1)))
    quantities[tail < 0.01] = rng.integers(200_000, 5_000_000, int(np.count_nonzero(tail < 0.01)))
    entry = rng.permutation(n).astype(np.int64)
    return prices, quantities, entry


def timed(
    book: Book, offered: int, lot: int, mechanism: Mechanism, cutoff: int | None, runs: int
) -> tuple[float, float, ClearingResult]:
    times = []
    result: ClearingResult | None = None
    for _ in range(runs):
        start = time.perf_counter()
        result = clear(*book, offered, MINIMUM, lot, mechanism, cutoff)
        times.append(time.perf_counter() - start)
    assert result is not None
    return min(times), statistics.median(times), result


def report(
    label: str,
    book: Book,
    offered: int,
    lot: int,
    mechanism: Mechanism,
    cutoff: int | None,
    runs: int,
    reference: Reference | None,
) -> float:
    best, median, result = timed(book, offered, lot, mechanism, cutoff, runs)
    assert result.price is not None
    verdict = "cumple" if median <= TARGET else "NO CUMPLE"
    line = (
        f"  {label:<{LABEL_WIDTH}} {seconds(best)}  (mediana {seconds(median)}, {verdict})  "
        f"precio {pesos(result.price)}, adjudicadas {group(result.total)}"
    )
    if reference is not None:
        expected = reference(
            *(column.tolist() for column in book), offered, MINIMUM, lot, mechanism, cutoff
        )
        same = result.allocations.tolist() == expected.allocations
        line += "  = referencia" if same else "  ≠ REFERENCIA"
    print(line, flush=True)
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=226)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--check", action="store_true", help="compare with the reference")
    args = parser.parse_args()
    reference = load_reference() if args.check else None

    book = random_book(args.n, args.seed)
    total = int(book[1].sum())
    offered = total * 2 // 5
    price = dutch_price(book[0], book[1], offered, MINIMUM)
    print(
        f"{group(args.n)} órdenes, demanda {group(total)} acciones, oferta {group(offered)} "
        f"(40 %); mejor y mediana de {args.runs} corridas; objetivo {seconds(TARGET)}"
    )
    medians = []
    for lot in (1, 100, 5_000):
        lot_label = f"lote {group(lot)}"
        medians.append(
            report(
                f"subasta holandesa, {lot_label}",
                book,
                offered,
                lot,
                "subasta_holandesa",
                None,
                args.runs,
                reference,
            )
        )
        for cutoff in (price, price - 1_000):
            medians.append(
                report(
                    f"construcción del libro (corte {pesos(cutoff)}), {lot_label}",
                    book,
                    offered,
                    lot,
                    "construccion_libro",
                    cutoff,
                    args.runs,
                    reference,
                )
            )

    one_price = (np.full(args.n, 205_000, dtype=np.int64), book[1], book[2])
    print("\nTodas las órdenes a un mismo precio (todo el libro en el margen):")
    for lot in (1, 100):
        medians.append(
            report(
                f"subasta holandesa, lote {group(lot)}",
                one_price,
                offered,
                lot,
                "subasta_holandesa",
                None,
                args.runs,
                reference,
            )
        )
    print(f"\nPeor mediana: {seconds(max(medians))} (objetivo {seconds(TARGET)}).")


if __name__ == "__main__":
    main()
