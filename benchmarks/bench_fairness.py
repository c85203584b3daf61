"""Benchmark: a broker's small batch while another broker's large batch is being filed.

``python benchmarks/bench_fairness.py [--filas 1000000] [--espera 1.5] [--bases sqlite,postgresql]
[--consola] [--admin-url postgresql://postgres@127.0.0.1:5432/postgres]
[--base democratiza_bench_justo] [--puerto 8766]``

For each database (a temporary SQLite file; a PostgreSQL database created and dropped) it
opens an offer, gives brokers A and B an API token, starts ``democratiza servir`` (one
process, its bulk lane) and warms the lane up. Then broker A uploads a batch of ``--filas``
rows (POST /api/ofertas/{codigo}/lotes) and, ``--espera`` seconds later, while A's batch is
being read, evaluated and stored, broker B uploads batches of 2 and of 5.000 rows, one after
the other, until A has its answer. Prints B's answers' latency (worst and median) beside the
target, A's total time, the longest time the SQLite database was held by a write (a probe
takes the write lock again and again and times each wait), and the peak memory of each of
the service's processes.

An upload is limited to 64 MiB (``web.api.uploads``): when ``--filas`` rows of CSV are
more, A sends as many as fit and the benchmark says so. ``--consola`` files A's batch from
a process of its own instead, as ``democratiza lote importar`` does (no size limit, no lane):
what a batch filed from the command line holds back on the same database.

The load runs on the same two cores as the service: the figures are a floor.
"""

from __future__ import annotations

import argparse
import io
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import polars as pl
import psycopg

sys.path.insert(0, str(Path(__file__).parent))
from bench_web import CODE, open_offer, recreate, rows_for, start_server

from democratiza.web.api.uploads import MAX_UPLOAD

TARGET = 3.0  # seconds: the most a broker's batch may wait for another broker's
A, B = "Comisionista A", "Comisionista B"
SMALL, MEDIUM = 2, 5_000


def batch_csv(broker: str, n: int, seed: int, tag: str) -> bytes:
    """``n`` rows of ``broker`` as CSV, their references unique to ``tag``."""
    frame = rows_for(broker, n, seed).with_columns(
        pl.format("{}-{}", pl.lit(tag), pl.int_range(pl.len())).alias("referencia")
    )
    buffer = io.BytesIO()
    frame.write_csv(buffer)
    return buffer.getvalue()


def fitting(broker: str, wanted: int) -> tuple[int, bytes]:
    """The largest batch of at most ``wanted`` rows that one upload takes (64 MiB)."""
    n = wanted
    while True:
        body = batch_csv(broker, n, 7, "A")
        if len(body) <= MAX_UPLOAD:
            return n, body
        n = int(n * MAX_UPLOAD / len(body) * 0.99)


def upload(client: httpx.Client, body: bytes, batch: str) -> tuple[int, float]:
    start = time.perf_counter()
    answer = client.post(
        f"/api/ofertas/{CODE}/lotes",
        files={"archivo": (f"{batch}.csv", body, "text/csv")},
        data={"lote": batch},
    )
    return answer.status_code, time.perf_counter() - start


@dataclass
class Probe:
    """Takes the SQLite write lock over and over: the longest wait is a write's hold."""

    path: str
    longest: float = 0.0
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        conn = sqlite3.connect(self.path, timeout=600, isolation_level=None)
        while not self.stop.is_set():
            start = time.perf_counter()
            conn.execute("BEGIN IMMEDIATE")
            self.longest = max(self.longest, time.perf_counter() - start)
            conn.execute("ROLLBACK")
            time.sleep(0.02)
        conn.close()


def peak_memory(session: int) -> list[tuple[str, float]]:
    """(what, peak resident MiB) of the service's processes: itself and its lane's."""
    peaks = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(stat[3]) != session:  # the session id
                continue
            status = (entry / "status").read_text()
            command = (entry / "cmdline").read_bytes()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if b"resource_tracker" in command or not (b"servir" in command or b"spawn_main" in command):
            continue
        what = "carril" if b"spawn_main" in command else "servicio"
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                peaks.append((what, int(line.split()[1]) / 1024))
    return sorted(peaks, reverse=True)


def file_from_console(url: str, path: Path) -> subprocess.Popen[bytes]:
    code = (
        "import sys; from pathlib import Path\n"
        "from democratiza.filing.batches import import_batch\n"
        "from democratiza.storage.database import make_engine\n"
        "r = import_batch(make_engine(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), "
        "sys.argv[4], 'A-GRANDE', 'banco')\n"
        "assert r.created, r.message\n"
    )
    return subprocess.Popen([sys.executable, "-c", code, url, CODE, str(path), A])


