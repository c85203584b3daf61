"""The office's page of an offer and the legal steps it takes there: the credit lines (Ley 226
art. 11 num. 3), registered there with every condition checked, so that the offer opens only
once they finance 10 % of the value of the shares offered ($ 4.000.000.000 of
$ 40.000.000.000); and an interruption with an adjusted price (art. 11 num. 2)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.offers.lifecycle import create_offer, load_offer
from democratiza.storage.database import make_engine, migrate
from democratiza.web.app import create_app
from tests.test_web_support import CODE, PARAMS, add_people, csrf_of, log_in

PAGE = f"/oficina/ofertas/{CODE}"
LINE = {
    "entidad": "Banco Ejemplo",
    "monto_disponible": "3.600.000.000",
    "plazo_meses": "60",
    "gracia_meses": "12",
    "tasa_ea": "22,33",
    "fecha_otorgamiento": "2017-06-15",
    "garantia": "precio_fijo",
    "capitalizar_gracia": "si",
}


@pytest.fixture
def office(tmp_path: Path) -> Iterator[tuple[Engine, TestClient]]:
    engine = make_engine(f"sqlite:///{tmp_path / 'democratiza.db'}")
    migrate(engine)
    add_people(engine)
    with engine.begin() as conn:
        create_offer(conn, CODE, "central-seguros-vida", PARAMS, "oficina", "aviso")
    client = TestClient(create_app(engine))
    log_in(client, "oficina")
    yield engine, client
    engine.dispose()


def section(page: str) -> str:
    """What the clerk reads in the credit-lines section: no tags, spaces collapsed."""
    found = re.search(r'<section class="tarjeta" id="lineas-credito">(.*?)</section>', page, re.S)
    assert found, "la página no trae la sección de líneas de crédito"
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", found.group(1))))


def post(client: TestClient, path: str, data: dict[str, str]) -> int:
    answer = client.post(path, data={**data, "csrf": csrf_of(client, PAGE)}, follow_redirects=False)
    return int(answer.status_code)


def test_the_offer_opens_from_its_page_once_two_lines_sum_ten_percent(
    office: tuple[Engine, TestClient],
) -> None:
    engine, client = office
    assert "Aún no hay líneas de crédito registradas" in section(client.get(PAGE).text)

    assert post(client, f"{PAGE}/lineas-credito", LINE) == 303
    shown = section(client.get(PAGE).text)
    assert "Banco Ejemplo $ 3.600.000.000 60 meses 12 meses 22,33 % EA 2017-06-15" in shown
    assert (
        "✗ líneas en su conjunto — Ley 226/1995 art. 11 num. 3: no cumple. Financiación "
        "disponible de las líneas que cumplen (Banco Ejemplo) $ 3.600.000.000 < 10 %" in shown
    )
    assert "Las líneas de crédito aún no permiten abrir la oferta." in shown
    refused = client.post(
        f"{PAGE}/acciones",
        data={"accion": "abrir", "motivo": "inicio", "csrf": csrf_of(client, PAGE)},
    )
    assert refused.status_code == 409 and "no puede abrirse" in unescape(refused.text)

    second = {**LINE, "entidad": "Cooperativa Ejemplo", "monto_disponible": "400.000.000"}
    assert post(client, f"{PAGE}/lineas-credito", second) == 303
    assert "Las líneas de crédito permiten abrir la oferta." in section(client.get(PAGE).text)
    assert post(client, f"{PAGE}/acciones", {"accion": "abrir", "motivo": "inicio"}) == 303
    with engine.connect() as conn:
        assert load_offer(conn, CODE).state == "abierta"


def test_a_line_typed_wrong_is_refused_with_its_field(office: tuple[Engine, TestClient]) -> None:
    _, client = office
    answer = client.post(
        f"{PAGE}/lineas-credito",
        data={**LINE, "plazo_meses": "cinco años", "csrf": csrf_of(client, PAGE)},
    )
    assert answer.status_code == 422
    assert "Plazo total: escriba un número entero de meses" in unescape(answer.text)
    assert "Aún no hay líneas de crédito registradas" in section(client.get(PAGE).text)


def test_the_office_interrupts_and_adjusts_the_price_from_the_offers_page(
    office: tuple[Engine, TestClient],
) -> None:
    engine, client = office
    whole = {**LINE, "monto_disponible": "4.000.000.000"}
    assert post(client, f"{PAGE}/lineas-credito", whole) == 303
    assert post(client, f"{PAGE}/acciones", {"accion": "abrir", "motivo": "inicio"}) == 303
    interruption = {
        "motivo": "interrupción anunciada",
        "precio_nuevo": "1.250",
        "fundamento": "Ley 226 art. 11 num. 2",
        "aceptaciones_anteriores": "conservan",
        "fundamento_anteriores": "se respondieron al precio del aviso",
    }
    missing = client.post(
        f"{PAGE}/interrupcion",
        data={**interruption, "fundamento": "", "csrf": csrf_of(client, PAGE)},
    )
    assert missing.status_code == 422 and "debe citar su fundamento legal" in missing.text
    assert post(client, f"{PAGE}/interrupcion", interruption) == 303
    page = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", client.get(PAGE).text)))
    assert "$ 1.250 precio por acción ajustado desde el" in page
    assert client.get(f"/api/ofertas/{CODE}").json()["precio_vigente"] == "$ 1.250"
    with engine.connect() as conn:
        assert load_offer(conn, CODE).price_in_force == 125_000
