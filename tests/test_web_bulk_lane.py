"""A batch filed through the service's bulk lane (its own process) is answered as here.

``democratiza servir`` files batches in a separate, lower-priority process
(``web.server.bulk_lane``); the answers, refusals and once-only guarantee must be exactly
those of a batch filed in the service's own process.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.offers.lifecycle import StoredOffer
from democratiza.rules.engine import CompiledProgram
from democratiza.storage.database import make_engine
from democratiza.storage.schema import acceptances, batches
from democratiza.web.app import create_app
from democratiza.web.errors import Unavailable
from democratiza.web.server.bulk_lane import BulkLane, _file, _start_worker, lane_cores
from democratiza.web.server.lane_death import NOT_STORED, UNKNOWN, after_worker_died
from democratiza.web.server.lane_worker import LaneWorker, WorkerDied
from tests.test_web_support import BROKER_A, BROKER_B, CODE, SAMPLE, bearer, count, open_offer

GOOD = (SAMPLE / "lote-1-casa-de-bolsa.csv").read_bytes()
# The longest any wait of these tests lasts, on a loaded machine (a lane's process is
# started by spawn, imports the package and reads a 750-row batch): each wait ends by then,
# and the test fails saying what did not happen instead of hanging.
PATIENCE = 120.0
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
    assert lane.started == 1  # the batches really went through the lane's process
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


def test_a_lane_process_that_died_between_batches_costs_no_batch(engine: Engine) -> None:
    """Killed while it held no batch, the process is replaced before the next one is sent."""
    open_offer(engine)
    lane = BulkLane(engine.url.render_as_string(hide_password=False))
    with TestClient(create_app(engine, lane=lane), headers=bearer(engine, BROKER_A)) as client:
        status, _ = upload(client, "con-errores.csv", BAD, "MALO")  # starts the lane
        assert status == 422 and lane.started == 1
        for worker in lane._idle:
            os.kill(worker.process.pid or 0, signal.SIGKILL)
            worker.process.join(timeout=10)
        status, stored = upload(client, "lote-1.csv", GOOD, "L1")
        assert status == 201 and stored["creado"] is True
    assert lane.started == 2
    assert count(engine, acceptances) == 750 and count(engine, batches) == 1


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
        initializer=_start_worker,
    ) as pool:
        cores, niceness = pool.submit(_affinity_and_niceness).result(timeout=60)
    assert cores == lane_cores(os.sched_getaffinity(0))
    assert niceness > os.nice(0)


def _affinity_and_niceness() -> tuple[set[int], int]:
    return os.sched_getaffinity(0), os.nice(0)


def file_then_die(
    url: str, code: str, path: Path, shown: str, batch: str, broker: str, who: str
) -> bytes:
    """The lane's work, then the process dies: after the commit, before the answer."""
    _file(url, code, path, shown, batch, broker, who)
    os._exit(1)


def test_a_lane_that_died_after_its_commit_answers_that_the_batch_is_stored(
    engine: Engine,
) -> None:
    open_offer(engine)
    lane = BulkLane(engine.url.render_as_string(hide_password=False), work=file_then_die)
    with TestClient(create_app(engine, lane=lane), headers=bearer(engine, BROKER_A)) as client:
        status, told = upload(client, "lote-1.csv", GOOD, "L1")
    assert status == 201 and told["creado"] is True and told["filas"] == 750
    assert told["detalle"] == (
        "Lote 'L1' recibido: 750 aceptaciones radicadas. (El proceso que lo guardó se detuvo "
        "justo después; lo guardado es esto.)"
    )
    # Each row not accepted is told why, as the answer the lane could not give would have.
    rows = told["resultado"]
    not_accepted = [r for r in rows if r["decision"] != "aceptada"]
    assert not_accepted and all(r["explicacion"] for r in not_accepted)
    assert not any(r["explicacion"] for r in rows if r["decision"] == "aceptada")
    assert count(engine, batches) == 1 and count(engine, acceptances) == 750


def test_a_lane_whose_service_can_no_longer_tell_says_it_is_unknown_and_safe_to_resend(
    tmp_path: Path,
) -> None:
    gone = f"sqlite:///{tmp_path / 'borrada' / 'democratiza.db'}"  # no such folder
    upload_file = tmp_path / "lote-1.csv"
    upload_file.write_bytes(GOOD)
    with pytest.raises(Unavailable) as told:
        after_worker_died(make_engine(gone), CODE, upload_file, "lote-1.csv", "L1", BROKER_A)
    assert told.value.message == UNKNOWN


def worker_pid(*_: str) -> bytes:
    return str(os.getpid()).encode()


