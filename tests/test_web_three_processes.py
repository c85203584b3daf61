"""Three service processes on one PostgreSQL, as three machines behind a proxy would be.

Requests are spread over the three (``democratiza servir`` on three ports, one database): the
lockout and the limits per address hold at their single-process numbers, a broker's batch
waits for its turn whichever process holds it, and a batch sent to two processes at once is
stored once. The tests use different accounts and brokers' batches, so they share the three
processes.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest
from sqlalchemy import Engine, func, select

from democratiza.storage import advisory
from democratiza.storage.database import make_engine, migrate
from democratiza.storage.schema import batches
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
