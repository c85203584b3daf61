"""Benchmark: what watching ``lote importar`` costs a whole import (read, evaluate, store).

``python benchmarks/bench_import_watched.py [--n 200000] [--url postgresql://postgres@127.0.0.1/postgres]``

Watched (stderr a terminal), the batch is evaluated in pieces and stored in pieces, each
told to the bar (``cli.progress.rows``, drawn here into memory as onto a terminal);
unwatched, both go in one piece. One broker's batch of ``--n`` acceptances of ``geb-2017``
is imported into a fresh database each time, on SQLite and on PostgreSQL (recreating
``democratiza_bench``), paired in the order unwatched, watched, unwatched, watched,
unwatched. Prints each import's time and that of its storing step alone
(``filing.store.store_batches``, timed from outside), the tellings of 'Guardando', and the
medians watched against unwatched; target: at most 1,2 × (on a quiet machine).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from fractions import Fraction
from io import StringIO
from pathlib import Path
from typing import Any

import polars as pl
from bench_import import open_offer, recreate
from generate import generate
from rich.console import Console

from democratiza.cli.progress import rows
from democratiza.filing import batches
from democratiza.filing.batches import import_batch
from democratiza.filing.store import store_batches
from democratiza.money import fixed, group

BROKER = "SCB01"
TARGET = Fraction(12, 10)
ORDER = (False, True, False, True, False)  # watched or not, one import after the other
STORING: list[float] = []  # seconds in ``store_batches``, one per import


def timed_store(*args: Any, **kwargs: Any) -> Any:
    start = time.perf_counter()
    try:
        return store_batches(*args, **kwargs)
    finally:
        STORING.append(time.perf_counter() - start)


def one_import(url: str, path: Path, watched: bool) -> tuple[float, int]:
    """Seconds of one import into a fresh database, and how often 'Guardando' was told."""
    if url.startswith("postgresql"):
        url = recreate(url, "democratiza_bench")
    engine = open_offer(url)
    saving = [0]
    try:
        with rows(Console(file=StringIO(), force_terminal=watched, width=100)) as tell:

            def counted(step: str, done: int, total: int) -> None:
                saving[0] += step == "Guardando"
                if tell is not None:
                    tell(step, done, total)

            start = time.perf_counter()
            import_batch(
                engine, "geb", path, BROKER, "L1", "bench", progress=counted if tell else None
            )
            return time.perf_counter() - start, saving[0]
    finally:
        engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1/postgres")
    args = parser.parse_args()
    batches.store_batches = timed_store  # type: ignore[attr-defined]  # timed from outside
    frame = generate(args.n, program_id="geb-2017").with_columns(
        pl.lit(BROKER).alias("comisionista")
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{BROKER}.csv"
        frame.write_csv(path)
        del frame
        for name, url in [
            ("SQLite", f"sqlite:///{Path(tmp) / 'bench.db'}"),
            ("PostgreSQL", args.url),
        ]:
            print(f"{group(args.n)} aceptaciones de un comisionista en {name}")
            spent: dict[bool, list[float]] = {False: [], True: []}
            stored: dict[bool, list[float]] = {False: [], True: []}
            for watched in ORDER:
                if not url.startswith("postgresql"):
                    (Path(tmp) / "bench.db").unlink(missing_ok=True)
                seconds, told = one_import(url, path, watched)
                spent[watched].append(seconds)
                stored[watched].append(STORING[-1])
                shown = f"con terminal ('Guardando' {told} veces)" if watched else "sin terminal"
                print(
                    f"  {shown:<40}{fixed(Fraction(seconds), 2):>8} s"
                    f"  (guardar: {fixed(Fraction(STORING[-1]), 2)} s)"
                )
            for label, times in (("importar", spent), ("guardar", stored)):
                ratio = Fraction(statistics.median(times[True]) / statistics.median(times[False]))
                print(f"  razón {label}: {fixed(ratio, 2)} × (meta: ≤ {fixed(TARGET, 1)} ×)")


if __name__ == "__main__":
    main()
