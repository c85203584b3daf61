"""Slow clients: read timeouts for a request's headers and body, and open connections per address.

Why: uvicorn closes a connection idle between two requests (``timeout_keep_alive``) but
waits for ever on one that has sent half its headers, or half its body; 3.000 half-sent
requests once stayed open for as long as their client liked, each holding a socket and
memory. Here each connection is looked at every ``TICK`` seconds: its headers must arrive
within ``HEADER_SECONDS`` of its first byte, and while the service waits for its body, a
byte of it must arrive at least every ``BODY_SECONDS`` (not while the service itself has
paused reading). Past either, the client gets 408 in Spanish (when no answer has begun)
and the connection is closed. One address may hold ``PER_ADDRESS`` connections at once; one
more gets 429 and is closed. A trusted proxy (``DEMOCRATIZA_PROXIES``), which carries every
client's connections, is not counted.

The protocol is uvicorn's own (httptools where installed, else h11) with these checks added.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, ClassVar

from uvicorn.protocols.http.h11_impl import H11Protocol

from democratiza.web.security.clients import Network, _is_trusted, proxies_from_environment

HEADER_SECONDS = 20.0
BODY_SECONDS = 30.0
PER_ADDRESS = 64
TICK = 1.0
TIMED_OUT = "La solicitud tardó demasiado en llegar; envíela de nuevo."
TOO_MANY = "Demasiadas conexiones abiertas desde esta dirección; cierre alguna e intente de nuevo."


def _answer(status: int, reason: str, message: str) -> bytes:
    body = json.dumps({"detalle": message}, ensure_ascii=False).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


_trusted: list[tuple[Network, ...]] = []


def _proxies() -> tuple[Network, ...]:
    if not _trusted:
        _trusted.append(proxies_from_environment())
    return _trusted[0]


class SlowClientGuard:
    """Mixed in before a uvicorn HTTP protocol class (its attributes are that class's)."""

    open_by_address: ClassVar[Counter[str]] = Counter()
    header_seconds: ClassVar[float] = HEADER_SECONDS
    body_seconds: ClassVar[float] = BODY_SECONDS
    per_address: ClassVar[int] = PER_ADDRESS
    tick: ClassVar[float] = TICK
    _address: str | None = None
    _watch: Any = None
    _started: float | None = None
    _progress: float = 0.0

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        this: Any = self
        host = this.client[0] if this.client else ""
        if not _is_trusted(host, _proxies()):
            if self.open_by_address[host] >= self.per_address:
                transport.write(_answer(429, "Too Many Requests", TOO_MANY))
                transport.close()
                return
            self._address = host
            self.open_by_address[host] += 1
        self._started = self._progress = this.loop.time()
        self._watch = this.loop.call_later(self.tick, self._look)

    def data_received(self, data: bytes) -> None:
        this: Any = self
        self._progress = this.loop.time()
        if self._started is None and (this.cycle is None or this.cycle.response_complete):
            self._started = self._progress  # the first byte of the next request
        super().data_received(data)  # type: ignore[misc]

    def on_response_complete(self) -> None:
        self._started = None  # idle until the next request: uvicorn's keep-alive timeout
        super().on_response_complete()  # type: ignore[misc]

    def connection_lost(self, exc: Exception | None) -> None:
        if self._address is not None:
            self.open_by_address[self._address] -= 1
            if self.open_by_address[self._address] <= 0:
                del self.open_by_address[self._address]
            self._address = None
        if self._watch is not None:
            self._watch.cancel()
        super().connection_lost(exc)  # type: ignore[misc]

    def _look(self) -> None:
        this: Any = self
        if this.transport.is_closing():
            return
        now = this.loop.time()
        cycle = this.cycle
        reading_headers = cycle is None or cycle.response_complete
        if reading_headers and self._started is not None:
            if now - self._started > self.header_seconds:
                this.transport.write(_answer(408, "Request Timeout", TIMED_OUT))
                this.transport.close()
                return
        elif (
            cycle is not None
            and cycle.more_body
            and not this.flow.read_paused
            and now - self._progress > self.body_seconds
        ):
            if not cycle.response_started:
                this.transport.write(_answer(408, "Request Timeout", TIMED_OUT))
            this.transport.close()
            return
        self._watch = this.loop.call_later(self.tick, self._look)


class GuardedH11(SlowClientGuard, H11Protocol):
    pass


try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class GuardedHttpTools(SlowClientGuard, HttpToolsProtocol):
        pass

    PROTOCOL: type = GuardedHttpTools  # what uvicorn's "auto" would choose, guarded
except ImportError:  # pragma: no cover - httptools is part of uvicorn[standard]
    PROTOCOL = GuardedH11
