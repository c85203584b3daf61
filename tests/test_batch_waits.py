"""How long a batch waited for its turn: the figure ``democratiza_lote_espera_segundos``.

Worked example: Casa de Bolsa sends a batch while its previous one still holds the broker's
turn (in this process, or in another process on the same PostgreSQL: an advisory lock held
by another connection), and then while both of the lane's processes are busy. Each wait is
one observation under its turn (``comisionista``, ``carril``), longer than the 0,4 s the
turn was held, so it lands above the 0,25 s bucket; a batch whose turns are free is counted
too. The figure's labels are the two turns only: no broker's name.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.storage import advisory
from democratiza.web.api.filing import broker_turn
from democratiza.web.app import create_app
from democratiza.web.server.bulk_lane import LANE_WORKERS, BulkLane
from tests.test_web_operation import LOCAL, figure
from tests.test_web_support import BROKER_A, CODE, SAMPLE, bearer, open_offer

GOOD = (SAMPLE / "lote-1-casa-de-bolsa.csv").read_bytes()
HELD = 0.4  # seconds the test keeps a turn taken while the batch waits for it
NAME = "democratiza_lote_espera_segundos"


def waits(client: TestClient, turn: str) -> tuple[float, float]:
    """How many waits under ``turn`` so far, and how many of them within 0,25 s."""
    page = client.get("/metricas").text
    count = figure(page, f'{NAME}_count{{turno="{turn}"}}')
    return count, figure(page, f'{NAME}_bucket{{le="0.25",turno="{turn}"}}')


def upload_while_held(client: TestClient, turn: AbstractContextManager[object], batch: str) -> None:
    """Send a batch from another thread while ``turn`` is held here for ``HELD`` seconds."""
    answers: list[int] = []

    def send() -> None:
        answer = client.post(
            f"/api/ofertas/{CODE}/lotes",
            files={"archivo": ("lote.csv", GOOD)},
            data={"lote": batch},
        )
        answers.append(answer.status_code)

    with turn:
        sender = threading.Thread(target=send)
        sender.start()
        time.sleep(HELD)
    sender.join(timeout=120)
    assert answers == [201]


@contextmanager
def lane_full(lane: BulkLane) -> Iterator[None]:
    """Every process of the lane taken (as by other brokers' batches)."""
    for _ in range(LANE_WORKERS):
        lane._turns.acquire()
    try:
        yield
    finally:
        for _ in range(LANE_WORKERS):
            lane._turns.release()


def test_a_batch_waiting_for_its_brokers_previous_one_is_counted_with_its_wait(
    engine: Engine,
) -> None:
    open_offer(engine)
    app = create_app(engine)
    broker = TestClient(app, headers=bearer(engine, BROKER_A))
    local = TestClient(app, client=LOCAL)
    before, quick_before = waits(local, "comisionista")
    lane_before, _ = waits(local, "carril")
    # The previous batch: on PostgreSQL held by another process (another connection's
    # advisory lock); on SQLite, one machine, by this process's own turn.
    previous = (
        advisory.turn(engine, f"lote:{BROKER_A}")
        if advisory.shared(engine)
        else broker_turn(BROKER_A)
    )
    upload_while_held(broker, previous, "L1")
    after, quick_after = waits(local, "comisionista")
    assert after - before == 1
    assert quick_after == quick_before  # it waited longer than 0,25 s
    # In this process without a lane (one batch at a time): its turn was free, still counted.
    assert waits(local, "carril")[0] - lane_before == 1


def test_a_batch_waiting_for_a_free_lane_process_is_counted_with_its_wait(
    engine: Engine,
) -> None:
    open_offer(engine)
    lane = BulkLane(engine.url.render_as_string(hide_password=False))
    with TestClient(create_app(engine, lane=lane), headers=bearer(engine, BROKER_A)) as broker:
        local = TestClient(broker.app, client=LOCAL)
        before, quick_before = waits(local, "carril")
        upload_while_held(broker, lane_full(lane), "L1")
        after, quick_after = waits(local, "carril")
        page = local.get("/metricas").text
    assert after - before == 1 and quick_after == quick_before
    assert BROKER_A not in page
