"""An interruption with an adjusted price whose earlier acceptances are evaluated again.

The office interrupts an open offer, adjusts the price and decides that the filings received
before are evaluated again at it (``reevaluadas``, Ley 226 art. 11 num. 2): what is timed is
``democratiza oferta interrumpir`` itself, the command the office waits for, on an offer
holding ``--n`` acceptances from 20 brokers in PostgreSQL (or SQLite with ``--sqlite``).

    python benchmarks/bench_reevaluation.py [--n 100000] [--sqlite]

Target: 1.000.000 acceptances evaluated again within 60 s (the time of a batch of that size
through ``lote importar`` is of the same order); it prints the rate and the target side by side.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_import import OFFER, open_offer, recreate
from generate import generate

from democratiza.filing.batches import import_batch
from democratiza.money import group

ROOT = Path(__file__).parents[1]
TARGET_SECONDS_PER_MILLION = 60.0
BROKERS = 20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--sqlite", action="store_true")
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        if args.sqlite:
            url = f"sqlite:///{Path(folder) / 'reevaluar.db'}"
        else:
            url = recreate(args.url, "democratiza_bench_reevaluar")
        engine = open_offer(url)
        frame = generate(args.n, program_id="geb-2017", params=dict(OFFER))
        per = -(-args.n // BROKERS)
        for b in range(BROKERS):
            broker = f"SCB{b:02d}"
            path = Path(folder) / f"{broker}.csv"
            part = frame.slice(b * per, per)
            part.with_columns(part["comisionista"].str.replace(r".*", broker)).write_csv(path)
            import_batch(engine, "geb", path, broker, "L1", "bench")
        engine.dispose()
        command = [
            str(ROOT / ".venv/bin/democratiza"), "oferta", "interrumpir", "geb",
            "--motivo", "interrupción anunciada", "--precio-nuevo", "2400",
            "--vigente-desde", "2018-01-10", "--fundamento", "Ley 226 de 1995 art. 11 num. 2",
            "--aceptaciones-anteriores", "reevaluadas",
            "--fundamento-anteriores", "anunciado en el aviso de interrupción", "--db", url,
        ]  # fmt: skip
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(done.stdout + done.stderr)
    target = TARGET_SECONDS_PER_MILLION * args.n / 1_000_000
    where = "SQLite" if args.sqlite else "PostgreSQL"
    print(f"oferta interrumpir con {group(args.n)} aceptaciones evaluadas de nuevo ({where})")
    print(f"  {'tiempo del comando':<40}{seconds:>10.2f} s   objetivo ≤ {target:.2f} s")
    print(f"  {'aceptaciones por segundo':<40}{args.n / seconds:>10,.0f}".replace(",", "."))


if __name__ == "__main__":
    main()
