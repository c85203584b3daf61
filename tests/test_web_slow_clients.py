"""Slow clients on a real socket: half-sent headers or bodies time out, and one address may
hold only so many connections (the service's own uvicorn protocol, ``slow_clients``).

The limits are shortened for the test (a fraction of a second) so that it waits little.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn

from democratiza.web.server import slow_clients
from democratiza.web.server.processes import SERVER_OPTIONS


async def app(scope: dict, receive: object, send: object) -> None:  # type: ignore[type-arg]
    """Reads the whole body, then answers 200 (the service's own app needs no database here)."""
    if scope["type"] != "http":
        return
    more = True
    while more:
        message = await receive()  # type: ignore[operator]
        more = message.get("more_body", False)
    await send({"type": "http.response.start", "status": 200, "headers": []})  # type: ignore[operator]
    await send({"type": "http.response.body", "body": b"ok"})  # type: ignore[operator]


@pytest.fixture
def port(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    guard = slow_clients.SlowClientGuard
    monkeypatch.setattr(guard, "header_seconds", 0.4)
    monkeypatch.setattr(guard, "body_seconds", 0.4)
    monkeypatch.setattr(guard, "per_address", 3)
    monkeypatch.setattr(guard, "tick", 0.1)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    options = {**SERVER_OPTIONS, "log_level": "warning", "lifespan": "off"}
    server = uvicorn.Server(uvicorn.Config(app, **options))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    yield sock.getsockname()[1]
    server.should_exit = True
    thread.join(5)


def answer_of(client: socket.socket) -> bytes:
    client.settimeout(3)
    data = b""
    while chunk := client.recv(4096):
        data += chunk
    return data


def test_half_sent_headers_get_408_in_spanish_and_are_closed(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as client:
        client.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
        started = time.monotonic()
        data = answer_of(client)
    assert data.startswith(b"HTTP/1.1 408 ")
    assert json.loads(data.split(b"\r\n\r\n", 1)[1])["detalle"] == slow_clients.TIMED_OUT
    assert time.monotonic() - started < 2


def test_a_body_that_stops_arriving_is_closed(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as client:
        client.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + b"x" * 10)
        data = answer_of(client)
    assert data.startswith(b"HTTP/1.1 408 ")


def test_a_whole_request_is_answered(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as client:
        client.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert answer_of(client).startswith(b"HTTP/1.1 200 ")


def test_one_address_holds_only_so_many_connections(port: int) -> None:
    held = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
    try:
        time.sleep(0.1)
        with socket.create_connection(("127.0.0.1", port)) as one_more:
            data = answer_of(one_more)
        assert data.startswith(b"HTTP/1.1 429 ")
        assert json.loads(data.split(b"\r\n\r\n", 1)[1])["detalle"] == slow_clients.TOO_MANY
    finally:
        for client in held:
            client.close()
    time.sleep(0.2)  # once closed, the address may connect again
    with socket.create_connection(("127.0.0.1", port)) as client:
        client.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert answer_of(client).startswith(b"HTTP/1.1 200 ")
