"""Failed logins: counted per account and address, the same for accounts that do not exist.

A flat lock on the account was a weapon (anyone could keep its owner out for 15 minutes)
and an oracle (only real accounts ever said "bloqueada"). Now five failures from one
address make that account-and-address wait 30 s, then twice as long after each further
failure; the owner elsewhere is not held back, and an unknown login gets the same answers.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.storage.database import make_engine, migrate
from democratiza.web.app import create_app
from democratiza.web.security.lockout import Lockout
from tests.test_web_support import PASSWORD, add_people, csrf_of

ERROR = re.compile(r'<p class="error" id="error">([^<]*)</p>')


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def lite(tmp_path: Path) -> Engine:
    engine = make_engine(f"sqlite:///{tmp_path / 'entrar.db'}")
    migrate(engine)
    add_people(engine)
    return engine


def attempt(client: TestClient, login: str, password: str) -> tuple[int, str]:
    """The status and the error the login page shows."""
    answer = client.post(
        "/entrar",
        data={"login": login, "clave": password, "csrf": csrf_of(client, "/entrar")},
        follow_redirects=False,
    )
    found = ERROR.search(answer.text)
    return answer.status_code, found.group(1) if found else ""


def test_the_wait_starts_at_the_fifth_failure_and_doubles() -> None:
    clock = Clock()
    lockout = Lockout(clock=clock)
    assert [lockout.failed("ana", "10.0.0.1") for _ in range(4)] == [0, 0, 0, 0]
    assert lockout.failed("ana", "10.0.0.1") == 30
    assert lockout.wait("ana", "10.0.0.1") == 30
    assert lockout.wait("ana", "10.0.0.2") == 0  # another address: its own count
    assert lockout.wait("otra", "10.0.0.1") == 0  # another account: its own count
    waits = []
    for _ in range(7):
        clock.now += lockout.wait("ana", "10.0.0.1")
        waits.append(lockout.failed("ana", "10.0.0.1"))
    assert waits == [60, 120, 240, 480, 900, 900, 900]  # 30 s doubled, up to 15 minutes
    lockout.succeeded("ana", "10.0.0.1")
    assert lockout.wait("ana", "10.0.0.1") == 0 and lockout.failed("ana", "10.0.0.1") == 0


def test_an_unknown_account_gets_exactly_the_answers_of_a_real_one(lite: Engine) -> None:
    client = TestClient(create_app(lite))
    real = [attempt(client, "auditor", "no-es-la-clave") for _ in range(6)]
    unknown = [attempt(client, "nadie-se-llama-asi", "no-es-la-clave") for _ in range(6)]
    assert real == unknown
    assert real[0] == (401, "Usuario o contraseña incorrectos.")
    assert real[4] == (
        401,
        "Usuario o contraseña incorrectos. Demasiados intentos fallidos con este usuario "
        "desde esta dirección: espere 30 segundos antes de intentar de nuevo.",
    )
    assert "bloqueada" not in " ".join(text for _, text in real)


def test_someone_elses_guesses_do_not_keep_the_owner_out(lite: Engine) -> None:
    app = create_app(lite)
    guesser = TestClient(app, client=("198.51.100.66", 5000))
    owner = TestClient(app, client=("203.0.113.2", 5000))
    for _ in range(10):
        attempt(guesser, "auditor", "no-es-la-clave")
    assert attempt(guesser, "auditor", PASSWORD)[0] == 401  # the guesser's address waits
    assert attempt(owner, "auditor", PASSWORD)[0] == 303  # the owner, elsewhere, gets in


def test_after_the_wait_the_right_password_opens_and_clears_the_count(lite: Engine) -> None:
    clock = Clock()
    app = create_app(lite)
    app.state.lockout = Lockout(clock=clock)
    client = TestClient(app)
    for _ in range(5):
        attempt(client, "auditor", "no-es-la-clave")
    status, text = attempt(client, "auditor", PASSWORD)
    assert status == 401 and "espere 30 segundos" in text  # no password is tried while waiting
    clock.now += 30
    assert attempt(client, "auditor", PASSWORD)[0] == 303
