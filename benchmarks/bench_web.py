"""Benchmark of the web service on PostgreSQL: brokers filing at once over HTTP (loopback).

``python benchmarks/bench_web.py [--segundos 60] [--clientes 50] [--lotes 5] [--filas 10000]
[--procesos 1] [--puertos 1] [--admin-url postgresql://postgres@127.0.0.1:5432/postgres]
[--base democratiza_bench] [--piso] [--directo] [--contra REV [--rondas 2]]``

Recreates the database ``--base`` (``democratiza_bench``), opens an offer of Central de
Seguros de Vida, gives each client its own broker and API token, starts ``democratiza
servir`` with uvicorn workers, and for the given seconds runs ``--clientes`` brokers filing
single acceptances (POST /api/ofertas/{codigo}/aceptaciones) and ``--lotes`` brokers
uploading batches of ``--filas`` rows (POST /api/ofertas/{codigo}/lotes), each as fast as
answers come back. Prints throughput, p50/p99 latency, errors, and then counts the rows in
the database: every acknowledged acceptance must be there exactly once (lost / duplicated).

Single acceptances filed at the same moment are grouped (``web.server.group_commit``):
the figures include that grouping, as a broker would see it.

``--previas N`` starts from an offer that already holds N acceptances (filed beforehand as
batches of the batch clients' brokers, or of the single clients' when there are no batch
clients) and N/10 earlier single acceptances' batches of the single clients' brokers (only
their ``lotes`` rows, inserted directly), then analysed, as autovacuum would have done: the
state some hours into the window, where a lookup that reads what was already filed shows.

``--piso`` measures the service's own floor instead: the same single-acceptance requests
(token checked, body read) with a body the API refuses before the intake (422), so the
difference with a normal run is what the intake costs. ``--directo`` measures the intake
alone: one thread per client filing single acceptances through the group commit in this
process, without HTTP (and without batches).

``--puertos N`` starts N services (``democratiza servir``, each with ``--procesos``), each on
its own port and all on the one database, as N machines behind a proxy would be; client
``i`` files through port ``i % N``. On PostgreSQL they share the lockout, the limits per
address, the brokers' turns and the figures' recount through the database: on one
machine's two cores this shows what that coordination costs, not a gain.

``--contra REV`` runs this same benchmark, with the same options, on REV's code (a ``git
worktree`` of REV in a temporary folder, put first on ``PYTHONPATH`` for the benchmark and
the service it starts) and on today's, alternating which goes first, ``--rondas`` times,
and prints both figures side by side: a regression shows in one paired run on one machine.

The load generator runs on the same two cores as the server: the figures are a floor.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import httpx
import polars as pl
import psycopg
import yaml

sys.path.insert(0, str(Path(__file__).parent))
from contra import paired_runs
from generate import generate

from democratiza.filing.batches import import_batch
from democratiza.filing.singles import single_filing
from democratiza.offers.lifecycle import advance, create_offer
from democratiza.storage.database import make_engine, migrate
from democratiza.web.security.auth import create_token
from democratiza.web.server.group_commit import file_single

ROOT = Path(__file__).parents[1]
PARAMS = yaml.safe_load((ROOT / "examples/primera-etapa/oferta.yaml").read_text(encoding="utf-8"))
CODE = "banco-web"
PROGRAM = "central-seguros-vida"


def open_offer(url: str, brokers: list[str]) -> list[str]:
    """The schema migrated, the offer ``CODE`` open, and an API token per broker."""
    engine = make_engine(url)
    migrate(engine)
    with engine.begin() as conn:
        stored = create_offer(conn, CODE, PROGRAM, PARAMS, "banco", "aviso")
        advance(conn, stored, "abierta", "banco", "inicio del plazo")
        tokens = [create_token(conn, b, "banco", "banco")[1] for b in brokers]
    engine.dispose()
    return tokens


def recreate(admin_url: str, name: str) -> str:
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    return admin_url.rsplit("/", 1)[0] + "/" + name


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    acknowledged_rows: int = 0
    answered: int = 0  # requests answered as expected

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def rows_for(broker: str, n: int, seed: int) -> pl.DataFrame:
    frame = generate(n, seed, PROGRAM, PARAMS)
    return frame.with_columns(
        pl.lit(broker).alias("comisionista"),
        pl.format("{}-{}", pl.lit(f"S{seed}"), pl.int_range(pl.len())).alias("referencia"),
    )


async def single_client(
    client: aiohttp.ClientSession,
    number: int,
    rows: list[dict[str, Any]],
    until: float,
    tally: Tally,
    floor: bool = False,
) -> None:
    for i, row in enumerate(rows):
        if time.monotonic() >= until:
            return
        body: dict[str, Any] = {
            "lote": f"u{number}-{i}",
            "aceptacion": {k: v for k, v in row.items() if v is not None},
        }
        if floor:
            body["aceptacion"] = "no es un objeto"  # refused by validation, before the intake
        start = time.perf_counter()
        try:
            async with client.post(f"/api/ofertas/{CODE}/aceptaciones", json=body) as answer:
                status, text = answer.status, await answer.read()
        except aiohttp.ClientError as exc:
            tally.error(type(exc).__name__)
            continue
        tally.latencies.append(time.perf_counter() - start)
        if floor and status == 422:
            tally.answered += 1
        elif status == 201 and json.loads(text)["creado"]:
            tally.acknowledged_rows += 1
            tally.answered += 1
        else:
            tally.error(f"HTTP {status}")


async def batch_client(
    client: aiohttp.ClientSession, template: bytes, rows: int, until: float, tally: Tally
) -> None:
    k = 0
    while time.monotonic() < until:
        form = aiohttp.FormData()
        form.add_field("lote", f"L{k}")
        form.add_field(
            "archivo",
            template.replace(b"@@", f"{k:05d}".encode()),
            filename=f"lote-{k}.csv",
            content_type="text/csv",
        )
        start = time.perf_counter()
        try:
            async with client.post(f"/api/ofertas/{CODE}/lotes", data=form) as answer:
                status, text = answer.status, await answer.read()
        except aiohttp.ClientError as exc:
            tally.error(type(exc).__name__)
            k += 1
            continue
        tally.latencies.append(time.perf_counter() - start)
        if status == 201 and json.loads(text)["creado"]:
            tally.acknowledged_rows += rows
        else:
            tally.error(f"HTTP {status}: {text[:120]!r}")
        k += 1


async def run_load(
    bases: list[str],
    tokens: list[str],
    singles: list[list[dict[str, Any]]],
    templates: list[bytes],
    args: argparse.Namespace,
) -> tuple[Tally, Tally, float]:
    # aiohttp rather than httpx: the load generator shares the server's two cores, and
    # aiohttp spends a fraction of httpx's CPU per request, which leaves it to the service.
    timeout = aiohttp.ClientTimeout(total=120.0)
    clients = [
        aiohttp.ClientSession(
            base_url=bases[n % len(bases)],  # client n files through the n-th service
            headers={"Authorization": f"Bearer {t}"},
            timeout=timeout,
            connector=aiohttp.TCPConnector(limit=1),  # one keep-alive connection per broker
        )
        for n, t in enumerate(tokens)
    ]
    one, many = Tally(), Tally()
    start = time.monotonic()
    until = start + args.segundos
    tasks = [
        single_client(clients[i], i, singles[i], until, one, args.piso)
        for i in range(args.clientes)
    ]
    tasks += [
        batch_client(clients[args.clientes + j], templates[j], args.filas, until, many)
        for j in range(args.lotes)
    ]
    await asyncio.gather(*tasks)
    elapsed = time.monotonic() - start
    for c in clients:
        await c.close()
    return one, many, elapsed


def run_direct(
    url: str, brokers: list[str], singles: list[list[dict[str, Any]]], seconds: float
) -> tuple[Tally, Tally, float]:
    """The intake alone: one thread per client filing through the group commit, no HTTP."""
    engine = make_engine(url)
    one, lock = Tally(), threading.Lock()
    until = time.monotonic() + seconds

    def client(number: int) -> None:
        for i, row in enumerate(singles[number]):
            if time.monotonic() >= until:
                return
            acceptance = {k: v for k, v in row.items() if v is not None}
            filing = single_filing(CODE, acceptance, brokers[number], f"u{number}-{i}", "banco")
            start = time.perf_counter()
            try:
                result = file_single(engine, filing)
            except Exception as exc:  # counted, as an HTTP error would be
                with lock:
                    one.error(type(exc).__name__)
                continue
            with lock:
                one.latencies.append(time.perf_counter() - start)
                if result.created:
                    one.acknowledged_rows += 1
                    one.answered += 1
                else:
                    one.error("no creada")

    threads = [threading.Thread(target=client, args=(n,)) for n in range(len(singles))]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - start
    engine.dispose()
    return one, Tally(), elapsed


def file_earlier(url: str, brokers: list[str], args: argparse.Namespace) -> int:
    """What was filed before the measured time (``--previas``); the acceptances filed."""
    engine = make_engine(url)
    owners = brokers[args.clientes :] or brokers[: args.clientes]
    per_batch = 50_000
    filed = 0
    with tempfile.TemporaryDirectory() as folder:
        for k in range(-(-args.previas // per_batch)):
            broker = owners[k % len(owners)]
            n = min(per_batch, args.previas - filed)
            frame = rows_for(broker, n, 9000 + k).with_columns(
                pl.format("P{}-{}", pl.lit(k), pl.int_range(pl.len())).alias("referencia")
            )
            path = Path(folder) / f"previo-{k}.csv"
            frame.write_csv(path)
            filed += import_batch(engine, CODE, path, broker, f"P{k}", "banco").rows
    engine.dispose()
    single_batches = args.previas // 10
    with psycopg.connect(url) as conn:
        conn.execute(
            "INSERT INTO lotes (oferta_id, comisionista, lote, archivo, huella, filas, "
            "recibido_en, quien) SELECT o.id, 'Comisionista ' || lpad((g %% %s)::text, 2, '0'), "
            "'previa-' || g, 'aceptación', 'x', 1, now(), 'banco' "
            "FROM ofertas AS o, generate_series(1, %s) AS g WHERE o.codigo = %s",
            (max(1, args.clientes), single_batches, CODE),
        )
        conn.commit()
        conn.autocommit = True
        conn.execute("ANALYZE")
    print(f"Antes de medir: {filed} aceptaciones en lotes y {single_batches} lotes sueltos")
    return filed


PORT_TAKEN = (
    "el puerto {port} ya está en uso: otro programa escucha en él, y se mediría ese servicio "
    "en vez del que arranca esta prueba; elija otro con --puerto (y otra base con --base)"
)


def port_taken(port: int) -> bool:
    """Whether another program listens on ``port`` (of 127.0.0.1 or of every address).

    Why: a service already on the port answered the start-up check, and the benchmark
    measured it (0 per second, its tokens being others) instead of the one it started.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # As uvicorn binds: a port left in TIME_WAIT by the previous run is free; a port
        # some socket listens on, with or without SO_REUSEPORT, is not.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def refuse_taken_ports(ports: list[int]) -> None:
    """Stop, in Spanish, before anything is set up, if one of ``ports`` is in use."""
    for port in ports:
        if port_taken(port):
            raise SystemExit(PORT_TAKEN.format(port=port))


