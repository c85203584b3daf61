"""Every page of the office, a broker and the auditor on a large offer, in PostgreSQL.

``python benchmarks/bench_pages.py [--n 1000000] [--veces 20] [--url postgresql://…/postgres]``

Recreates the database ``democratiza_bench_paginas``, files ``--n`` acceptances from 20
brokers (``generate.py``, fixed seed) through the same import as a broker's batch, and then
fetches every page as each role would, ``--veces`` times each, through the application
(FastAPI's test client: the page's whole work, without the network): the open offer's pages
during the window, then, after closing, adjudicating and publishing, the published offer's.
Each page's p50 and p95 are printed beside the target (p95 under 300 ms), and so are the
whole adjudication record (target 3 s) and the adjudication report as HTML (5 s) and as PDF
(10 s).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import polars as pl
from argon2 import PasswordHasher
from bench_import import BROKERS, open_offer, recreate
from fastapi.testclient import TestClient
from generate import generate
from sqlalchemy import Engine

from democratiza.adjudication.record import adjudicate, publish, stored_adjudication
from democratiza.filing.batches import import_batch
from democratiza.money import group
from democratiza.offers.lifecycle import advance, load_offer
from democratiza.reports.adjudication_figures import build_figures, report_input
from democratiza.reports.adjudication_report import render_html, render_pdf
from democratiza.web.app import create_app
from democratiza.web.security.auth import create_user
from democratiza.web.server import heap

CODE = "geb"
PASSWORD = "clave-del-banco-de-paginas"
CHEAP = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
PEOPLE = {  # login: (role, broker)
    "oficina": ("oficina", None),
    "comisionista": ("comisionista", "SCB01"),
    "auditor": ("auditor", None),
}
PAGE_P95_MS = 300
RECORD_S, HTML_S, PDF_S = 3.0, 5.0, 10.0


def line(name: str, figure: str, target: str, met: bool | None) -> None:
    verdict = "" if met is None else ("cumple" if met else "NO CUMPLE")
    print(f"  {name:<58}{figure:>20}   meta {target:>9}   {verdict}")


def timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def file_batches(engine: Engine, n: int, folder: Path) -> None:
    frame = generate(n, program_id="geb-2017")
    frame = frame.with_columns(
        (pl.lit("SCB") + (pl.int_range(pl.len()) % BROKERS + 1).cast(pl.String).str.zfill(2)).alias(
            "comisionista"
        )
    )
    files = []
    for i in range(1, BROKERS + 1):
        broker = f"SCB{i:02d}"
        path = folder / f"{broker}.csv"
        frame.filter(pl.col("comisionista") == broker).write_csv(path)
        files.append((broker, path))
    with ThreadPoolExecutor(max_workers=2) as pool:
        jobs = [
            pool.submit(import_batch, engine, CODE, path, broker, "L1", "banco")
            for broker, path in files
        ]
        for job in jobs:
            job.result()


def client_as(engine: Engine, login: str | None) -> TestClient:
    client = TestClient(create_app(engine))
    if login is None:
        return client
    page = client.get("/entrar").text
    token = page.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    answer = client.post(
        "/entrar",
        data={"login": login, "clave": PASSWORD, "csrf": token},
        follow_redirects=False,
    )
    if answer.status_code != 303:
        raise SystemExit(f"no se pudo entrar como {login}: {answer.status_code}")
    return client


def measure(clients: dict[str, TestClient], pages: dict[str, list[str]], times: int) -> bool:
    met = True
    for role, paths in pages.items():
        client = clients[role]
        for path in paths:
            client.get(path)  # the first answer compiles its templates: not counted
            took = []
            for _ in range(times):
                start = time.perf_counter()
                answer = client.get(path)
                took.append((time.perf_counter() - start) * 1000)
                if answer.status_code != 200:
                    raise SystemExit(f"{role} {path}: {answer.status_code}")
            p50 = statistics.median(took)
            p95 = statistics.quantiles(took, n=20)[-1] if len(took) > 1 else took[0]
            ok = p95 < PAGE_P95_MS
            met = met and ok
            line(f"{role:>12} {path}", f"{p50:,.0f} / {p95:,.0f} ms", f"p95<{PAGE_P95_MS}", ok)
    return met


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--veces", type=int, default=20)
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args(argv)
    url = recreate(args.url, "democratiza_bench_paginas")
    engine = open_offer(url)
    with engine.begin() as conn:
        for login, (role, broker) in PEOPLE.items():
            create_user(conn, login, login.title(), role, broker, PASSWORD, "banco", CHEAP)
    print(f"Páginas con {group(args.n)} aceptaciones de {BROKERS} comisionistas en PostgreSQL")
    with tempfile.TemporaryDirectory() as folder:
        took = timed(lambda: file_batches(engine, args.n, Path(folder)))
    print(f"  (radicadas en {took:.1f} s)")
    clients = {login: client_as(engine, login) for login in PEOPLE}
    clients["publico"] = client_as(engine, None)
    heap.keep_started()  # as each process of the service does once its application is built
    office = ["/oficina", f"/oficina/ofertas/{CODE}", f"/ofertas/{CODE}/aceptaciones"]
    common = ["/", f"/ofertas/{CODE}", "/calculadora", "/resultados"]
    print(" Durante el plazo, p50 / p95:")
    met = measure(
        clients,
        {
            "publico": common,
            "oficina": office,
            "comisionista": ["/comisionista", f"/ofertas/{CODE}/aceptaciones"],
            "auditor": ["/auditoria", *office],
        },
        args.veces,
    )
    with engine.begin() as conn:
        advance(conn, load_offer(conn, CODE), "cerrada", "banco", "cierre")
    record = timed(lambda: adjudicate(engine, CODE, "banco", "adjudicación"))
    publish(engine, CODE, "banco", "publicación")
    print(" Publicada, p50 / p95:")
    after = ["/oficina/multas", "/oficina/tokens"]
    met = (
        measure(
            clients,
            {
                "publico": [f"/ofertas/{CODE}"],
                "oficina": [*office, *after],
                "comisionista": ["/comisionista", f"/ofertas/{CODE}/aceptaciones"],
                "auditor": ["/auditoria", "/auditoria/verificacion", *office],
            },
            args.veces,
        )
        and met
    )
    with engine.connect() as conn:
        stored = load_offer(conn, CODE)
    done = stored_adjudication(engine, CODE)
    inputs = report_input(stored, done)
    html = timed(lambda: render_html(inputs, build_figures(inputs)))
    with tempfile.TemporaryDirectory() as folder:
        pdf = timed(lambda: render_pdf(inputs, build_figures(inputs), Path(folder) / "r.pdf"))
    whole = timed(lambda: clients["oficina"].get(f"/api/ofertas/{CODE}/adjudicacion.csv"))
    print(" Adjudicación:")
    line("adjudicar (calcular y guardar el registro)", f"{record:.2f} s", "", None)
    line(
        "registro completo de la adjudicación (su archivo, la oficina)",
        f"{whole:.2f} s",
        f"≤ {RECORD_S} s",
        whole <= RECORD_S,
    )

    line("informe de adjudicación en HTML", f"{html:.2f} s", f"≤ {HTML_S} s", html <= HTML_S)
    line("informe de adjudicación en PDF", f"{pdf:.2f} s", f"≤ {PDF_S} s", pdf <= PDF_S)
    print(f"  páginas: {'cumplen' if met else 'NO CUMPLEN'} la meta de p95")
    engine.dispose()


if __name__ == "__main__":
    main()
