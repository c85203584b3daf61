"""Bad input over HTTP gets a clear Spanish error and writes nothing (rows counted before/after)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI, UploadFile, params
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.storage.schema import acceptances, audit_log, batches
from democratiza.web.api.uploads import UPLOAD_ROUTES, save_upload
from democratiza.web.app import api_routes, create_app
from democratiza.web.errors import MAX_ITEMS, TooLarge
from tests.test_web_support import BROKER_A, CODE, SAMPLE, bearer, count, open_offer

LIMIT = 200_000
MIB = 1024 * 1024


@pytest.fixture
def broker(engine: Engine) -> Iterator[TestClient]:
    open_offer(engine)
    app = create_app(engine, max_upload=LIMIT)
    with TestClient(app, headers=bearer(engine, BROKER_A)) as client:
        yield client


def snapshot(engine: Engine) -> tuple[int, int, int]:
    return count(engine, acceptances), count(engine, batches), count(engine, audit_log)


def upload(client: TestClient, name: str, body: bytes, batch: str = "L1") -> dict[str, object]:
    answer = client.post(
        f"/api/ofertas/{CODE}/lotes", files={"archivo": (name, body)}, data={"lote": batch}
    )
    result: dict[str, object] = {"status": answer.status_code, **answer.json()}
    return result


def good_rows(n: int) -> list[str]:
    lines = (SAMPLE / "lote-1-casa-de-bolsa.csv").read_text(encoding="utf-8").splitlines()
    return lines[: n + 1]


def test_an_oversized_upload_is_refused_before_it_is_read(
    engine: Engine, broker: TestClient
) -> None:
    before = snapshot(engine)
    lines = good_rows(750)
    body = "\n".join(lines * 2).encode()
    assert len(body) > LIMIT
    answer = upload(broker, "grande.csv", body)
    assert answer["status"] == 413
    assert str(answer["detalle"]).startswith("La solicitud pasa del límite de")
    assert snapshot(engine) == before


def test_a_body_over_one_mebibyte_is_refused_on_any_other_route(
    engine: Engine, broker: TestClient
) -> None:
    before = snapshot(engine)
    answer = broker.post(
        f"/api/ofertas/{CODE}/aceptaciones",
        content=b"{" + b" " * (1024 * 1024) + b"}",
        headers={"Content-Type": "application/json"},
    )
    assert answer.status_code == 413 and answer.json()["detalle"].endswith("límite de 1 MiB.")
    assert answer.headers["x-frame-options"] == "DENY"
    assert snapshot(engine) == before


def test_every_answer_carries_the_protective_headers(broker: TestClient) -> None:
    page, data, docs = broker.get("/"), broker.get("/api/programas"), broker.get("/api/docs")
    for answer in (page, data, docs):
        assert answer.status_code == 200
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["x-frame-options"] == "DENY"
        assert answer.headers["referrer-policy"] == "same-origin"
    assert page.headers["content-security-policy"].startswith("default-src 'self'")
    assert "content-security-policy" not in data.headers  # JSON is not a page
    assert docs.headers["content-security-policy"] == page.headers["content-security-policy"]


def test_an_upload_streamed_past_the_limit_is_cut_and_removed(tmp_path: Path) -> None:
    upload_file = UploadFile(io.BytesIO(b"x" * 5_000), filename="lote.csv")
    with pytest.raises(TooLarge, match="pasa del límite"):
        save_upload(upload_file, limit=4_096)


def test_wrong_content_types_are_refused(engine: Engine, broker: TestClient) -> None:
    before = snapshot(engine)
    text = upload(broker, "lote.txt", b"referencia\nA-1\n")
    assert text["status"] == 415
    assert "envíe un archivo .csv, .xlsx o .json" in str(text["detalle"])
    plain = broker.post(
        f"/api/ofertas/{CODE}/aceptaciones",
        content=b'{"aceptacion": {}}',
        headers={"Content-Type": "text/plain"},
    )
    assert plain.status_code == 415 and "Content-Type: application/json" in plain.json()["detalle"]
    form = broker.post(f"/api/ofertas/{CODE}/lotes", json={"lote": "L1"})
    assert form.status_code == 415 and "multipart/form-data" in form.json()["detalle"]
    empty = broker.post(
        f"/api/ofertas/{CODE}/lotes", files={"otro": ("a.csv", b"x")}, data={"lote": "L1"}
    )
    assert empty.status_code == 422 and empty.json()["errores"][0] == {
        "archivo": None,
        "fila": None,
        "columna": "archivo",
        "mensaje": "falta este campo",
    }
    assert snapshot(engine) == before


def test_malformed_json_is_refused_in_spanish(engine: Engine, broker: TestClient) -> None:
    before = snapshot(engine)
    body = broker.post(
        f"/api/ofertas/{CODE}/aceptaciones",
        content=b'{"aceptacion": {"referencia": ',
        headers={"Content-Type": "application/json"},
    )
    assert body.status_code == 422
    assert body.json()["errores"][0]["mensaje"] == "el JSON está mal formado"
    as_file = upload(broker, "lote.json", b'[{"referencia": "A-1",')
    assert as_file["status"] == 422
    errors = as_file["errores"]
    assert isinstance(errors, list) and errors[0]["archivo"] == "lote.json"
    assert errors[0]["mensaje"].startswith("JSON mal formado")
    assert snapshot(engine) == before


def test_a_csv_with_ten_thousand_bad_rows_is_refused_whole(
    engine: Engine, broker: TestClient
) -> None:
    header, row = good_rows(1)
    bad = row.replace(",extrabajador,", ",marciano,")
    assert bad != row
    body = "\n".join([header, *[bad.replace("AC-0000001", f"X-{i}") for i in range(10_000)]])
    before = snapshot(engine)
    assert len(body) > LIMIT  # under the real limit, not under this fixture's small one
    broker = TestClient(create_app(engine), headers=dict(broker.headers))
    answer = upload(broker, "lote-malo.csv", body.encode())
    assert answer["status"] == 422
    assert answer["detalle"] == "El lote tiene 10.000 errores; no se guardó nada."
    assert answer["total_errores"] == 10_000
    errors = answer["errores"]
    assert isinstance(errors, list) and len(errors) == MAX_ITEMS
    assert errors[0] == {
        "archivo": "lote-malo.csv",
        "fila": 2,
        "columna": "categoria",
        "mensaje": errors[0]["mensaje"],
    }
    assert "marciano" in errors[0]["mensaje"]
    assert snapshot(engine) == before
    # The same content as JSON is just as clear (and the batch id is still free).
    fields = zip(header.split(","), bad.split(","), strict=True)
    rows = [{k: v for k, v in fields if v}] * 3
    as_json = upload(broker, "lote.json", json.dumps(rows).encode())
    assert as_json["status"] == 422 and as_json["total_errores"] == 6  # category and repeats
    listed = as_json["errores"]
    assert isinstance(listed, list)
    assert {(e["fila"], e["columna"]) for e in listed} == {
        (row, column) for row in (1, 2, 3) for column in ("categoria", "referencia")
    }
    assert snapshot(engine) == before


def test_the_upload_limit_belongs_to_the_routes_that_take_a_file(broker: TestClient) -> None:
    # Every route with a file parameter is named among the upload routes, and nothing else.
    app = broker.app
    assert isinstance(app, FastAPI)
    with_file = {
        r.name
        for r in api_routes(app)
        if any(isinstance(f.field_info, params.File) for f in r.dependant.body_params)
    }
    assert with_file == UPLOAD_ROUTES
    # A path that only looks like an upload's gets the 1 MiB of any other request.
    big = {"Content-Type": "application/json", "Content-Length": str(LIMIT)}
    for path in ("/api/nada/lotes", f"/api/ofertas/{CODE}/aceptaciones/X/lotes"):
        answer = broker.post(path, content=b"{" + b" " * (LIMIT - 2) + b"}", headers=big)
        assert answer.status_code == 404, path  # under 1 MiB: read, and no such route
        huge = broker.post(path, content=b" " * (MIB + 1), headers={"Content-Type": "text/csv"})
        assert huge.status_code == 413 and huge.json()["detalle"].endswith("límite de 1 MiB.")
    # The route that takes a file gets the upload limit (here LIMIT), by its name.
    over = broker.post(
        f"/api/ofertas/{CODE}/lotes", content=b" " * (MIB + 1), headers={"Content-Type": "x/y"}
    )
    assert over.status_code == 413
    assert over.json()["detalle"] == "La solicitud pasa del límite de 0 MiB."
