"""Benchmark: the reasons of a page of stored acceptances, written again (``filing.reasons``).

``python benchmarks/bench_reasons.py [--veces 5]``

"Mis aceptaciones" shows why each of its 200 rows got its decision; the reasons are not
stored, each page evaluates its rows again and explains them. On SQLite, Central's sample
offer with Casa de Bolsa's 750-row batch; the first page of 200 rows, ``--veces`` times after
one warm-up. Target: under 100 ms a page (a third of the page's 300 ms p95, ``bench_pages``).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import yaml

from democratiza.filing.batches import import_batch
from democratiza.filing.reasons import stored_reasons
from democratiza.offers.lifecycle import advance, create_offer, load_offer
from democratiza.storage.database import make_engine, migrate
from democratiza.web.api import views
from democratiza.web.security.auth import Principal

SAMPLE = Path(__file__).parents[1] / "examples/primera-etapa"
TARGET_MS = 100


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--veces", type=int, default=5)
    times = parser.parse_args().veces
    engine = make_engine(f"sqlite:///{tempfile.mkdtemp()}/razones.db")
    migrate(engine)
    params = yaml.safe_load((SAMPLE / "oferta.yaml").read_text(encoding="utf-8"))
    with engine.begin() as conn:
        stored = create_offer(conn, "central", "central-seguros-vida", params, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "apertura")
    batch = SAMPLE / "lote-1-casa-de-bolsa.csv"
    import_batch(engine, "central", batch, "Casa de Bolsa", "L1", "scb")
    office = Principal("oficina", "oficina", "oficina")
    with engine.connect() as conn:
        stored = load_offer(conn, "central")
        rows = views.list_acceptances(conn, stored, office)
        stored_reasons(conn, stored, rows)
        start = time.perf_counter()
        for _ in range(times):
            stored_reasons(conn, stored, rows)
        per_page = (time.perf_counter() - start) / times * 1000
    shown = f"razones de una página de {len(rows)} aceptaciones: {per_page:.0f} ms"
    print(f"{shown} (meta < {TARGET_MS} ms)")


if __name__ == "__main__":
    main()