def measure(name: str, url: str, sqlite_path: str | None, args: argparse.Namespace) -> None:
    tokens = open_offer(url, [A, B])
    if args.consola:
        rows, big = args.filas, batch_csv(A, args.filas, 7, "A")
    else:
        rows, big = fitting(A, args.filas)
    small = [batch_csv(B, SMALL, 100 + k, f"P{k}") for k in range(200)]
    medium = [batch_csv(B, MEDIUM, 300 + k, f"M{k}") for k in range(100)]
    server = start_server(url, args.puerto, 1)
    try:
        with (
            httpx.Client(
                base_url=f"http://127.0.0.1:{args.puerto}",
                headers={"Authorization": f"Bearer {tokens[0]}"},
                timeout=900,
            ) as a_client,
            httpx.Client(
                base_url=f"http://127.0.0.1:{args.puerto}",
                headers={"Authorization": f"Bearer {tokens[1]}"},
                timeout=900,
            ) as b_client,
            tempfile.TemporaryDirectory() as folder,
        ):
            # Both lane processes started and warm (each compiles the offer's rules once).
            warm = [batch_csv(A, MEDIUM, 900 + k, f"W{k}") for k in range(2)]
            for k in range(2):
                threads = [
                    threading.Thread(target=upload, args=(a_client, warm[k], f"A-W{k}")),
                    threading.Thread(target=upload, args=(b_client, medium[-1 - k], f"B-W{k}")),
                ]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()

            probe = Probe(sqlite_path) if sqlite_path else None
            if probe:
                threading.Thread(target=probe.run, daemon=True).start()
            a_answer: list[tuple[int, float]] = []
            start = time.perf_counter()
            if args.consola:
                path = Path(folder) / "a.csv"
                path.write_bytes(big)
                start = time.perf_counter()
                console = file_from_console(url, path)
                a_thread = threading.Thread(
                    target=lambda: a_answer.append((console.wait(), time.perf_counter() - start))
                )
            else:
                a_thread = threading.Thread(
                    target=lambda: a_answer.append(upload(a_client, big, "A-GRANDE"))
                )
            a_thread.start()
            time.sleep(args.espera)
            waits: dict[int, list[float]] = {SMALL: [], MEDIUM: []}
            failed = 0
            k = 0
            while a_thread.is_alive():
                size, body = (
                    (SMALL, small[k // 2 % 200]) if k % 2 == 0 else (MEDIUM, medium[k // 2 % 100])
                )
                status, took = upload(b_client, body, f"B-{size}-{k}")
                if status != 201:
                    failed += 1
                waits[size].append(took)  # sent while A's batch was being filed
                k += 1
            a_thread.join()
            if probe:
                probe.stop.set()
            peaks = peak_memory(server.pid)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)

    ((a_status, a_took),) = a_answer
    how = "por la consola (sin el carril de lotes)" if args.consola else "por HTTP"
    print(f"\n{name}")
    if rows < args.filas:
        print(
            f"  {args.filas:_} filas pasan del límite de {MAX_UPLOAD // 2**20} MiB de una "
            f"subida: A envía {rows:_} ({len(big) / 2**20:.0f} MiB), lo más que cabe".replace(
                "_", "."
            )
        )
    print(
        f"  Lote grande de A, {rows:_} filas {how}: {a_took:.1f} s en total "
        f"(estado {a_status})".replace("_", ".")
    )
    for size in (SMALL, MEDIUM):
        got = waits[size]
        worst, median = max(got), statistics.median(got)
        verdict = "cumple" if worst <= TARGET else "NO cumple"
        print(
            f"  Lotes de {size:_} filas de B mientras tanto: {len(got)} envíos; peor "
            f"{worst:.2f} s, mediana {median:.2f} s; objetivo ≤ {TARGET:.0f} s: "
            f"{verdict}".replace("_", ".")
        )
    if failed:
        print(f"  Lotes de B no radicados: {failed}")
    if probe:
        print(f"  La escritura más larga retuvo la base SQLite {probe.longest:.2f} s seguidos")
    memory = ", ".join(f"{what} {mib:.0f}" for what, mib in peaks)
    print(f"  Memoria máxima de cada proceso (MiB): {memory}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--filas", type=int, default=1_000_000, help="filas del lote grande")
    parser.add_argument("--espera", type=float, default=1.5, help="segundos antes de que B envíe")
    parser.add_argument("--bases", default="sqlite,postgresql")
    parser.add_argument("--consola", action="store_true", help="A radica por la consola")
    parser.add_argument("--puerto", type=int, default=8766)
    parser.add_argument("--admin-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--base", default="democratiza_bench_justo", help="base que se recrea")
    args = parser.parse_args()
    bases = args.bases.split(",")
    print(
        f"B radica lotes de {SMALL} y {MEDIUM:_} filas mientras A radica uno de "
        f"{args.filas:_}; objetivo: B espera ≤ {TARGET:.0f} s".replace("_", ".")
    )
    if "sqlite" in bases:
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "democratiza.db")
            measure("SQLite (archivo temporal)", f"sqlite:///{path}", path, args)
    if "postgresql" in bases:
        url = recreate(args.admin_url, args.base)
        try:
            measure("PostgreSQL (base nueva, por loopback)", url, None, args)
        finally:
            with psycopg.connect(args.admin_url, autocommit=True) as conn:
                conn.execute(f"DROP DATABASE IF EXISTS {args.base} WITH (FORCE)")


if __name__ == "__main__":
    main()
