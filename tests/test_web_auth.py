"""Logging in, the lockout, CSRF on every form and cookie-borne request, and API tokens."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, event, select

from democratiza.storage.schema import api_tokens, users
from democratiza.web.app import create_app
from democratiza.web.security.access import SESSION_COOKIE
from democratiza.web.security.auth import revoke_token
from democratiza.web.security.token_cache import TOKEN_SECONDS, TokenCache
from tests.test_web_support import (
    BROKER_A,
    BROKER_B,
    CODE,
    PASSWORD,
    add_people,
    bearer,
    csrf_of,
    file_samples,
    log_in,
    open_offer,
)


@pytest.fixture
def app_client(engine: Engine) -> Iterator[TestClient]:
    add_people(engine)
    with TestClient(create_app(engine)) as client:
        yield client


def attempt(client: TestClient, login: str, password: str) -> tuple[int, str]:
    token = csrf_of(client, "/entrar")
    answer = client.post(
        "/entrar", data={"login": login, "clave": password, "csrf": token}, follow_redirects=False
    )
    return answer.status_code, answer.text


def test_passwords_and_tokens_are_stored_only_as_hashes(
    engine: Engine, app_client: TestClient
) -> None:
    headers = bearer(engine, BROKER_A)
    with engine.connect() as conn:
        stored = conn.execute(select(users.c.hash)).scalars().all()
        digests = conn.execute(select(api_tokens.c.huella)).scalars().all()
    assert all(h.startswith("$argon2id$") and PASSWORD not in h for h in stored)
    token = headers["Authorization"].removeprefix("Bearer ")
    assert digests and token not in digests[0] and len(digests[0]) == 64


def test_login_sends_each_role_home_and_logout_ends_the_session(app_client: TestClient) -> None:
    status, _ = attempt(app_client, "oficina", "equivocada-123")
    assert status == 401
    csrf = log_in(app_client, "comisionista_a")
    assert app_client.get("/comisionista").status_code == 200
    cookie = app_client.cookies[SESSION_COOKIE]
    out = app_client.post("/salir", data={"csrf": csrf}, follow_redirects=False)
    assert out.status_code == 303
    # The old cookie no longer opens anything, even if replayed.
    replay = TestClient(app_client.app, cookies={SESSION_COOKIE: cookie})
    assert replay.get("/comisionista", follow_redirects=False).status_code == 303


def test_unknown_login_gets_the_same_answer_as_a_wrong_password(app_client: TestClient) -> None:
    unknown = attempt(app_client, "nadie", "lo-que-sea-123")
    wrong = attempt(app_client, "oficina", "lo-que-sea-123")
    assert unknown[0] == wrong[0] == 401
    assert (
        "Usuario o contraseña incorrectos." in unknown[1]
        and "Usuario o contraseña incorrectos." in wrong[1]
    )


def test_forms_and_cookie_requests_without_the_csrf_token_are_refused(
    engine: Engine, app_client: TestClient
) -> None:
    open_offer(engine)
    # Logging in itself: the double-submit token must match the cookie.
    csrf_of(app_client, "/entrar")
    forged = app_client.post(
        "/entrar",
        data={"login": "oficina", "clave": PASSWORD, "csrf": "otro"},
        follow_redirects=False,
    )
    assert forged.status_code == 403 and "CSRF" in forged.text
    csrf = log_in(app_client, "oficina")
    action = {"accion": "cerrar", "motivo": "prueba"}
    for data in (action, {**action, "csrf": "no-es-el-de-la-sesion"}):
        refused = app_client.post(f"/oficina/ofertas/{CODE}/acciones", data=data)
        assert refused.status_code == 403 and "código de seguridad (CSRF)" in refused.text
    # The API with the session cookie needs the header; nothing changed meanwhile.
    api = app_client.post(f"/api/ofertas/{CODE}/cerrar", json={"motivo": "prueba"})
    assert api.status_code == 403 and "CSRF" in api.json()["detalle"]
    assert app_client.get(f"/api/ofertas/{CODE}").json()["estado"] == "abierta"
    done = app_client.post(
        f"/api/ofertas/{CODE}/cerrar", json={"motivo": "prueba"}, headers={"X-CSRF-Token": csrf}
    )
    assert done.status_code == 200 and done.json()["estado"] == "cerrada"


def test_a_token_revoked_elsewhere_stops_working_within_the_window(
    engine: Engine, app_client: TestClient
) -> None:
    """Revoked by another service process or the command line: refused within 2 seconds."""
    open_offer(engine)
    now = [1000.0]
    app_client.app.state.tokens = TokenCache(clock=lambda: now[0])  # type: ignore[attr-defined]
    headers = bearer(engine, BROKER_A)
    listing = f"/api/ofertas/{CODE}/aceptaciones"
    assert app_client.get(listing, headers=headers).status_code == 200
    with engine.begin() as conn:
        token_id = conn.execute(select(api_tokens.c.id)).scalar_one()
        revoke_token(conn, token_id, "otro proceso")
    now[0] += TOKEN_SECONDS - 0.1
    assert app_client.get(listing, headers=headers).status_code == 200  # within the window
    now[0] += 0.2
    assert app_client.get(listing, headers=headers).status_code == 401
    assert app_client.get(listing, headers=headers).status_code == 401  # refusals not kept


def test_a_token_checked_again_takes_along_those_whose_window_ends_soon(engine: Engine) -> None:
    """One query re-checks the token asked for and the remembered ones about to need it;
    a token revoked meanwhile is dropped then, and none is kept past its own window."""
    now = [1000.0]
    tokens = TokenCache(clock=lambda: now[0])
    first, second = (bearer(engine, b)["Authorization"].split()[1] for b in (BROKER_A, BROKER_B))
    assert tokens.principal(engine, first) is not None  # remembered until 1002
    now[0] += 0.9
    assert tokens.principal(engine, second) is not None  # until 1002.9
    with engine.begin() as conn:
        second_id = conn.execute(
            select(api_tokens.c.id).where(api_tokens.c.comisionista == BROKER_B)
        ).scalar_one()
        revoke_token(conn, second_id, "otro proceso")
    now[0] = 1000.0 + TOKEN_SECONDS + 0.1
    queries: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *a: queries.append(a[2]))
    assert tokens.principal(engine, first) is not None
    assert len(queries) == 1  # the second token checked in the same query...
    assert tokens.remembered(second) is None  # ... found revoked, before its window ended
    assert tokens.remembered(first) is not None
    now[0] += TOKEN_SECONDS
    assert tokens.remembered(first) is None  # never past its own window


def _tokens_both_expired(engine: Engine) -> tuple[TokenCache, str, str]:
    """Two brokers' tokens remembered, both windows just ended (as they end together)."""
    now = [1000.0]
    tokens = TokenCache(clock=lambda: now[0])
    first, second = (bearer(engine, b)["Authorization"].split()[1] for b in (BROKER_A, BROKER_B))
    assert tokens.principal(engine, first) is not None
    assert tokens.principal(engine, second) is not None
    now[0] += TOKEN_SECONDS + 0.1
    return tokens, first, second