def start_server(url: str, port: int, workers: int) -> subprocess.Popen[bytes]:
    code = "from democratiza.cli.main import app; app()"
    command = [
        sys.executable,
        "-c",
        code,
        "servir",
        "--db",
        url,
        "--puerto",
        str(port),
        "--procesos",
        str(workers),
    ]
    server = subprocess.Popen(command, start_new_session=True)
    for _ in range(300):
        if server.poll() is not None:  # it could not start (the port taken since the check?)
            raise SystemExit(f"el servicio no arrancó en el puerto {port}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/programas", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    server.kill()
    raise SystemExit("el servicio no arrancó")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--segundos", type=float, default=60)
    parser.add_argument("--clientes", type=int, default=50)
    parser.add_argument("--lotes", type=int, default=5)
    parser.add_argument("--filas", type=int, default=10_000)
    parser.add_argument("--procesos", type=int, default=1)
    parser.add_argument("--puerto", type=int, default=8765)
    parser.add_argument(
        "--puertos",
        type=int,
        default=1,
        help="servicios, cada uno en su puerto (--puerto, --puerto + 1, ...), sobre la misma base",
    )
    parser.add_argument("--contra", metavar="REV", help="también el código de REV, alternados")
    parser.add_argument("--rondas", type=int, default=2, help="pares de corridas con --contra")
    parser.add_argument("--admin-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--base", default="democratiza_bench", help="base que se recrea")
    parser.add_argument(
        "--directo",
        action="store_true",
        help="solo el ingreso: aceptaciones sueltas sin HTTP (sin lotes), un hilo por cliente",
    )
    parser.add_argument(
        "--previas",
        type=int,
        default=0,
        help="aceptaciones ya radicadas antes de medir (y una décima de eso en lotes sueltos)",
    )
    parser.add_argument(
        "--piso",
        action="store_true",
        help="solo el servicio: solicitudes rechazadas por validación antes del ingreso",
    )
    args = parser.parse_args()
    ports = [args.puerto + n for n in range(args.puertos)]
    if not args.directo:
        refuse_taken_ports(ports)
    if args.contra:
        # Before each run too: REV's own script may not look (f2c6ed9's does not).
        before = None if args.directo else lambda: refuse_taken_ports(ports)
        paired_runs(ROOT, Path(__file__), args.contra, args.rondas, sys.argv[1:], before)
        return

    url = recreate(args.admin_url, args.base)
    brokers = [f"Comisionista {i:02d}" for i in range(args.clientes + args.lotes)]
    tokens = open_offer(url, brokers)

    # More than a client can file in the time (the floor answers far faster than the intake).
    per_client = max(200, int(args.segundos * (150 if args.piso else 40)))
    singles = [rows_for(brokers[i], per_client, 1000 + i).to_dicts() for i in range(args.clientes)]
    templates = []
    for j in range(args.lotes):
        frame = rows_for(brokers[args.clientes + j], args.filas, 5000 + j)
        frame = frame.with_columns(pl.format("B@@-{}", pl.int_range(pl.len())).alias("referencia"))
        buffer = io.BytesIO()
        frame.write_csv(buffer)
        templates.append(buffer.getvalue())

    earlier = file_earlier(url, brokers, args) if args.previas else 0

    if args.directo:
        one, many, elapsed = run_direct(url, brokers, singles, args.segundos)
    else:
        servers = []
        try:
            for port in ports:
                servers.append(start_server(url, port, args.procesos))
            bases = [f"http://127.0.0.1:{port}" for port in ports]
            one, many, elapsed = asyncio.run(run_load(bases, tokens, singles, templates, args))
        finally:
            for server in servers:
                os.killpg(server.pid, signal.SIGTERM)
            for server in servers:
                server.wait(timeout=30)

    with psycopg.connect(url) as conn:
        stored_rows = conn.execute("SELECT count(*) FROM aceptaciones").fetchone()[0]  # type: ignore[index]
        duplicated = conn.execute(
            "SELECT count(*) FROM (SELECT comisionista, referencia FROM aceptaciones "
            "WHERE vigente GROUP BY comisionista, referencia HAVING count(*) > 1) d"
        ).fetchone()[0]  # type: ignore[index]
        chain = conn.execute("SELECT count(*) FROM auditoria").fetchone()[0]  # type: ignore[index]
    expected = earlier + one.acknowledged_rows + many.acknowledged_rows
    how = f"{args.procesos} proceso{'s' if args.procesos > 1 else ''} del servicio"
    if args.puertos > 1:
        how = f"{args.puertos} servicios en puertos distintos, {how} cada uno, una base"
    if args.directo:
        how = "sin HTTP, un hilo por cliente"
    print(f"Duración: {elapsed:.1f} s; {how}; PostgreSQL por loopback")
    p50, p99 = percentile(one.latencies, 50) * 1000, percentile(one.latencies, 99) * 1000
    what = "Solicitudes rechazadas antes del ingreso (--piso)" if args.piso else "Aceptaciones"
    print(
        f"{what} individuales ({args.clientes} clientes): {len(one.latencies)} respuestas, "
        f"{one.answered / elapsed:.1f} por segundo; p50 {p50:.0f} ms, p99 {p99:.0f} ms; "
        f"errores: {one.errors or 0}"
    )
    b50, b99 = percentile(many.latencies, 50), percentile(many.latencies, 99)
    print(
        f"Lotes de {args.filas} filas ({args.lotes} clientes): {len(many.latencies)} lotes, "
        f"{many.acknowledged_rows / elapsed:.0f} filas por segundo; p50 {b50:.2f} s, "
        f"p99 {b99:.2f} s; errores: {many.errors or 0}"
    )
    print(
        f"En la base: {stored_rows} aceptaciones; confirmadas a los clientes: {expected}; "
        f"perdidas: {max(0, expected - stored_rows)}; de más: {max(0, stored_rows - expected)}; "
        f"referencias duplicadas: {duplicated}; entradas de auditoría: {chain}"
    )


if __name__ == "__main__":
    main()
