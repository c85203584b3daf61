"""A batch filed through the service's bulk lane (its own process) is answered as here.

``democratiza servir`` files batches in a separate, lower-priority process
(``web.server.bulk_lane``); the answers, refusals and once-only guarantee must be exactly
those of a batch filed in the service's own process.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.storage.schema import acceptances, batches
from democratiza.web.app import create_app
from democratiza.web.server.bulk_lane import BulkLane, _lower_priority, lane_cores
from tests.test_web_support import BROKER_A, CODE, SAMPLE, bearer, count, open_offer

GOOD = (SAMPLE / "lote-1-casa-de-bolsa.csv").read_bytes()
BAD = (SAMPLE / "lote-4-credicorp-capital-con-errores.csv").read_bytes()


def upload(client: TestClient, name: str, body: bytes, batch: str) -> tuple[int, dict[str, Any]]:
    answer = client.post(
        f"/api/ofertas/{CODE}/lotes", files={"archivo": (name, body)}, data={"lote": batch}
    )
    return answer.status_code, answer.json()


def test_the_lane_answers_as_the_service_itself(engine: Engine) -> None:
    open_offer(engine)
    url = engine.url.render_as_string(hide_password=False)
    lane = BulkLane(url)
    with TestClient(create_app(engine, lane=lane), headers=bearer(engine, BROKER_A)) as client:
        status, bad = upload(client, "con-errores.csv", BAD, "MALO")
        assert status == 422 and bad["total_errores"] > 0  # a refusal comes back as itself
        assert {e["archivo"] for e in bad["errores"]} == {"con-errores.csv"}
        assert count(engine, batches) == 0
        status, first = upload(client, "lote-1.csv", GOOD, "L1")
        assert status == 201 and first["creado"] is True and first["filas"] == 750
        status, again = upload(client, "lote-1.csv", GOOD, "L1")
        assert status == 201 and again["creado"] is False
    assert lane._pool is not None  # the batches really went through the lane's process
    assert count(engine, acceptances) == 750 and count(engine, batches) == 1
    with TestClient(create_app(engine), headers=bearer(engine, BROKER_A)) as here:
        status, resent = upload(here, "lote-1.csv", GOOD, "L1")
    # The stored decisions are the same whichever process filed the batch.
    assert decisions(resent) == decisions(first) == decisions(again)
    assert len(decisions(first)) == 750


def decisions(answer: dict[str, Any]) -> list[tuple[object, ...]]:
    rows = answer["resultado"]
    assert isinstance(rows, list)
    return [(r["radicado"], r["decision"], r["cantidad_permitida"]) for r in rows]


def test_a_lane_that_died_stores_nothing_and_the_next_batch_gets_a_new_one(
    engine: Engine,
) -> None:
    open_offer(engine)
    lane = BulkLane(engine.url.render_as_string(hide_password=False))
    with TestClient(create_app(engine, lane=lane), headers=bearer(engine, BROKER_A)) as client:
        status, _ = upload(client, "con-errores.csv", BAD, "MALO")  # starts the lane
        assert status == 422 and lane._pool is not None
        for pid in list(lane._pool._processes):
            os.kill(pid, signal.SIGKILL)
        status, died = upload(client, "lote-1.csv", GOOD, "L1")
        assert status == 503 and "Envíelo de nuevo" in died["detalle"]
        assert count(engine, batches) == 0
        status, again = upload(client, "lote-1.csv", GOOD, "L1")
        assert status == 201 and again["creado"] is True
    assert count(engine, acceptances) == 750


def test_a_lane_keeps_to_half_of_the_cores() -> None:
    """Batches leave the other half of the machine to the service (at least one core)."""
    assert lane_cores({0, 1}) == {1}
    assert lane_cores({0}) == {0}
    assert lane_cores({0, 1, 2, 3, 4}) == {3, 4}
    assert lane_cores({2, 5, 7, 9}) == {7, 9}


def test_the_lane_process_starts_lower_and_on_its_cores() -> None:
    if not hasattr(os, "sched_getaffinity"):
        pytest.skip("the cores of a process are set on Linux only")
    with ProcessPoolExecutor(
        max_workers=1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_lower_priority,
    ) as pool:
        cores, niceness = pool.submit(_affinity_and_niceness).result(timeout=60)
    assert cores == lane_cores(os.sched_getaffinity(0))
    assert niceness > os.nice(0)


def _affinity_and_niceness() -> tuple[set[int], int]:
    return os.sched_getaffinity(0), os.nice(0)
