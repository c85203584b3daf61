"""Which address a request comes from: the peer, or what a trusted proxy says it forwarded.

Why: the limits per address (``throttle``) and the lockout per account and address are
only as good as the address. Anyone can send ``X-Forwarded-For``; it is read only when the
peer is a proxy the configuration names (``DEMOCRATIZA_PROXIES`` or ``servir --proxy``),
and then from the right: each trusted proxy appends the address it saw, so the first
address from the right that is not a trusted proxy is the client. Anything further left
was written by the client itself and is ignored; but the first one that is not a trusted
proxy must be an address: anything else is refused (400), never taken as the address.

Behind a proxy that ends TLS the connection to the service is plain HTTP, so whether the
browser talks HTTPS (and the session and CSRF cookies must be ``Secure``) is what the
trusted proxy says in ``X-Forwarded-Proto``; ``DEMOCRATIZA_COOKIES_SEGURAS=1`` makes
them ``Secure`` always.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Iterable, Sequence

from starlette.requests import HTTPConnection

from democratiza.web.errors import WebError

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
PROXIES_VARIABLE = "DEMOCRATIZA_PROXIES"
SECURE_VARIABLE = "DEMOCRATIZA_COOKIES_SEGURAS"
UNKNOWN = "desconocida"
YES = ("1", "si", "sí", "true")


class BadForwarding(WebError, status=400):
    def __init__(self) -> None:
        super().__init__(
            "El encabezado X-Forwarded-For que trae el proxy no termina en una dirección IP: "
            "no se sabe desde dónde viene la solicitud. Revise la configuración del proxy."
        )


class ProxyError(ValueError):
    """A trusted proxy that is not an address or a network (the message is in Spanish)."""


def trusted_networks(entries: Iterable[str]) -> tuple[Network, ...]:
    """Addresses or networks (``10.0.0.5``, ``10.1.0.0/16``); a bad one is refused."""
    found = []
    for entry in (e.strip() for e in entries):
        if not entry:
            continue
        try:
            found.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            raise ProxyError(
                f"'{entry}' no es una dirección IP ni una red (p. ej. 10.0.0.5 o 10.1.0.0/16)."
            ) from None
    return tuple(found)


def proxies_from_environment() -> tuple[Network, ...]:
    return trusted_networks(os.environ.get(PROXIES_VARIABLE, "").split(","))


def secure_cookies_from_environment() -> bool:
    """Whether ``DEMOCRATIZA_COOKIES_SEGURAS`` forces ``Secure`` cookies (1, si, true)."""
    return os.environ.get(SECURE_VARIABLE, "").strip().lower() in YES


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _is_trusted(address: str, trusted: Sequence[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in trusted)


def client_address(connection: HTTPConnection, trusted: Sequence[Network]) -> str:
    """The request's client address, reading ``X-Forwarded-For`` only from trusted proxies."""
    peer = connection.client.host if connection.client else UNKNOWN
    if not trusted or not _is_trusted(peer, trusted):
        return peer
    forwarded = ",".join(connection.headers.getlist("x-forwarded-for"))
    hops = [h.strip() for h in forwarded.split(",") if h.strip()]
    for hop in reversed(hops):
        if not _is_trusted(hop, trusted):
            if not _is_address(hop):
                raise BadForwarding()
            return hop
    return hops[0] if hops else peer


def is_https(connection: HTTPConnection, trusted: Sequence[Network], forced: bool) -> bool:
    """Whether the browser reached the service over HTTPS: ``forced``, the connection's own
    scheme, or ``X-Forwarded-Proto: https`` from a trusted proxy (its last value: the one
    the nearest proxy wrote). Anyone else's ``X-Forwarded-Proto`` is not read."""
    if forced or connection.url.scheme == "https":
        return True
    peer = connection.client.host if connection.client else UNKNOWN
    if not trusted or not _is_trusted(peer, trusted):
        return False
    said = ",".join(connection.headers.getlist("x-forwarded-proto"))
    values = [v.strip().lower() for v in said.split(",") if v.strip()]
    return bool(values) and values[-1] == "https"
