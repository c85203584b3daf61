"""Benchmark: 1,000,000 acceptances from 20 brokers into PostgreSQL, then the adjudication.

``python benchmarks/bench_import.py [--n 1000000] [--url postgresql://postgres@127.0.0.1/postgres]``

Uses (and recreates) the database ``democratiza_bench``. Prints:
- a plain COPY of the same CSV files into an untyped table (the yardstick);
- the import of the 20 batches through ``filing.batches.import_batch`` (parse, evaluation,
  COPY into ``aceptaciones``), whose target is to keep today's ratio to the plain COPY
  (at most 4,3 ×, with both of the schema's database guarantees kept);
- the adjudication of the closed, oversubscribed offer: the whole record (per-person
  limits, allocation, hashes) and the allocation step alone for each method;
- peak memory (target under 3 GiB).

``--veces N`` repeats the yardstick and the import N times, one after the other on a fresh
database each time, and prints the median ratio and its range: on a shared virtual machine
one round can be a third slower than the next.

Each round also prints the CPU the import used (the whole machine, from ``/proc/stat``, and
this process), and the lowest ratio that CPU allows: the import's CPU spread over every
core with none left idle, against the yardstick. ``--ajuste SQL`` runs statements on the
benchmark's database after it is migrated (say, dropping an index), to measure what one
guarantee of the schema costs; the figures are then not the schema's.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import polars as pl
import psycopg
from generate import generate
from sqlalchemy import Engine

from democratiza.adjudication.adjudicate import allocate
from democratiza.adjudication.record import compute, current_acceptances
from democratiza.filing.batches import import_batch
from democratiza.money import group
from democratiza.offers.lifecycle import advance, create_offer, load_offer
from democratiza.storage.database import make_engine, migrate

BROKERS = 20
OFFER = {"trm": "2984.00", "fecha_aviso": "2017-12-22", "fecha_cierre": "2018-02-26"}


def decimal(value: float) -> str:
    return f"{value:.2f}".replace(".", ",")


def seconds(value: float) -> str:
    return f"{decimal(value)} s"


def line(label: str, value: str) -> None:
    print(f"  {label:<66}{value:>14}")


def recreate(admin_url: str, name: str) -> str:
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    return admin_url.rsplit("/", 1)[0] + f"/{name}"


def plain_copy(url: str, files: list[Path], columns: list[str]) -> float:
    with psycopg.connect(url) as conn:
        conn.execute(f"CREATE TABLE plano ({', '.join(f'{c} text' for c in columns)})")
        conn.commit()
        start = time.perf_counter()
        with conn.cursor() as cursor:
            for path in files:
                statement = "COPY plano FROM STDIN WITH (FORMAT csv, HEADER true)"
                with cursor.copy(statement) as copy:
                    copy.write(path.read_bytes())
        conn.commit()
        return time.perf_counter() - start


def open_offer(url: str, adjustments: Sequence[str] = ()) -> Engine:
    """The migrated database at ``url`` (then ``adjustments``) with the offer ``geb`` open."""
    engine = make_engine(url)
    migrate(engine)
    if adjustments:
        # Straight to the driver, with no parameters, so that "%" stays an operator.
        with psycopg.connect(url) as raw:
            for statement in adjustments:
                raw.execute(statement.encode())
    with engine.begin() as conn:
        stored = create_offer(conn, "geb", "geb-2017", dict(OFFER), "bench", "aviso")
        advance(conn, stored, "abierta", "bench", "apertura")
    return engine


def one_round(
    args: argparse.Namespace, files: list[Path], columns: list[str]
) -> tuple[Engine, float, float]:
    """The yardstick, then the import into a fresh database: its engine and both times."""
    url = recreate(args.url, "democratiza_bench")
    copy_time = plain_copy(url, files, columns)
    line("COPY plano del mismo CSV en una tabla sin tipos", seconds(copy_time))
    engine = open_offer(url, args.ajuste)
    machine_before, process_before = machine_cpu(), process_cpu()
    start = time.perf_counter()
    # Brokers send at the same time; two at once on a two-core machine.
    with ThreadPoolExecutor(max_workers=args.workers) as pool:
        jobs = [
            pool.submit(import_batch, engine, "geb", path, f"SCB{i:02d}", "L1", "bench")
            for i, path in enumerate(files, start=1)
        ]
        for job in jobs:
            job.result()
    import_time = time.perf_counter() - start
    line(
        f"Ingreso de los 20 lotes, {args.workers} a la vez (lectura, tipos, evaluación, COPY)",
        seconds(import_time),
    )
    line("Razón frente al COPY plano (meta ≤ 4,3)", decimal(import_time / copy_time))
    busy = machine_cpu()
    if busy is not None and machine_before is not None:
        used, process = busy - machine_before, process_cpu() - process_before
        cores = os.cpu_count() or 1
        line("CPU de la máquina en el ingreso", seconds(used))
        line("  de este proceso (lectura, tipos, evaluación, codificación)", seconds(process))
        line("  del servidor y el resto", seconds(used - process))
        line(f"  núcleos ocupados en promedio (de {cores})", decimal(used / import_time))
        line(
            f"Razón mínima con esa CPU y los {cores} núcleos ocupados sin pausa",
            decimal(used / cores / copy_time),
        )
    return engine, copy_time, import_time


def machine_cpu() -> float | None:
    """Seconds of CPU the whole machine has used since boot (``None`` off Linux).

    Why the whole machine: the import's CPU is this process and the database server's
    backends, which are other processes; /proc/stat counts them all.
    """
    try:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except OSError:
        return None
    user, nice, system, _idle, _iowait, irq, softirq = fields[:7]  # steal is not ours
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def process_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--workers", type=int, default=2, help="lotes recibidos a la vez")
    parser.add_argument("--veces", type=int, default=1, help="rondas de COPY plano e ingreso")
    parser.add_argument(
        "--ajuste",
        action="append",
        default=[],
        metavar="SQL",
        help="sentencia para la base del banco tras migrarla (se puede repetir), p. ej. "
        "para medir lo que cuesta un índice; las cifras dejan de ser las del esquema",
    )
    args = parser.parse_args(argv)
    print(f"Ingreso de {group(args.n)} aceptaciones de {BROKERS} comisionistas en PostgreSQL")
    for statement in args.ajuste:
        print(f"  ajuste del esquema (no es el de la aplicación): {statement}")
    frame = generate(args.n, program_id="geb-2017")
    frame = frame.with_columns(
        (pl.lit("SCB") + (pl.int_range(pl.len()) % BROKERS + 1).cast(pl.String).str.zfill(2)).alias(
            "comisionista"
        )
    )
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i in range(1, BROKERS + 1):
            broker = f"SCB{i:02d}"
            path = Path(tmp) / f"{broker}.csv"
            frame.filter(pl.col("comisionista") == broker).write_csv(path)
            files.append(path)
        columns = frame.columns
        del frame
        ratios = []
        for round_number in range(1, args.veces + 1):
            if args.veces > 1:
                print(f" Ronda {round_number} de {args.veces}")
            engine, copy_time, import_time = one_round(args, files, columns)
            ratios.append(import_time / copy_time)
            if round_number < args.veces:
                engine.dispose()
        if args.veces > 1:
            line(
                f"Mediana de la razón en {args.veces} rondas (mín.–máx.)",
                f"{decimal(statistics.median(ratios))} ({decimal(min(ratios))}–"
                f"{decimal(max(ratios))})",
            )

        with engine.begin() as conn:
            advance(conn, load_offer(conn, "geb"), "cerrada", "bench", "cierre")
        with engine.connect() as conn:
            stored = load_offer(conn, "geb")
            start = time.perf_counter()
            current = current_acceptances(conn, stored)
            line(
                "Lectura de las aceptaciones vigentes desde la base",
                seconds(time.perf_counter() - start),
            )
        start = time.perf_counter()
        done = compute(stored, current)
        line(
            "Adjudicación completa (límites por persona, método, huellas)",
            seconds(time.perf_counter() - start),
        )
        print(
            f"  demanda válida {group(int(str(done.header['demanda_valida'])))} acciones; "
            f"ofrecidas {group(int(str(done.header['acciones_ofrecidas'])))}"
        )
        demand = done.results["cantidad_persona"].to_numpy().astype(np.int64)
        supply = int(str(done.header["acciones_ofrecidas"]))
        for method in ("igualitario_redistribucion", "proporcional", "lineal_proporcional"):
            start = time.perf_counter()
            allocate(
                demand,
                supply,
                method,
                "primero_radicado",
                linear_percent=10 if method == "lineal_proporcional" else None,
            )
            line(f"Solo el método {method} (meta ≤ 0,5 s)", seconds(time.perf_counter() - start))
        engine.dispose()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    line("Memoria pico del proceso (meta < 3 GiB)", f"{group(int(peak))} MiB")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main()
