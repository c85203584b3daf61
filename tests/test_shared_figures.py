"""On PostgreSQL every process serves an offer's last count, whichever process counted it.

Worked example: two service processes (here two caches, each with its own engine, as two
processes have) on one database. Process A counts the figures of Casa de Bolsa's 750
acceptances; process B, asked next, serves that very count without counting. Acciones y
Valores files its batch; the offer is large ("expensive" figures), so A answers with its
last figures and recounts in the background; B, asked after that recount, serves A's new
count, again without counting. A count kept by another version of the code, or that cannot
be read, is counted again. (Three real processes: ``tests/test_web_three_processes.py``.)
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from datetime import datetime
from types import SimpleNamespace

import pytest
from sqlalchemy import Connection, Engine, update

from democratiza.adjudication.figures import FilingFigures
from democratiza.filing.batches import import_batch
from democratiza.offers.lifecycle import StoredOffer, load_offer
from democratiza.storage.database import make_engine, migrate
from democratiza.storage.schema import offer_figures_cache
from democratiza.web.api import offer_figures as module
from democratiza.web.api import shared_figures
from democratiza.web.api.offer_figures import OfferFigures, offer_figures
from tests.conftest import fresh_postgres
from tests.test_web_support import BROKER_A, BROKER_B, CODE, SAMPLE, open_offer


@pytest.fixture
def processes(pg_url: str) -> Iterator[tuple[SimpleNamespace, SimpleNamespace]]:
    """Two processes' application states on one fresh database with Casa de Bolsa's batch."""
    fresh_postgres(pg_url)
    engines = [make_engine(pg_url), make_engine(pg_url)]
    migrate(engines[0])
    open_offer(engines[0])
    import_batch(engines[0], CODE, SAMPLE / "lote-1-casa-de-bolsa.csv", BROKER_A, "L1", "scb")
    yield SimpleNamespace(engine=engines[0]), SimpleNamespace(engine=engines[1])
    for engine in engines:
        engine.dispose()


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[Engine]:
    """How many times each process (engine) counted the figures itself."""
    counts: Counter[Engine] = Counter()
    compute = module.compute

    def counting(conn: Connection, stored: StoredOffer) -> OfferFigures:
        counts[conn.engine] += 1
        return compute(conn, stored)

    monkeypatch.setattr(module, "compute", counting)
    return counts


def seen(app: SimpleNamespace) -> OfferFigures:
    with app.engine.connect() as conn:
        return offer_figures(app, conn, load_offer(conn, CODE))


def test_a_process_serves_the_count_another_process_made(
    processes: tuple[SimpleNamespace, SimpleNamespace],
    counted: Counter[Engine],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    a, b = processes
    first = seen(a)
    assert seen(b) == first and first.demand["aceptaciones"] == 750
    assert counted == {a.engine: 1}  # B did not count
    monkeypatch.setattr(module, "CHEAP", 0.0)  # every count is "expensive"
    import_batch(a.engine, CODE, SAMPLE / "lote-2-acciones-y-valores.csv", BROKER_B, "L1", "ayv")
    assert seen(a) is first  # at once, as counted, while A counts again in the background
    deadline = time.monotonic() + 30
    while (recounted := seen(a)) is first and time.monotonic() < deadline:
        time.sleep(0.05)
    assert recounted.demand["aceptaciones"] > 750
    assert seen(b) == recounted  # A's recount, with the time A counted it
    assert counted == {a.engine: 2}


def test_a_kept_count_of_other_code_or_unreadable_is_counted_again(
    processes: tuple[SimpleNamespace, SimpleNamespace], counted: Counter[Engine]
) -> None:
    a, b = processes
    first = seen(a)

    def same_counts(found: OfferFigures) -> bool:
        return (found.intake, found.filing) == (first.intake, first.filing)

    with a.engine.begin() as conn:
        kept = conn.execute(offer_figures_cache.select()).one()
        other_code = kept.clave.replace(module.CODE, "0" * 16)
        conn.execute(update(offer_figures_cache).values(clave=other_code))
    assert same_counts(seen(b)) and counted[b.engine] == 1  # another version's: counted again
    with a.engine.begin() as conn:
        conn.execute(update(offer_figures_cache).values(clave="[]", cifras="no es JSON"))
    c = SimpleNamespace(engine=b.engine)  # a process started afresh
    assert same_counts(seen(c)) and counted[b.engine] == 2


def test_figures_read_back_as_they_were_counted() -> None:
    figures = OfferFigures(
        intake={"por_dia": [{"clave": "2026-12-02", "aceptaciones": 3}]},
        filing=FilingFigures(10, 1, 8, 5_000, 4_800, 7, 1, 1, (("tope_patrimonio", 2),)),
        awarded=(4_500, 8),
        computed_at=datetime(2026, 12, 2, 14, 3, 11, 482_000),
        seconds=0.125,
    )
    fields = shared_figures.decode(shared_figures.encode(figures))
    assert fields is not None and OfferFigures(**fields) == figures
    assert shared_figures.decode('{"intake": {}}') is None  # not figures: none
