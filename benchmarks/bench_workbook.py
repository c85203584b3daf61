"""Benchmark: a broker's XLSX, typed cells and all (``reports.render.workbook``).

``python benchmarks/bench_workbook.py [--n 20000]``

Writes ``n`` rows of a Primera Etapa broker's file (radicado, name, filing time, shares,
award, price, sum to pay) to a temporary folder and prints the seconds and the rows per
second; target: at least 2.000 rows per second (a broker's 100.000 acceptances in under a
minute), on a quiet machine.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import polars as pl

from democratiza.money import fixed, group
from democratiza.reports.columns import TITLES
from democratiza.reports.render.workbook import write_workbook

TARGET = 2_000  # rows per second


def broker_rows(n: int) -> pl.DataFrame:
    start = datetime(2018, 1, 2, 8, 0)
    return pl.DataFrame(
        {
            "radicado": [f"CLYF-000001-{i:07d}" for i in range(1, n + 1)],
            "nombre": [f"Aceptante {i}" for i in range(n)],
            "fecha_radicacion": [start + timedelta(minutes=i) for i in range(n)],
            "cantidad": [1_000 + i for i in range(n)],
            "adjudicada": [500 + i // 2 for i in range(n)],
            "precio": pl.Series([Decimal("1000.00")] * n, dtype=pl.Decimal(38, 2)),
            "valor_a_pagar": pl.Series(
                [Decimal(500 + i // 2) * 1000 for i in range(n)], dtype=pl.Decimal(22, 2)
            ),
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=20_000)
    n = parser.parse_args().n
    frame = broker_rows(n)
    with tempfile.TemporaryDirectory() as folder:
        begin = time.perf_counter()
        write_workbook(frame, Path(folder) / "adjudicacion.xlsx", "Adjudicación", TITLES)
        spent = time.perf_counter() - begin
    rate = n / spent
    print(f"{group(n)} filas de {frame.width} columnas: {fixed(Fraction(spent), 2)} s")
    print(f"  {group(round(rate))} filas por segundo (meta: ≥ {group(TARGET)})")


if __name__ == "__main__":
    main()
