"""Brute force from one address: the login and the public result lookup are throttled."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.web.app import create_app
from democratiza.web.errors import TooManyRequests
from democratiza.web.security.throttle import Throttle
from tests.test_web_support import add_people, csrf_of


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_an_address_gets_its_attempts_per_window_and_then_waits() -> None:
    clock = Clock()
    throttle = Throttle(limit=3, window=60, clock=clock)
    for _ in range(3):
        throttle.attempt("pag.entrar.enviar", "10.0.0.1")
    with pytest.raises(TooManyRequests, match="espere 60 segundos"):
        throttle.attempt("pag.entrar.enviar", "10.0.0.1")
    throttle.attempt("pag.entrar.enviar", "10.0.0.2")  # another address: its own count
    throttle.attempt("api.resultado", "10.0.0.1")  # another door: its own count
    throttle.attempt("api.ofertas", "10.0.0.1")  # not a guarded route: never counted
    clock.now += 59
    with pytest.raises(TooManyRequests, match="espere 1 segundos"):
        throttle.attempt("pag.entrar.enviar", "10.0.0.1")
    clock.now += 1  # the first attempt leaves the window
    throttle.attempt("pag.entrar.enviar", "10.0.0.1")


def test_the_21st_login_attempt_from_one_address_is_refused(engine: Engine) -> None:
    add_people(engine)
    client = TestClient(create_app(engine))
    token = csrf_of(client, "/entrar")
    form = {"login": "oficina", "clave": "equivocada", "csrf": token}
    answers = [client.post("/entrar", data=form).status_code for _ in range(21)]
    assert answers[:20] == [answers[0]] * 20 and answers[0] != 429
    assert answers[20] == 429
    lookup = {
        "oferta": "x",
        "radicado": "1",
        "tipo_identificacion": "CC",
        "numero_identificacion": "1",
    }
    # The public lookup is another door, with its own count.
    assert client.post("/api/resultados/consulta", json=lookup).status_code == 404
