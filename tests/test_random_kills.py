"""Processes killed at random moments leave all or nothing, and a rerun stores exactly once.

A large import and an adjudication are each run in a process of their own and killed with
SIGKILL at a moment drawn at random (seeded, so a failure can be replayed) within the time
the same work takes here, measured first by a run that does it all and rolls back: while
the process starts, reads, decides or writes, or just after it ended. Whenever the kill lands,
the database holds either none of the batch (of the adjudication) or all of it, never a
part; the same work done again afterwards is stored once.
"""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml
from sqlalchemy import Engine, func, select

from democratiza.adjudication.record import adjudicate
from democratiza.filing.batches import import_batch
from democratiza.offers.lifecycle import advance, create_offer, load_offer
from democratiza.storage.schema import acceptances, adjudications, awards, batches

SAMPLE = Path(__file__).parents[1] / "examples/primera-etapa"
PARAMS = yaml.safe_load((SAMPLE / "oferta.yaml").read_text(encoding="utf-8"))
CODE = "central"
BROKER = "Casa de Bolsa"
ROWS = 30_000
SEED = 17  # the issue that asked for these kills
KILLS = 3
SAMPLES = [
    ("lote-1-casa-de-bolsa.csv", "Casa de Bolsa"),
    ("lote-2-acciones-y-valores.csv", "Acciones y Valores"),
    ("lote-3-valores-bancolombia.csv", "Valores Bancolombia"),
    ("lote-4-credicorp-capital.csv", "Credicorp Capital"),
]


def large_batch(folder: Path) -> Path:
    """The sample batch's rows repeated to ``ROWS``, each with a reference of its own."""
    lines = (SAMPLE / "lote-1-casa-de-bolsa.csv").read_text(encoding="utf-8").splitlines()
    header, rows = lines[0], lines[1:]
    body = [f"R{n:06d}," + rows[n % len(rows)].split(",", 1)[1] for n in range(ROWS)]
    path = folder / "grande.csv"
    path.write_text("\n".join([header, *body]) + "\n", encoding="utf-8")
    return path


def count(engine: Engine, table: object) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(table)).scalar_one())  # type: ignore[arg-type]


def duration(script: str) -> float:
    """Seconds the script takes here, start to end (it rolls its work back)."""
    start = time.monotonic()
    subprocess.run([sys.executable, "-c", textwrap.dedent(script)], check=True)
    return time.monotonic() - start


def moments(script_undone: str) -> list[float]:
    """``KILLS`` moments within the work's duration (the last may fall just after it)."""
    took = duration(script_undone)
    draw = random.Random(SEED)
    return [took * draw.uniform(0.3, 1.05) for _ in range(KILLS)]


def killed_after(seconds: float, script: str) -> None:
    """Run ``script`` in a new process and kill it (SIGKILL) after ``seconds``, if alive."""
    # Its own complaints (an offer adjudicated by an earlier run) are not what is checked.
    process = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script)], stderr=subprocess.DEVNULL
    )
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def large_import(url: str, path: Path, undone: bool) -> str:
    """The import of ``path`` as a script; ``undone``: it does it all, then rolls back."""
    return f"""
        from pathlib import Path
        from democratiza.filing.batches import import_batch
        from democratiza.storage.database import make_engine
        def undo():
            raise SystemExit(0)  # the transaction rolls back
        import_batch(make_engine({url!r}), {CODE!r}, Path({str(path)!r}), {BROKER!r},
                     "L1", "prueba", before_commit={"undo" if undone else None})
    """


def adjudication(url: str, undone: bool) -> str:
    """The adjudication as a script; ``undone``: it does it all, then rolls back."""
    undo = """
        real_advance = record.advance
        def advance_then_undo(*args, **options):
            real_advance(*args, **options)
            raise SystemExit(0)  # the transaction rolls back
        record.advance = advance_then_undo
    """
    return f"""
        from democratiza.adjudication import record
        from democratiza.storage.database import make_engine
        {textwrap.dedent(undo).strip().replace(chr(10), chr(10) + " " * 8) if undone else ""}
        record.adjudicate(make_engine({url!r}), {CODE!r}, "oficina", "adjudicación")
    """


@pytest.fixture
def offer(engine: Engine) -> Engine:
    with engine.begin() as conn:
        stored = create_offer(conn, CODE, "central-seguros-vida", PARAMS, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "apertura")
    return engine


def test_a_large_import_killed_at_random_moments_is_stored_whole_or_not_at_all(
    offer: Engine, db_url: str, tmp_path: Path
) -> None:
    path = large_batch(tmp_path)
    for moment in moments(large_import(db_url, path, undone=True)):
        killed_after(moment, large_import(db_url, path, undone=False))
        assert (count(offer, batches), count(offer, acceptances)) in [(0, 0), (1, ROWS)]
    import_batch(offer, CODE, path, BROKER, "L1", "prueba")  # stored now, or recognised
    assert (count(offer, batches), count(offer, acceptances)) == (1, ROWS)


def test_an_adjudication_killed_at_random_moments_is_recorded_whole_or_not_at_all(
    offer: Engine, db_url: str
) -> None:
    for name, broker in SAMPLES:
        import_batch(offer, CODE, SAMPLE / name, broker, "L1", "prueba")
    with offer.begin() as conn:
        advance(conn, load_offer(conn, CODE), "cerrada", "oficina", "cierre")
    filed = count(offer, acceptances)
    for moment in moments(adjudication(db_url, undone=True)):
        killed_after(moment, adjudication(db_url, undone=False))
        with offer.connect() as conn:
            state = load_offer(conn, CODE).state
        done = (state, count(offer, adjudications), count(offer, awards))
        assert done in [("cerrada", 0, 0), ("adjudicada", 1, filed)]
    if done[0] == "cerrada":
        adjudicate(offer, CODE, "oficina", "adjudicación")
    assert (count(offer, adjudications), count(offer, awards)) == (1, filed)
