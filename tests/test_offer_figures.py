"""An offer's figures are counted once per change, not once per page: a small offer's page is
always exact; a large one's answers at once with the last figures while new ones are
counted, except after a change of state, which is always shown at once."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from sqlalchemy import Engine

from democratiza.filing.batches import import_batch
from democratiza.offers.lifecycle import load_offer
from democratiza.storage.database import make_engine, migrate
from democratiza.web.api import offer_figures as module
from democratiza.web.api.offer_figures import OfferFigures, offer_figures
from tests.test_web_support import BROKER_A, BROKER_B, CODE, SAMPLE, move, open_offer


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{tmp_path / 'democratiza.db'}")
    migrate(engine)
    open_offer(engine)
    import_batch(engine, CODE, SAMPLE / "lote-1-casa-de-bolsa.csv", BROKER_A, "L1", "scb")
    yield engine
    engine.dispose()


def seen(app: SimpleNamespace, engine: Engine) -> OfferFigures:
    with engine.connect() as conn:
        return offer_figures(app, conn, load_offer(conn, CODE))


def file_second_batch(engine: Engine) -> None:
    import_batch(engine, CODE, SAMPLE / "lote-2-acciones-y-valores.csv", BROKER_B, "L1", "ayv")


def test_a_small_offer_shows_each_new_filing_at_once(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every count "cheap": on a loaded machine the first count of a process (cold) can take
    # longer than ``CHEAP``, and the offer would then be served as a large one.
    monkeypatch.setattr(module, "CHEAP", 3600.0)
    app = SimpleNamespace(engine=engine)
    before = seen(app, engine)
    assert seen(app, engine) is before  # nothing changed: not counted again
    file_second_batch(engine)
    after = seen(app, engine)
    assert after.demand["aceptaciones"] > before.demand["aceptaciones"]
    assert [r["clave"] for r in after.intake["por_comisionista"]] == [BROKER_B, BROKER_A]


def test_a_large_offer_answers_with_its_last_figures_while_new_ones_are_counted(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(module, "CHEAP", 0.0)  # every count is "expensive"
    app = SimpleNamespace(engine=engine)
    before = seen(app, engine)
    file_second_batch(engine)
    assert seen(app, engine) is before  # at once, with the time it was counted
    deadline = time.monotonic() + 10
    while (now := seen(app, engine)) is before and time.monotonic() < deadline:
        time.sleep(0.05)  # counted again in the background
    assert now.demand["aceptaciones"] > before.demand["aceptaciones"]
    assert now.computed_at > before.computed_at


def test_a_change_of_state_is_never_shown_late(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(module, "CHEAP", 0.0)
    app = SimpleNamespace(engine=engine)
    before = seen(app, engine)
    file_second_batch(engine)
    move(engine, "cerrada")
    after = seen(app, engine)
    assert after is not before
    assert after.demand["aceptaciones"] > before.demand["aceptaciones"]
