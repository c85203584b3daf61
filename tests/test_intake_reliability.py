"""Batches survive crashes, duplicates, concurrency and a database that refuses writes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from sqlalchemy import Engine, func, select

from democratiza.filing.batches import import_batch
from democratiza.offers.lifecycle import advance, create_offer, load_offer
from democratiza.storage.receipts import StorageError
from democratiza.storage.schema import acceptances, batches
from tests.storage_support import refuse_acceptances_where

SAMPLE = Path(__file__).parents[1] / "examples/primera-etapa"
PARAMS = yaml.safe_load((SAMPLE / "oferta.yaml").read_text(encoding="utf-8"))
CODE = "central"
BATCHES = [
    ("lote-1-casa-de-bolsa.csv", "Casa de Bolsa"),
    ("lote-2-acciones-y-valores.csv", "Acciones y Valores"),
    ("lote-3-valores-bancolombia.csv", "Valores Bancolombia"),
    ("lote-4-credicorp-capital.csv", "Credicorp Capital"),
]


@pytest.fixture
def offer(engine: Engine) -> Engine:
    with engine.begin() as conn:
        stored = create_offer(conn, CODE, "central-seguros-vida", PARAMS, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "apertura")
    return engine


def counts(engine: Engine) -> tuple[int, int]:
    with engine.connect() as conn:
        return (
            int(conn.execute(select(func.count()).select_from(batches)).scalar_one()),
            int(conn.execute(select(func.count()).select_from(acceptances)).scalar_one()),
        )


def run_import(
    url: str, name: str, broker: str, batch: str, hook: str = "None"
) -> subprocess.Popen[str]:
    """Import in a separate process; ``hook`` runs just before the commit."""
    script = textwrap.dedent(f"""
        import os, signal, time
        from pathlib import Path
        from democratiza.filing.batches import import_batch
        from democratiza.storage.database import make_engine
        result = import_batch(make_engine({url!r}), {CODE!r}, Path({str(SAMPLE / name)!r}),
                              {broker!r}, {batch!r}, "prueba", before_commit={hook})
        print("creado" if result.created else "repetido")
    """)
    return subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def test_a_process_killed_mid_import_leaves_no_partial_batch(offer: Engine, db_url: str) -> None:
    kill = "lambda: os.kill(os.getpid(), signal.SIGKILL)"
    process = run_import(db_url, *BATCHES[0], "L1", hook=kill)
    process.wait(timeout=120)
    assert process.returncode == -9
    assert counts(offer) == (0, 0)
    # The same batch can then be sent normally.
    assert import_batch(offer, CODE, SAMPLE / BATCHES[0][0], BATCHES[0][1], "L1", "x").created


def test_the_same_batch_sent_by_two_processes_at_once_is_stored_once(
    offer: Engine, db_url: str
) -> None:
    slow = "lambda: time.sleep(1.5)"
    first = run_import(db_url, *BATCHES[0], "L1", hook=slow)
    second = run_import(db_url, *BATCHES[0], "L1", hook=slow)
    outputs = sorted(p.communicate(timeout=120)[0].strip() for p in (first, second))
    assert outputs == ["creado", "repetido"]
    rows = sum(1 for _ in (SAMPLE / BATCHES[0][0]).open(encoding="utf-8")) - 1
    assert counts(offer) == (1, rows)


def test_brokers_importing_at_the_same_time_lose_no_row(offer: Engine, db_url: str) -> None:
    processes = [
        run_import(db_url, name, broker, "L1", hook="lambda: time.sleep(0.5)")
        for name, broker in BATCHES
    ]
    outputs = [p.communicate(timeout=180) for p in processes]
    assert [o[0].strip() for o in outputs] == ["creado"] * 4, [o[1][-400:] for o in outputs]
    expected = sum(sum(1 for _ in (SAMPLE / n).open(encoding="utf-8")) - 1 for n, _ in BATCHES)
    assert counts(offer) == (4, expected)


def test_a_database_that_refuses_writes_mid_way_leaves_the_offer_consistent(
    offer: Engine,
) -> None:
    # A trigger refuses the 500th row of the batch, after 499 were already inserted.
    refuse_acceptances_where(offer, "NEW.radicado LIKE '%-0000500'")
    with pytest.raises(StorageError, match=r"disco lleno.*no se guardó nada del lote"):
        import_batch(offer, CODE, SAMPLE / BATCHES[0][0], BATCHES[0][1], "L1", "x")
    assert counts(offer) == (0, 0)
    with offer.connect() as conn:
        assert load_offer(conn, CODE).state == "abierta"