def _held_queries(engine: Engine, fail: bool = False) -> tuple[list[str], threading.Event]:
    """Every query from now on recorded, then held until the event is set (and failed)."""
    queries: list[str] = []
    release = threading.Event()

    def hold(*args: Any) -> None:
        queries.append(args[2])
        release.wait(5)
        if fail:
            raise RuntimeError("la base no responde")

    event.listen(engine, "before_cursor_execute", hold)
    return queries, release


def _until(condition: Any, seconds: float = 2.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_token_being_checked_by_a_query_under_way_waits_for_its_answer(
    engine: Engine,
) -> None:
    """Fifty brokers whose windows end together each miss their token at once, each in a
    request of its own: the first query checks them all, and the others wait for it
    instead of asking the same question (one query, not one per broker)."""
    tokens, first, second = _tokens_both_expired(engine)
    queries, release = _held_queries(engine)
    found: dict[str, str | None] = {}

    def check(name: str, token: str) -> None:
        principal = tokens.principal(engine, token)
        found[name] = principal.broker if principal else None

    asking = threading.Thread(target=check, args=("a", first))
    asking.start()
    _until(lambda: len(queries) == 1)
    waiting = threading.Thread(target=check, args=("b", second))
    waiting.start()
    _until(lambda: len(queries) == 2, 0.3)  # a query of its own would be held here too
    assert waiting.is_alive()  # waiting for the answer of the first query
    release.set()
    asking.join(5)
    waiting.join(5)
    assert len(queries) == 1
    assert found == {"a": BROKER_A, "b": BROKER_B}


def test_a_check_that_fails_fails_every_request_waiting_for_it(engine: Engine) -> None:
    """The database did not answer: no request takes that for "token not valid"."""
    tokens, first, second = _tokens_both_expired(engine)
    queries, release = _held_queries(engine, fail=True)
    failed: list[str] = []

    def check(token: str) -> None:
        try:
            tokens.principal(engine, token)
        except RuntimeError as error:
            failed.append(str(error))

    asking = threading.Thread(target=check, args=(first,))
    asking.start()
    _until(lambda: len(queries) == 1)
    waiting = threading.Thread(target=check, args=(second,))
    waiting.start()
    _until(lambda: len(queries) == 2, 0.3)
    release.set()
    asking.join(5)
    waiting.join(5)
    assert failed == ["la base no responde"] * 2
    assert len(queries) == 1
    assert tokens.remembered(first) is None and tokens.remembered(second) is None


def test_a_revoked_token_stops_working_at_once(engine: Engine, app_client: TestClient) -> None:
    open_offer(engine)
    file_samples(engine)
    headers = bearer(engine, BROKER_A)
    listing = f"/api/ofertas/{CODE}/aceptaciones"
    assert app_client.get(listing, headers=headers).status_code == 200
    csrf = log_in(app_client, "oficina")
    with engine.connect() as conn:
        token_id = conn.execute(select(api_tokens.c.id)).scalar_one()
    revoked = app_client.post(f"/api/tokens/{token_id}/revocacion", headers={"X-CSRF-Token": csrf})
    assert revoked.status_code == 200
    anonymous = TestClient(app_client.app)
    refused = anonymous.get(listing, headers=headers)
    assert (
        refused.status_code == 401
        and refused.json()["detalle"] == "El token no es válido o fue revocado."
    )
    assert refused.headers["www-authenticate"] == "Bearer"
    again = app_client.post(f"/api/tokens/{token_id}/revocacion", headers={"X-CSRF-Token": csrf})
    assert again.status_code == 404
