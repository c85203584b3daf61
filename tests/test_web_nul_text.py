"""A NUL character (U+0000) in any text a request sends is refused in Spanish (422), and
nothing is stored; one broker's NUL never fails another broker's acceptances filed at the
same moment (PostgreSQL refuses NUL in text, and single acceptances are stored in groups).
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.storage.schema import acceptances, audit_log, batches
from democratiza.web.app import create_app
from tests.test_web_support import (
    BROKER_A,
    BROKER_B,
    CODE,
    SAMPLE,
    add_people,
    bearer,
    count,
    csrf_of,
    log_in,
    open_offer,
)

NUL_TEXT = "El texto no puede contener el carácter nulo (U+0000)."


def rows() -> list[dict[str, str]]:
    with (SAMPLE / "lote-1-casa-de-bolsa.csv").open(encoding="utf-8") as fh:
        return [{k: v for k, v in row.items() if v} for row in csv.DictReader(fh)]


def snapshot(engine: Engine) -> tuple[int, int, int]:
    return count(engine, acceptances), count(engine, batches), count(engine, audit_log)


@pytest.fixture
def two_brokers(engine: Engine) -> Iterator[tuple[TestClient, TestClient]]:
    open_offer(engine)
    app = create_app(engine)
    with (
        TestClient(app, headers=bearer(engine, BROKER_A)) as a,
        TestClient(app, headers=bearer(engine, BROKER_B)) as b,
    ):
        yield a, b


def refused_field(answer: Any) -> str:
    assert answer.status_code == 422, answer.text
    body = answer.json()
    assert body["detalle"] == "La solicitud no es válida."
    assert [e["mensaje"] for e in body["errores"]] == [NUL_TEXT]
    field: str = body["errores"][0]["columna"]
    return field


def test_a_nul_in_any_text_of_a_request_is_refused_naming_its_field(
    engine: Engine, two_brokers: tuple[TestClient, TestClient]
) -> None:
    a, _ = two_brokers
    before = snapshot(engine)
    url = f"/api/ofertas/{CODE}/aceptaciones"
    row = rows()[0]
    assert refused_field(a.post(url, json={"lote": "x\u0000y", "aceptacion": row})) == "lote"
    bad_row = {**row, "nombre": "Ana\u0000"}
    assert refused_field(a.post(url, json={"aceptacion": bad_row})) == "aceptacion.nombre"
    motivo = {"motivo": "desistió\u0000"}
    assert refused_field(a.post(f"{url}/X-1/retiro", json=motivo)) == "motivo"
    assert refused_field(a.get(url, params={"despues_de": "a\u0000"})) == "despues_de"
    assert refused_field(a.get(f"/api/ofertas/{CODE}%00/lotes")) == "ruta"
    upload = a.post(
        f"/api/ofertas/{CODE}/lotes",
        files={"archivo": ("l.csv", (SAMPLE / "lote-1-casa-de-bolsa.csv").read_bytes())},
        data={"lote": "L\u00001"},
    )
    assert upload.status_code == 422 and upload.json()["errores"][0]["mensaje"] == NUL_TEXT
    assert snapshot(engine) == before
    # Six characters that only look like the escape are a text like any other.
    fine = a.post(url, json={"lote": "x\\u0000y", "aceptacion": row})
    assert fine.status_code == 201, fine.text


def test_one_brokers_nul_never_fails_another_brokers_acceptances_filed_with_it(
    engine: Engine, two_brokers: tuple[TestClient, TestClient]
) -> None:
    a, b = two_brokers
    url = f"/api/ofertas/{CODE}/aceptaciones"
    sample = rows()

    def post(n: int) -> int:
        if n % 2 == 0:
            body = {"lote": f"x\u0000{n}", "aceptacion": sample[n]}
            return int(a.post(url, json=body).status_code)
        body = {
            "lote": f"b-{n}",
            "aceptacion": {**sample[n], "referencia": f"B-{n}", "comisionista": BROKER_B},
        }
        return int(b.post(url, json=body).status_code)

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(post, range(14)))
    assert answers == [422, 201] * 7
    assert count(engine, batches) == 7 and count(engine, acceptances) == 7


def test_a_nul_in_a_multipart_forms_field_is_refused_too(engine: Engine) -> None:
    # A form sent as multipart is not searched at the door: its fields refuse NUL themselves.
    add_people(engine)
    office = TestClient(create_app(engine))
    csrf = log_in(office, "oficina")
    before = snapshot(engine)
    token = office.post(
        "/oficina/tokens",
        files={"comisionista": (None, "Casa\u0000"), "csrf": (None, csrf)},
    )
    assert token.status_code == 422 and NUL_TEXT in token.text
    anonymous = TestClient(create_app(engine))
    form = csrf_of(anonymous, "/entrar")
    login = anonymous.post(  # an anonymous multipart form sends its token beside the body
        "/entrar",
        files={"login": (None, "oficina\u0000"), "clave": (None, "x")},
        headers={"X-CSRF-Token": form},
    )
    assert login.status_code == 422 and NUL_TEXT in login.text
    assert snapshot(engine) == before
