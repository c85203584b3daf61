"""Helpers for the web tests (no tests here): people of every role, logging in, an offer.

Passwords are hashed with cheap argon2 parameters so that logging in hundreds of times
stays fast; the service verifies with the parameters stored in each hash, as in production.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
import yaml
from argon2 import PasswordHasher
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine, func, select

from democratiza.filing.batches import import_batch
from democratiza.offers.lifecycle import OfferState, advance, create_offer, load_offer
from democratiza.web.security.auth import create_token, create_user
from democratiza.web.server.processes import SERVER_OPTIONS

SAMPLE = Path(__file__).parents[1] / "examples/primera-etapa"
PARAMS: dict[str, object] = yaml.safe_load((SAMPLE / "oferta.yaml").read_text(encoding="utf-8"))
CODE = "central-primera-fase"
PASSWORD = "clave-de-prueba-larga"
CHEAP = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
BROKER_A, BROKER_B = "Casa de Bolsa", "Acciones y Valores"
PEOPLE = {
    "oficina": ("oficina", None),
    "auditor": ("auditor", None),
    "comisionista_a": ("comisionista", BROKER_A),
    "comisionista_b": ("comisionista", BROKER_B),
}
CSRF_FIELD = re.compile(r'name="csrf" value="([^"]+)"')


def add_people(engine: Engine) -> None:
    with engine.begin() as conn:
        for login, (role, broker) in PEOPLE.items():
            create_user(conn, login, login.title(), role, broker, PASSWORD, "pruebas", CHEAP)


def count(engine: Engine, table: object) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(table)).scalar_one())  # type: ignore[arg-type]


def csrf_of(client: TestClient, page: str = "/") -> str:
    found = CSRF_FIELD.search(client.get(page).text)
    assert found, f"la página {page} no trae el campo csrf"
    return found.group(1)


def log_in(client: TestClient, login: str, password: str = PASSWORD) -> str:
    """Log in through the form; returns the session's CSRF token."""
    token = csrf_of(client, "/entrar")
    answer = client.post(
        "/entrar",
        data={"login": login, "clave": password, "csrf": token},
        follow_redirects=False,
    )
    assert answer.status_code == 303, answer.text
    return csrf_of(client, "/")


def open_offer(engine: Engine, code: str = CODE) -> None:
    with engine.begin() as conn:
        stored = create_offer(conn, code, "central-seguros-vida", PARAMS, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "inicio del plazo")


def file_samples(engine: Engine, code: str = CODE) -> None:
    """The sample batches of brokers A and B."""
    import_batch(engine, code, SAMPLE / "lote-1-casa-de-bolsa.csv", BROKER_A, "L1", "scb")
    import_batch(engine, code, SAMPLE / "lote-2-acciones-y-valores.csv", BROKER_B, "L1", "ayv")


def move(engine: Engine, target: OfferState, code: str = CODE) -> None:
    with engine.begin() as conn:
        advance(conn, load_offer(conn, code), target, "oficina", "prueba")


def bearer(engine: Engine, broker: str) -> dict[str, str]:
    with engine.begin() as conn:
        _, token = create_token(conn, broker, "pruebas", "oficina")
    return {"Authorization": f"Bearer {token}"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(app: FastAPI) -> Iterator[str]:
    """The application served by uvicorn in a thread on a free loopback port, configured as
    ``democratiza servir`` configures it."""
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", **SERVER_OPTIONS)
    service = uvicorn.Server(config)
    thread = threading.Thread(target=service.run, daemon=True)
    thread.start()
    for _ in range(200):
        if service.started:
            break
        time.sleep(0.05)
    assert service.started, "uvicorn no arrancó"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        service.should_exit = True
        thread.join(timeout=10)
