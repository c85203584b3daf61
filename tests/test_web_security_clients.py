"""The address a limit counts: the peer's, or a trusted proxy's ``X-Forwarded-For``.

Anyone can write ``X-Forwarded-For``; rotating it must not give a client new attempts.
The header is believed only from the proxies the configuration names, read from the right.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.requests import Request
from typer.testing import CliRunner

from democratiza.cli.main import app as cli
from democratiza.storage.database import make_engine, migrate
from democratiza.web.app import create_app
from democratiza.web.security.access import CSRF_COOKIE, SESSION_COOKIE
from democratiza.web.security.clients import (
    PROXIES_VARIABLE,
    SECURE_VARIABLE,
    BadForwarding,
    ProxyError,
    client_address,
    secure_cookies_from_environment,
    trusted_networks,
)
from tests.test_web_support import CSRF_FIELD, PASSWORD, add_people, serving

LOOKUP = {
    "oferta": "x",
    "radicado": "1",
    "tipo_identificacion": "CC",
    "numero_identificacion": "1",
}


def request_from(peer: str, forwarded: str | None) -> Request:
    headers = [(b"x-forwarded-for", forwarded.encode())] if forwarded else []
    return Request({"type": "http", "client": (peer, 5000), "headers": headers})


def test_forwarded_for_is_read_only_from_a_trusted_proxy_and_from_the_right() -> None:
    proxy = trusted_networks(["10.0.0.5", "10.1.0.0/16"])
    # No proxy configured: the header is the client's own words.
    assert client_address(request_from("127.0.0.1", "1.2.3.4"), ()) == "127.0.0.1"
    # A peer that is not a trusted proxy: the same.
    assert client_address(request_from("192.0.2.9", "1.2.3.4"), proxy) == "192.0.2.9"
    # Through the proxy: the address it appended, not what the client wrote before it.
    spoofed = request_from("10.0.0.5", "6.6.6.6, 203.0.113.7")
    assert client_address(spoofed, proxy) == "203.0.113.7"
    # Two trusted hops: the first address from the right that is not one of them.
    assert client_address(request_from("10.0.0.5", "203.0.113.7, 10.1.4.4"), proxy) == (
        "203.0.113.7"
    )
    assert client_address(request_from("10.0.0.5", None), proxy) == "10.0.0.5"


def test_a_trusted_proxy_that_is_not_an_address_is_refused_in_spanish() -> None:
    with pytest.raises(ProxyError, match=r"'proxy\.local' no es una dirección IP ni una red"):
        trusted_networks(["proxy.local"])


def test_rotating_forwarded_for_from_loopback_gets_no_new_attempts(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'proxies.db'}")
    migrate(engine)
    with serving(create_app(engine)) as url, httpx.Client(base_url=url) as client:
        answers = [
            client.post(
                "/api/resultados/consulta",
                json=LOOKUP,
                headers={"X-Forwarded-For": f"198.51.100.{n}"},
            ).status_code
            for n in range(21)
        ]
    assert answers[:20] == [404] * 20
    assert answers[20] == 429


def test_behind_a_named_proxy_each_forwarded_client_has_its_own_count(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'proxies.db'}")
    migrate(engine)
    app = create_app(engine, proxies=trusted_networks(["10.0.0.5"]))
    client = TestClient(app, client=("10.0.0.5", 40000))

    def lookup(address: str) -> int:
        answer = client.post(
            "/api/resultados/consulta", json=LOOKUP, headers={"X-Forwarded-For": address}
        )
        return int(answer.status_code)

    assert [lookup("203.0.113.7") for _ in range(21)][-1] == 429
    assert lookup("203.0.113.8") == 404  # another client behind the same proxy
    assert lookup("203.0.113.8, 203.0.113.7") == 429  # writing a new address first: no use


def test_servir_refuses_a_trusted_proxy_that_is_not_an_address(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        ["servir", "--proxy", "10.0.0.5", "--proxy", "proxy.local"],
        env={PROXIES_VARIABLE: "", "COLUMNS": "200"},
    )
    assert result.exit_code == 1
    assert "'proxy.local' no es una dirección IP ni una red" in result.output


def test_a_forwarded_hop_that_is_not_an_address_is_refused_not_taken(tmp_path: Path) -> None:
    proxy = trusted_networks(["10.0.0.5"])
    with pytest.raises(BadForwarding):
        client_address(request_from("10.0.0.5", "203.0.113.7, cualquier-cosa"), proxy)
    # Further left, it is the client's own words, as any address written there.
    assert client_address(request_from("10.0.0.5", "nada, 203.0.113.7"), proxy) == "203.0.113.7"
    engine = make_engine(f"sqlite:///{tmp_path / 'proxies.db'}")
    migrate(engine)
    client = TestClient(create_app(engine, proxies=proxy), client=("10.0.0.5", 40000))
    answer = client.post(
        "/api/resultados/consulta", json=LOOKUP, headers={"X-Forwarded-For": "unknown"}
    )
    assert answer.status_code == 400
    assert answer.json()["detalle"].startswith("El encabezado X-Forwarded-For que trae el proxy")


def set_cookies(answer: httpx.Response) -> dict[str, str]:
    """Each cookie the answer sets, by name: its whole Set-Cookie line."""
    lines = answer.headers.get_list("set-cookie")
    return {line.split("=", 1)[0]: line for line in lines}


def test_cookies_are_secure_behind_a_tls_proxy_that_says_https(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'proxies.db'}")
    migrate(engine)
    add_people(engine)
    proxy = trusted_networks(["10.0.0.5"])
    https = {"X-Forwarded-Proto": "https"}

    def csrf_cookie(peer: str, headers: dict[str, str], **options: object) -> str:
        app = create_app(engine, proxies=proxy, **options)  # type: ignore[arg-type]
        return set_cookies(TestClient(app, client=(peer, 40000)).get("/", headers=headers))[
            CSRF_COOKIE
        ]

    assert "secure" in csrf_cookie("10.0.0.5", https).lower()
    assert "secure" not in csrf_cookie("10.0.0.5", {}).lower()  # the proxy says plain HTTP
    assert "secure" not in csrf_cookie("192.0.2.9", https).lower()  # not a trusted proxy
    assert "secure" in csrf_cookie("192.0.2.9", {}, secure_cookies=True).lower()  # forced
    # The session's cookie, when logging in through the proxy.
    client = TestClient(create_app(engine, proxies=proxy), client=("10.0.0.5", 40000))
    form = client.get("/entrar", headers=https)
    token = CSRF_FIELD.search(form.text)
    assert token is not None
    # A client keeps a Secure cookie for HTTPS only: sent here as the browser would.
    cookie = set_cookies(form)[CSRF_COOKIE].split(";")[0]
    answer = client.post(
        "/entrar",
        data={"login": "oficina", "clave": PASSWORD, "csrf": token.group(1)},
        headers={**https, "Cookie": cookie},
        follow_redirects=False,
    )
    assert answer.status_code == 303
    assert "secure" in set_cookies(answer)[SESSION_COOKIE].lower()


def test_the_setting_that_forces_secure_cookies_is_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(SECURE_VARIABLE, raising=False)
    assert secure_cookies_from_environment() is False
    monkeypatch.setenv(SECURE_VARIABLE, "1")
    assert secure_cookies_from_environment() is True