SERVICE = """
import sys
import threading
from democratiza.web.server.bulk_lane import BulkLane
from tests.test_web_bulk_lane import worker_pid
lane = BulkLane("sqlite://", work=worker_pid)
print(lane.file("x", None, "x", "x", "x", "x").decode(), flush=True)
sys.stdin.read()  # until killed
"""


def within(seconds: float, done: Callable[[], bool]) -> bool:
    """Whether ``done()`` became true within ``seconds`` (asked every 50 ms, and once more at
    the end): a wait bounded by the clock, not by a count of sleeps that load stretches."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if done():
            return True
        time.sleep(0.05)
    return done()


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")  # a zombie is gone
    except FileNotFoundError:
        return True


def test_the_lane_process_ends_when_its_service_is_killed_outright() -> None:
    if not os.path.isdir("/proc"):
        pytest.skip("processes are read from /proc (Linux)")
    service = subprocess.Popen(
        [sys.executable, "-c", SERVICE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert service.stdout is not None
    try:
        worker = int(service.stdout.readline())
        assert not gone(worker)
    finally:
        service.kill()  # kill -9: the service cannot stop its lane
        service.wait(timeout=PATIENCE)
    # The worker checks for its parent every half second.
    assert within(PATIENCE, lambda: gone(worker)), f"el proceso {worker} del carril quedó huérfano"


OTHER = (SAMPLE / "lote-2-acciones-y-valores.csv").read_bytes()  # Acciones y Valores's
HOLD = "DEMOCRATIZA_PRUEBA_RETENER"  # folder of the files that hold and release broker A


def held_while_evaluated(
    url: str, code: str, path: Path, shown: str, batch: str, broker: str, who: str
) -> bytes:
    """The lane's work; broker A's batch stops inside its evaluation until released.

    The wait is where a batch is decided (``compiled_program``, called once the file has
    been read): a batch of another broker filed meanwhile shows whether it waits for A's.
    """
    from democratiza.filing import batches as filing_batches
    from democratiza.filing.compiled import compiled_program as compiled

    if broker != BROKER_A:
        return _file(url, code, path, shown, batch, broker, who)
    folder = Path(os.environ[HOLD])

    def held(stored: StoredOffer, price: int | None = None) -> CompiledProgram:
        (folder / "a-evaluando").touch()
        within(PATIENCE, (folder / "soltar").exists)
        return compiled(stored, price)

    # The name ``import_batch`` calls: batches' own, imported from ``filing.compiled``.
    setattr(filing_batches, "compiled_program", held)  # noqa: B010
    try:
        return _file(url, code, path, shown, batch, broker, who)
    finally:
        setattr(filing_batches, "compiled_program", compiled)  # noqa: B010


def test_one_brokers_batch_is_not_held_behind_another_brokers_being_evaluated(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Broker B's batch is stored and answered while broker A's is still being evaluated."""
    open_offer(engine)
    monkeypatch.setenv(HOLD, str(tmp_path))  # the lane's processes inherit it
    lane = BulkLane(engine.url.render_as_string(hide_password=False), work=held_while_evaluated)
    answers: dict[str, int] = {}

    def send(broker: str, body: bytes, headers: dict[str, str]) -> None:
        answers[broker] = client.post(
            f"/api/ofertas/{CODE}/lotes",
            files={"archivo": ("lote.csv", body)},
            data={"lote": "L1"},
            headers=headers,
        ).status_code

    a_token, b_token = bearer(engine, BROKER_A), bearer(engine, BROKER_B)
    a = threading.Thread(target=send, args=(BROKER_A, GOOD, a_token))
    b = threading.Thread(target=send, args=(BROKER_B, OTHER, b_token))
    with TestClient(create_app(engine, lane=lane)) as client, released_at_the_end(tmp_path, [a, b]):
        a.start()
        # The lane's process starts (spawn) and reads A's file.
        arrived = within(PATIENCE, (tmp_path / "a-evaluando").exists)
        assert arrived, "el lote de A no llegó a evaluarse"
        b.start()
        b.join(timeout=PATIENCE)  # a new lane process, B's file read, evaluated, stored
        b_done_while_a_held = not b.is_alive() and a.is_alive()
    assert not a.is_alive() and not b.is_alive(), "un lote quedó sin respuesta"
    assert b_done_while_a_held, "el lote de B esperó a que terminara el de A"
    assert answers == {BROKER_B: 201, BROKER_A: 201}
    assert count(engine, batches) == 2


