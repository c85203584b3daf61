"""Three service processes on one PostgreSQL, as three machines behind a proxy would be.

Requests are spread over the three (``democratiza servir`` on three ports, one database): the
lockout and the limits per address hold at their single-process numbers, a broker's batch
waits for its turn whichever process holds it, and a batch sent to two processes at once is
stored once. The tests use different accounts and brokers' batches, so they share the three
processes; each files what it needs, so that it passes alone as well as in the file.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime

import httpx
import pytest
from sqlalchemy import Engine, func, select, update

from democratiza.storage import advisory
from democratiza.storage.database import make_engine, migrate
from democratiza.storage.schema import acceptances, batches, offer_figures_cache, users
from democratiza.web.security.access import SESSION_COOKIE
from democratiza.web.security.auth import open_session
from tests.conftest import fresh_postgres
from tests.test_web_support import (
    BROKER_A,
    CODE,
    SAMPLE,
    add_people,
    bearer,
    free_port,
    open_offer,
)

# One worker runs this file (make test, pytest-xdist): its three processes are started once.
pytestmark = pytest.mark.xdist_group("test_web_three_processes")

ERROR = re.compile(r'<p class="error" id="error">([^<]*)</p>')
CSRF = re.compile(r'name="csrf" value="([^"]+)"')


@dataclass
class Three:
    engine: Engine
    urls: list[str]


def _start(url: str, port: int) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-c", "from democratiza.cli.main import app; app()", "servir"]
    command += ["--db", url, "--puerto", str(port), "--procesos", "1"]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _wait_serving(base: str, server: subprocess.Popen[bytes]) -> None:
    for _ in range(600):
        assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
        try:
            if httpx.get(f"{base}/api/programas", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"el servicio de {base} no arrancó")


@pytest.fixture(scope="module")
def three(pg_url: str) -> Iterator[Three]:
    """Started once for the module: three processes take seconds each to start."""
    fresh_postgres(pg_url)
    engine = make_engine(pg_url)
    migrate(engine)  # before the processes start: none of them has to migrate
    add_people(engine)
    open_offer(engine)
    ports = [free_port() for _ in range(3)]
    servers = [_start(pg_url, port) for port in ports]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        for base, server in zip(urls, servers, strict=True):
            _wait_serving(base, server)
        yield Three(engine, urls)
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            server.wait(timeout=30)
        engine.dispose()


def _login(client: httpx.Client, login: str) -> tuple[int, str]:
    form = CSRF.search(client.get("/entrar").text)
    assert form is not None
    answer = client.post("/entrar", data={"login": login, "clave": "no-es", "csrf": form[1]})
    found = ERROR.search(answer.text)
    return answer.status_code, found.group(1) if found else ""


def test_the_lockout_and_the_limit_per_address_hold_across_three_processes(
    three: Three,
) -> None:
    clients = [httpx.Client(base_url=url, timeout=30) for url in three.urls]
    # Five wrong passwords for one account, one process after another: the fifth starts the
    # wait of one process (30 s), and every process then makes the account wait.
    answers = [_login(clients[n % 3], "auditor") for n in range(5)]
    assert [status for status, _ in answers] == [401] * 5
    assert "espere 30 segundos" in answers[4][1] and "espere" not in answers[3][1]
    assert all("espere" in _login(client, "auditor")[1] for client in clients)
    # Twenty login attempts a minute from one address, whatever process: 8 so far, 12 more.
    assert [_login(clients[n % 3], f"otra-{n}")[0] for n in range(12)] == [401] * 12
    assert [_login(client, "oficina")[0] for client in clients] == [429] * 3
    for client in clients:
        client.close()


def test_a_brokers_batch_waits_for_its_turn_whichever_process_holds_it(three: Three) -> None:
    headers = bearer(three.engine, BROKER_A)
    body = (SAMPLE / "lote-1-casa-de-bolsa.csv").read_bytes()
    answers: dict[str, int] = {}

    def send(base: str, batch: str) -> None:
        answer = httpx.post(
            f"{base}/api/ofertas/{CODE}/lotes",
            headers=headers,
            files={"archivo": ("lote.csv", body)},
            data={"lote": batch},
            timeout=60,
        )
        answers[f"{batch}@{base}"] = answer.status_code

    def stored(batch: str) -> int:
        with three.engine.connect() as conn:
            found = select(func.count()).where(batches.c.lote == batch)
            return int(conn.execute(found).scalar_one())

    # The broker's turn is held (here by the test, as another process holding its batch
    # would): a batch sent to any process waits, and nothing of it is stored meanwhile.
    with advisory.turn(three.engine, f"lote:{BROKER_A}"):
        waiting = threading.Thread(target=send, args=(three.urls[1], "L-espera"))
        waiting.start()
        time.sleep(1.0)
        assert waiting.is_alive() and stored("L-espera") == 0
    waiting.join(timeout=60)
    assert answers == {f"L-espera@{three.urls[1]}": 201} and stored("L-espera") == 1
    # The same batch sent to the three processes at once: stored once.
    senders = [threading.Thread(target=send, args=(url, "L-tres")) for url in three.urls]
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join(timeout=60)
    assert stored("L-tres") == 1
    assert sorted(s for k, s in answers.items() if k.startswith("L-tres")).count(201) >= 1


def _office_session(engine: Engine, base: str) -> httpx.Client:
    """A clerk's session on one process (opened in the database: the login form's limit per
    address is spent by the lockout test above)."""
    with engine.begin() as conn:
        user = conn.execute(select(users.c.id).where(users.c.login == "oficina")).scalar_one()
        cookie = open_session(conn, int(user), datetime.now())
    return httpx.Client(base_url=base, cookies={SESSION_COOKIE: cookie}, timeout=60)


def _file(broker: httpx.Client, sample: str, batch: str) -> None:
    """One of the examples' batches filed as BROKER_A's, under the name ``batch``."""
    body = (SAMPLE / sample).read_bytes().replace(b"Acciones y Valores", BROKER_A.encode())
    filed = broker.post(
        f"/api/ofertas/{CODE}/lotes",
        files={"archivo": ("lote.csv", body)},
        data={"lote": batch},
        timeout=60,
    )
    assert filed.status_code == 201, filed.text


def test_every_process_serves_the_same_figures_of_the_last_count(three: Three) -> None:
    office = [_office_session(three.engine, url) for url in three.urls]
    dashboard = f"/api/ofertas/{CODE}/tablero"
    # Its own filing first, so that there are days to count whatever ran before it.
    broker = httpx.Client(base_url=three.urls[2], headers=bearer(three.engine, BROKER_A))
    _file(broker, "lote-1-casa-de-bolsa.csv", "L-cifras-antes")
    counted = office[0].get(dashboard)
    assert counted.status_code == 200
    # The count process 0 kept for every process, marked here so that serving it shows: the
    # two other processes, which never counted this offer, serve it instead of counting.
    with three.engine.begin() as conn:
        kept = json.loads(conn.execute(select(offer_figures_cache.c.cifras)).scalar_one())
        kept["intake"]["por_dia"] = [
            {**r, "aceptaciones": 123_456} for r in kept["intake"]["por_dia"]
        ]
        conn.execute(update(offer_figures_cache).values(cifras=json.dumps(kept)))
    for client in office[1:]:
        days = client.get(dashboard).json()["por_dia"]
        assert days and {r["aceptaciones"] for r in days} == {123_456}
    # A new filing changes the key: the next process asked counts again, and the others
    # serve that count, whichever they kept before.
    _file(broker, "lote-2-acciones-y-valores.csv", "L-cifras")
    # Counted at once if the count is cheap, else in the background (the last count is
    # served meanwhile): on a loaded machine even this offer's count may take long.
    deadline = time.monotonic() + 60
    while 123_456 in {r["aceptaciones"] for r in office[1].get(dashboard).json()["por_dia"]}:
        assert time.monotonic() < deadline, "no se volvió a contar"
        time.sleep(0.2)
    recounted = office[1].get(dashboard).json()
    assert all(client.get(dashboard).json() == recounted for client in office)
    for client in [*office, broker]:
        client.close()


class _SlowBody(io.BytesIO):
    """A batch sent slowly, 16 KiB at a time, that says when its first part has gone."""

    def __init__(self, body: bytes, started: threading.Event) -> None:
        super().__init__(body)
        self.started = started

    def read(self, size: int | None = -1) -> bytes:
        part = super().read(16_384)
        if part:
            self.started.set()
            time.sleep(0.3)
        return part


def _killable(three: Three) -> tuple[str, subprocess.Popen[bytes]]:
    """A fourth process on the same database, to be killed (the three go on serving)."""
    port = free_port()
    server = _start(three.engine.url.render_as_string(hide_password=False), port)
    base = f"http://127.0.0.1:{port}"
    _wait_serving(base, server)
    return base, server


def test_a_process_killed_mid_upload_loses_nothing_and_the_others_go_on(three: Three) -> None:
    """SIGKILL while the batch's body arrives, and while its batch waits for the broker's
    turn (its whole file received): nothing of it stored; sent again to another process,
    stored once."""
    headers = bearer(three.engine, BROKER_A)
    body = (SAMPLE / "lote-1-casa-de-bolsa.csv").read_bytes()

    def stored(batch: str) -> tuple[int, int]:
        with three.engine.connect() as conn:
            ids = select(batches.c.id).where(batches.c.lote == batch).scalar_subquery()
            found = conn.execute(select(func.count()).where(batches.c.lote == batch))
            rows = conn.execute(select(func.count()).where(acceptances.c.lote_id.in_(ids)))
            return int(found.scalar_one()), int(rows.scalar_one())

    def send(base: str, batch: str, content: object) -> int:
        answer = httpx.post(
            f"{base}/api/ofertas/{CODE}/lotes",
            headers=headers,
            files={"archivo": ("lote.csv", content)},  # type: ignore[dict-item]
            data={"lote": batch},
            timeout=60,
        )
        return answer.status_code

    def killed_while(batch: str, hold_turn: bool) -> None:
        base, server = _killable(three)
        started = threading.Event()
        failed: list[BaseException] = []

        def upload() -> None:
            content = body if hold_turn else _SlowBody(body, started)
            try:
                send(base, batch, content)
            except httpx.HTTPError as exc:  # the process died under it: no answer
                failed.append(exc)

        with advisory.turn(three.engine, f"lote:{BROKER_A}") if hold_turn else nullcontext():
            sender = threading.Thread(target=upload)
            sender.start()
            if hold_turn:
                time.sleep(2.0)  # the whole file received; waiting for the broker's turn
            else:
                assert started.wait(30)
                time.sleep(0.5)  # part of the body received
            server.kill()
            server.wait(timeout=30)
            sender.join(timeout=60)
        assert failed and stored(batch) == (0, 0)  # nothing half-written
        # The others go on; the broker sends the same batch again, to another process.
        assert all(httpx.get(f"{url}/salud", timeout=30).status_code == 200 for url in three.urls)
        assert send(three.urls[0], batch, body) == 201
        assert send(three.urls[1], batch, body) == 201  # again: answered as stored
        assert stored(batch) == (1, 750)

    killed_while("L-muerto-al-subir", hold_turn=False)
    killed_while("L-muerto-esperando", hold_turn=True)
