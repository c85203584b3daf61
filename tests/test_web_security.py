"""Doors an attacker tries: bodies past their limit, and uploads sent with no credentials.

Each limit holds whatever the framing: a chunked body declares no length, so the service
counts the bytes as it reads them and answers 413 at the limit, without reading the rest.
The raw-socket tests send a body and never finish it: an answer means the service stopped
reading on its own.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.storage.database import make_engine, migrate
from democratiza.storage.schema import batches
from democratiza.web.app import create_app
from tests.test_web_support import BROKER_A, CODE, bearer, count, open_offer, serving

MIB = 1024 * 1024
BOUNDARY = "limite-de-prueba"


@pytest.fixture
def lite(tmp_path: Path) -> Iterator[Engine]:
    """One database is enough here: the limits are the web's, not the storage's."""
    engine = make_engine(f"sqlite:///{tmp_path / 'seguridad.db'}")
    migrate(engine)
    yield engine
    engine.dispose()


def chunked(blocks: Iterable[bytes]) -> Iterator[bytes]:
    for block in blocks:
        yield b"%x\r\n%s\r\n" % (len(block), block)


def unfinished(url: str, head: str, blocks: Iterable[bytes]) -> bytes:
    """Send the head and the body's blocks, never the last chunk; the answer's first bytes."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=15) as conn:
        conn.sendall(head.encode())
        try:
            for piece in chunked(blocks):
                conn.sendall(piece)
        except OSError:  # the service answered and closed while we were still sending
            pass
        return conn.recv(4096)


def head(path: str, content_type: str, extra: str = "") -> str:
    return (
        f"POST {path} HTTP/1.1\r\nHost: prueba\r\nContent-Type: {content_type}\r\n"
        f"Transfer-Encoding: chunked\r\n{extra}\r\n"
    )


def multipart_start(name: str = "lote.csv") -> bytes:
    return (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="lote"\r\n\r\nL1\r\n'
        f"--{BOUNDARY}\r\nContent-Disposition: form-data; "
        f'name="archivo"; filename="{name}"\r\nContent-Type: text/csv\r\n\r\n'
    ).encode()


def test_a_chunked_body_past_one_mebibyte_is_cut_at_the_limit(lite: Engine) -> None:
    client = TestClient(create_app(lite))
    blocks = (b" " * 65536 for _ in range(40))  # 2,5 MiB of JSON whitespace, no length
    answer = client.post(
        "/api/calculadora", content=blocks, headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 413
    assert answer.json()["detalle"] == "La solicitud pasa del límite de 1 MiB."
    assert "content-length" not in answer.request.headers


def test_the_service_answers_413_without_waiting_for_the_rest_of_a_chunked_body(
    lite: Engine,
) -> None:
    with serving(create_app(lite)) as url:
        first = unfinished(
            url,
            head("/api/calculadora", "application/json"),
            (b" " * 65536 for _ in range(24)),  # 1,5 MiB, and the body never ends
        )
    assert first.startswith(b"HTTP/1.1 413")
    assert "límite de 1 MiB".encode() in first


def test_an_upload_without_credentials_gets_401_before_its_body_is_read(lite: Engine) -> None:
    open_offer(lite)
    with serving(create_app(lite)) as url:
        first = unfinished(
            url,
            head(f"/api/ofertas/{CODE}/lotes", f"multipart/form-data; boundary={BOUNDARY}"),
            [multipart_start(), b"x" * 65536],  # the body goes on; nobody reads it
        )
    assert first.startswith(b"HTTP/1.1 401")
    assert count(lite, batches) == 0


def test_a_broker_upload_sent_chunked_stops_at_the_upload_limit(lite: Engine) -> None:
    open_offer(lite)
    client = TestClient(create_app(lite, max_upload=200_000), headers=bearer(lite, BROKER_A))
    rows = (b"A-%d,CC,%d\n" % (i, i) for i in range(40_000))  # about 500 kB
    answer = client.post(
        f"/api/ofertas/{CODE}/lotes",
        content=iter([multipart_start(), *rows, f"\r\n--{BOUNDARY}--\r\n".encode()]),
        headers={"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"},
    )
    assert answer.status_code == 413
    assert answer.json()["detalle"].startswith("La solicitud pasa del límite de")
    assert count(lite, batches) == 0


def test_the_api_page_is_this_sites_own_and_loads_nothing_from_elsewhere(lite: Engine) -> None:
    docs = TestClient(create_app(lite)).get("/api/docs")
    assert docs.status_code == 200
    assert "<script" not in docs.text and "swagger" not in docs.text.lower()
    assert "<code>/api/ofertas/{codigo}/lotes</code>" in docs.text
    assert docs.headers["content-security-policy"].startswith("default-src 'self'")


def test_pages_and_files_are_not_stored_and_the_browser_is_held_in(lite: Engine) -> None:
    open_offer(lite)
    broker = TestClient(create_app(lite), headers=bearer(lite, BROKER_A))
    page = broker.get("/")
    personal = broker.get(f"/api/ofertas/{CODE}/aceptaciones.csv")
    data = broker.get("/api/ofertas")
    too_large = broker.post(
        "/api/calculadora", content=b" " * (MIB + 1), headers={"Content-Type": "application/json"}
    )
    for answer in (page, personal, data, too_large):
        assert answer.headers["cache-control"] == "no-store"
        assert "camera=()" in answer.headers["permissions-policy"]
    policy = page.headers["content-security-policy"]
    assert "form-action 'self'" in policy and "base-uri 'self'" in policy
    style = broker.get("/estaticos/estilo.css")
    assert style.status_code == 200 and "cache-control" not in style.headers  # no one's data


@pytest.mark.parametrize(
    "path",
    [
        f"/api/ofertas/{CODE}/lotes",
        f"/api/ofertas/{CODE}/pagos/lotes",
        "/api/etapas/segunda/pagos/lotes",
        "/oficina/etapas/segunda/pagos/lotes",  # the stage page's payment file
    ],
)
def test_every_file_upload_takes_files_past_one_mebibyte(lite: Engine, path: str) -> None:
    """A payment file of a large offer is tens of MiB: every route that takes a file gets
    the upload limit, not the 1 MiB of a form (past it, here, only the credentials fail)."""
    client = TestClient(create_app(lite))
    body = b"x" * (2 * MIB)
    answer = client.post(
        path,
        content=body,
        headers={"content-type": f"multipart/form-data; boundary={BOUNDARY}"},
        follow_redirects=False,
    )
    assert answer.status_code != 413