def held_until_released(
    url: str, code: str, path: Path, shown: str, batch: str, broker: str, who: str
) -> bytes:
    """The lane's work, once the test releases it; the process's number is left for the test."""
    folder = Path(os.environ[HOLD])
    written = folder / f"{broker}.pid.escribiendo"  # renamed once whole: never read half written
    written.write_text(str(os.getpid()), encoding="ascii")
    written.rename(folder / f"{broker}.pid")
    within(PATIENCE, (folder / "soltar").exists)
    return _file(url, code, path, shown, batch, broker, who)


@contextmanager
def released_at_the_end(folder: Path, senders: list[threading.Thread]) -> Iterator[None]:
    """The held lane processes are released when the test ends, passed or failed, and any
    sender still waiting then has its process killed: the service's shutdown (which waits for
    every request) then never waits for a batch held by a test that already failed."""
    try:
        yield
    finally:
        (folder / "soltar").touch()
        started = [sender for sender in senders if sender.ident is not None]
        for sender in started:
            sender.join(timeout=PATIENCE)
        if any(sender.is_alive() for sender in started):
            for pid in folder.glob("*.pid"):
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid.read_text()), signal.SIGKILL)


def test_a_dying_lane_process_takes_only_its_own_batch_with_it(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A's process is killed (kill -9) while A's and B's batches are both in the lane:
    A is told its batch was not stored and can be resent; B's is stored and answered 201."""
    open_offer(engine)
    monkeypatch.setenv(HOLD, str(tmp_path))  # the lane's processes inherit it
    lane = BulkLane(engine.url.render_as_string(hide_password=False), work=held_until_released)
    answers: dict[str, tuple[int, dict[str, Any]]] = {}
    tokens = {BROKER_A: bearer(engine, BROKER_A), BROKER_B: bearer(engine, BROKER_B)}

    def send(broker: str, body: bytes) -> None:
        answer = client.post(
            f"/api/ofertas/{CODE}/lotes",
            files={"archivo": ("lote.csv", body)},
            data={"lote": "L1"},
            headers=tokens[broker],
        )
        answers[broker] = (answer.status_code, answer.json())

    senders = [
        threading.Thread(target=send, args=(BROKER_A, GOOD)),
        threading.Thread(target=send, args=(BROKER_B, OTHER)),
    ]
    resent = threading.Thread(target=send, args=(BROKER_A, GOOD))
    with (
        TestClient(create_app(engine, lane=lane)) as client,
        released_at_the_end(tmp_path, [*senders, resent]),
    ):
        for sender in senders:
            sender.start()
        pids = {b: tmp_path / f"{b}.pid" for b in (BROKER_A, BROKER_B)}
        # Both processes start (spawn) and hold their batch.
        held = within(PATIENCE, lambda: all(p.exists() for p in pids.values()))
        assert held, "los dos lotes no llegaron al carril"
        a_pid, b_pid = (int(pids[b].read_text()) for b in (BROKER_A, BROKER_B))
        assert a_pid != b_pid
        os.kill(a_pid, signal.SIGKILL)
        (tmp_path / "soltar").touch()
        for sender in senders:
            sender.join(timeout=PATIENCE)
        assert not any(s.is_alive() for s in senders), "un lote quedó sin respuesta"
        assert count(engine, batches) == 1  # B's alone
        a_status, a_told = answers[BROKER_A]
        assert a_status == 503 and a_told["detalle"] == NOT_STORED
        b_status, b_told = answers[BROKER_B]
        assert b_status == 201 and b_told["creado"] is True and b_told["filas"] > 0
        resent.start()  # stored by B's process, which the lane kept
        resent.join(timeout=PATIENCE)
        assert not resent.is_alive(), "el lote reenviado quedó sin respuesta"
    assert answers[BROKER_A][0] == 201 and answers[BROKER_A][1]["creado"] is True
    assert count(engine, batches) == 2 and lane.started == 2


def refuse_or_answer(answer: str) -> bytes:
    if answer == "no":
        raise ValueError("rehusado")
    return answer.encode()


def _nothing() -> None:
    """A lane process's start, without its priority and cores (enough for this test)."""


def test_a_lane_process_returns_a_refusal_as_itself_and_goes_on_serving() -> None:
    worker = LaneWorker(_nothing)
    with pytest.raises(ValueError, match="rehusado"):
        worker.run(refuse_or_answer, "no")
    assert worker.run(refuse_or_answer, "sí") == "sí".encode()  # the same process, still well
    worker.abandon()  # interrupted mid-batch, the lane ends the process outright
    assert not worker.alive()
    with pytest.raises(WorkerDied):
        worker.run(refuse_or_answer, "sí")
