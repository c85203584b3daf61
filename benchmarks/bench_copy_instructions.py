"""Benchmark: what storing one batch costs the PostgreSQL server, in instructions.

``sudo .venv/bin/python benchmarks/bench_copy_instructions.py [--n 50000]``

Why instructions: on the shared two-core machine the same COPY takes from 0,8 to 1,4 s of
server CPU from one minute to the next, so a change worth a tenth cannot be told from
noise by timing. ``valgrind --tool=callgrind`` counts the instructions the server executes
inside ``DoCopy`` (the COPY itself, with its index insertions and statement trigger),
which come out the same on every run.

How: one batch of ``--n`` generated acceptances goes through the real intake
(``import_batch``) into a scratch database of the local server, is read back in the binary
form the intake sends, and the schema is copied into a throwaway cluster (``initdb`` in a
temporary directory). There the stand-alone server (``postgres --single``) stores the batch
under callgrind once for each variant, each in a transaction that is rolled back:

- the schema as the migrations leave it (binary COPY, as the intake sends it);
- the same rows as CSV (the format used before, and still for small writes);
- without the index on the broker's references (``ix_aceptaciones_referencia``);
- without the unique index on (offer, radicado, version);
- without the statement triggers (migration 0005).

Needs root (the throwaway cluster runs as the ``postgres`` user), valgrind and the server's
binaries (``pg_config --bindir``); takes about half a minute per variant for 50.000 rows.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import polars as pl
import psycopg
from bench_import import decimal, open_offer, recreate
from generate import generate

from democratiza.filing.batches import import_batch
from democratiza.money import group
from democratiza.storage.bulk import written_columns
from democratiza.storage.schema import acceptances

VARIANTS = {
    "esquema actual, COPY binario": ("", "binary"),
    "esquema actual, COPY CSV": ("", "csv"),
    "sin el índice de referencias": ("DROP INDEX ix_aceptaciones_referencia;", "binary"),
    "sin la unicidad (oferta, radicado, versión)": (
        "ALTER TABLE aceptaciones DROP CONSTRAINT uq_radicado_version;",
        "binary",
    ),
    "sin los disparadores por sentencia": (
        "ALTER TABLE aceptaciones DISABLE TRIGGER USER;",
        "binary",
    ),
}


def as_postgres(command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["su", "postgres", "-c", command], capture_output=True, text=True, check=False
    )


def one_batch(url: str, n: int, folder: Path) -> tuple[str, Path, Path]:
    """The batch stored by the intake; its columns and the rows in binary and CSV form."""
    engine = open_offer(url)
    path = folder / "SCB01.csv"
    frame = generate(n, program_id="geb-2017")
    frame.with_columns(pl.lit("SCB01").alias("comisionista")).write_csv(path)
    result = import_batch(engine, "geb", path, "SCB01", "L1", "banco")
    engine.dispose()
    columns = ", ".join(written_columns(acceptances))  # as ``store_batches`` writes them
    with psycopg.connect(url) as conn:
        rows = f"SELECT {columns} FROM aceptaciones WHERE lote_id = {result.batch_id}"
        files = {"binary": folder / "lote.bin", "csv": folder / "lote.csv"}
        for form, target in files.items():
            options = "FORMAT binary" if form == "binary" else "FORMAT csv"
            with (
                target.open("wb") as out,
                conn.cursor().copy(f"COPY ({rows}) TO STDOUT ({options})") as copy,
            ):
                for block in copy:
                    out.write(block)
            target.chmod(0o644)
    return columns, files["binary"], files["csv"]


def throwaway_cluster(bindir: str, url: str, folder: Path) -> Path:
    """A new cluster with the scratch database's schema, its offer and its batch."""
    data = folder / "cluster"
    data.mkdir()
    shutil.chown(data, "postgres")
    done = as_postgres(f"{bindir}/initdb -D {data} --locale=C.UTF-8 -E UTF8 -A trust")
    if done.returncode:
        sys.exit(f"initdb falló: {done.stderr}")
    schema = subprocess.run(
        ["pg_dump", "--schema-only", url], capture_output=True, text=True, check=True
    ).stdout
    parents = subprocess.run(
        ["pg_dump", "--data-only", "-t", "ofertas", "-t", "lotes", url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    script = folder / "esquema.sql"
    script.write_text(schema + parents)
    script.chmod(0o644)
    port = 54329
    started = as_postgres(
        f"{bindir}/pg_ctl -D {data} -o '-p {port} -k {data}' -l {data}/log -w start"
    )
    if started.returncode:
        sys.exit(f"no arrancó el servidor desechable: {started.stderr}")
    try:
        loaded = as_postgres(f"psql -q -h {data} -p {port} -d postgres -f {script}")
        if loaded.returncode:
            sys.exit(f"no se cargó el esquema: {loaded.stderr}")
    finally:
        as_postgres(f"{bindir}/pg_ctl -D {data} -w stop")
    return data


def instructions(bindir: str, pristine: Path, folder: Path, sql: str, label: str) -> int:
    """The instructions of the COPY in ``sql``, run on a fresh copy of the cluster.

    Why a copy each time: a rolled-back COPY leaves its rows and index entries behind until
    a vacuum, and the next variant's unique index would have to look at every one of them.
    """
    script = folder / f"{label}.sql"
    script.write_text(sql)
    script.chmod(0o644)
    data = folder / label
    shutil.copytree(pristine, data, symlinks=True)
    subprocess.run(["chown", "-R", "postgres", str(data)], check=True)  # copied as root
    out = data / "callgrind.out"  # written by the postgres user
    done = as_postgres(
        "valgrind --tool=callgrind --toggle-collect=DoCopy "
        f"--callgrind-out-file={out} {bindir}/postgres --single -D {data} -j postgres "
        f"< {script}"
    )
    shutil.rmtree(data)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None or "ERROR" in done.stdout:
        sys.exit(f"callgrind no midió «{label}»:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=50_000)
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args(argv)
    if os.geteuid() != 0 or shutil.which("valgrind") is None:
        sys.exit("Se necesita root (el servidor desechable corre como postgres) y valgrind.")
    bindir = subprocess.run(
        ["pg_config", "--bindir"], capture_output=True, text=True, check=True
    ).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        folder.chmod(0o755)
        url = recreate(args.url, "democratiza_bench_instrucciones")
        columns, binary, csv = one_batch(url, args.n, folder)
        data = throwaway_cluster(bindir, url, folder)
        print(f"COPY de un lote de {group(args.n)} aceptaciones, instrucciones del servidor:")
        base = None
        for number, (label, (change, form)) in enumerate(VARIANTS.items()):
            source = f"'{binary}' (FORMAT binary)" if form == "binary" else f"'{csv}' (FORMAT csv)"
            sql = (
                f"BEGIN;\n{change}\nSET work_mem = '64MB';\n"
                f"COPY aceptaciones ({columns}) FROM {source};\nROLLBACK;\n"
            )
            start = time.perf_counter()
            counted = instructions(bindir, data, folder, sql, f"variante{number}")
            base = base or counted
            print(
                f"  {label:<46}{group(counted):>16} ({group(counted // args.n)} por fila, "
                f"{decimal(counted / base)} del actual; {time.perf_counter() - start:.0f} s)"
            )


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main()
