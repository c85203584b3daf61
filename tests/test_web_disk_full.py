"""A full temporary disk on the server is the server's fault: 507 in Spanish, never a 400
"Solicitud mal formada" that blames the client (FastAPI turns any failure while reading a
form into a 400), nor a 500, and nothing is stored."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.storage.database import make_engine, migrate
from democratiza.storage.schema import batches
from democratiza.web.app import create_app
from democratiza.web.errors import NO_SPACE
from tests.test_web_support import BROKER_A, CODE, SAMPLE, bearer, csrf_of, open_offer
from tests.test_web_support import count as rows_in


@pytest.fixture
def full_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Engine:
    engine = make_engine(f"sqlite:///{tmp_path / 'lleno.db'}")
    migrate(engine)
    open_offer(engine)

    async def no_space(self: object, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("starlette.datastructures.UploadFile.write", no_space)
    return engine


def test_a_batch_upload_on_a_full_disk_gets_507_and_nothing_is_stored(full_disk: Engine) -> None:
    client = TestClient(create_app(full_disk), headers=bearer(full_disk, BROKER_A))
    batch = (SAMPLE / "lote-1-casa-de-bolsa.csv").read_bytes()
    answer = client.post(
        f"/api/ofertas/{CODE}/lotes", files={"archivo": ("lote.csv", batch)}, data={"lote": "B1"}
    )
    assert answer.status_code == 507
    assert answer.json()["detalle"] == NO_SPACE
    assert rows_in(full_disk, batches) == 0


def test_a_package_sent_to_the_verifier_on_a_full_disk_gets_a_507_page(full_disk: Engine) -> None:
    client = TestClient(create_app(full_disk), raise_server_exceptions=False)
    token = csrf_of(client, "/verificar")
    answer = client.post(
        "/verificar", params={"csrf": token}, files={"paquete": ("paquete.zip", b"x" * 10)}
    )
    assert answer.status_code == 507
    assert "sin espacio en disco" in answer.text and "mal formada" not in answer.text
