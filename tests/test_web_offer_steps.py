"""The office's page of an offer and the legal steps it takes there: the credit lines (Ley 226
art. 11 num. 3), registered there with every condition checked, so that the offer opens only
once they finance 10 % of the value of the shares offered ($ 4.000.000.000 of
$ 40.000.000.000); and an interruption with an adjusted price (art. 11 num. 2)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from html import unescape

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select

from democratiza.compliance.credit.lines import CreditError, CreditLine
from democratiza.offers.lifecycle import create_offer, load_offer
from democratiza.storage.schema import audit_log
from democratiza.web.app import create_app
from tests.test_first_stage_void import CAUSE, open_geb
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
def office(engine: Engine) -> Iterator[tuple[Engine, TestClient]]:
    """The office logged in, on an offer in draft, on SQLite and on PostgreSQL."""
    add_people(engine)
    with engine.begin() as conn:
        create_offer(conn, CODE, "central-seguros-vida", PARAMS, "oficina", "aviso")
    client = TestClient(create_app(engine))
    log_in(client, "oficina")
    yield engine, client


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


def field(page: str, form: str, name: str) -> tuple[str, str]:
    """A field of one of the page's forms: what it holds and the error under it ('' if none)."""
    value = re.search(rf'id="campo-{form}-{name}" name="{name}" [^>]*value="([^"]*)"', page)
    error = re.search(rf'<small class="campo-error" id="error-{form}-{name}">([^<]*)<', page)
    return (unescape(value.group(1)) if value else "", unescape(error.group(1)) if error else "")


def refused_line(client: TestClient, typed: dict[str, str]) -> str:
    """The page the line's form answers with, refused (422)."""
    answer = client.post(f"{PAGE}/lineas-credito", data={**typed, "csrf": csrf_of(client, PAGE)})
    assert answer.status_code == 422
    return str(answer.text)


def test_a_line_typed_wrong_is_refused_with_its_field(office: tuple[Engine, TestClient]) -> None:
    _, client = office
    typed = {**LINE, "plazo_meses": "cinco años", "tasa_ea": "veinte", "entidad": ""}
    page = refused_line(client, typed)
    assert field(page, "linea", "plazo_meses") == (
        "cinco años",
        "escriba un número entero de meses",
    )
    assert field(page, "linea", "tasa_ea") == (
        "veinte",
        "'veinte' no es un porcentaje (p. ej. 18.5 o 18,5)",
    )
    assert field(page, "linea", "entidad")[1] == "falta el nombre de la entidad otorgante"
    # What was right stays as it was typed, for the clerk to fix only the rest.
    assert field(page, "linea", "monto_disponible") == ("3.600.000.000", "")
    assert field(page, "linea", "fecha_otorgamiento") == ("2017-06-15", "")
    assert "Aún no hay líneas de crédito registradas" in section(client.get(PAGE).text)


def test_a_line_the_domain_refuses_shows_its_words_under_each_field(
    office: tuple[Engine, TestClient],
) -> None:
    """Worked example: nothing available and a grace of 60 months in a term of 60. The form
    reads both, and ``CreditLine``'s own checks refuse them: each of its sentences under its
    field, the same words the command line gets, and everything typed kept."""
    _, client = office
    typed = {**LINE, "monto_disponible": "0", "gracia_meses": "60"}
    page = refused_line(client, typed)
    assert field(page, "linea", "monto_disponible") == (
        "0",
        "el monto disponible debe ser positivo",
    )
    assert field(page, "linea", "gracia_meses") == (
        "60",
        "la gracia (60 meses) no deja meses para amortizar dentro del plazo (60 meses)",
    )
    assert field(page, "linea", "plazo_meses") == ("60", "")
    assert field(page, "linea", "entidad") == ("Banco Ejemplo", "")
    with pytest.raises(CreditError) as refused:
        CreditLine(
            "Banco Ejemplo", 0, 60, 60, Decimal("0.2233"), date(2017, 6, 15), True, "precio_fijo"
        )
    assert str(refused.value) == (
        "Línea de crédito de Banco Ejemplo: el monto disponible debe ser positivo; la gracia "
        "(60 meses) no deja meses para amortizar dentro del plazo (60 meses)"
    )


# 2016-06-15 falls in a stretch the shipped interés bancario corriente does not cover.
IN_A_GAP = {**LINE, "fecha_otorgamiento": "2016-06-15", "monto_disponible": "4.000.000.000"}
SOURCE = "Superintendencia Financiera (certificación)"
SERIES = (
    "desde,hasta,tasa_ea,fuente\n"
    f"2016-01-01,2016-03-31,19.68,{SOURCE}\n"
    f"2016-04-01,2016-06-30,20.54,{SOURCE}\n"
    f"2016-07-01,2016-09-30,21.34,{SOURCE}\n"
)


def test_a_line_whose_date_has_no_rate_stays_listed_and_can_be_corrected(
    office: tuple[Engine, TestClient],
) -> None:
    """A line granted where the series has no rate no longer hides the lines and the form:
    the page says what to do (load the series here, or with the command line), and the line
    can be corrected; the corrected line is checked."""
    _, client = office
    assert post(client, f"{PAGE}/lineas-credito", IN_A_GAP) == 303
    page = client.get(PAGE).text
    shown = section(page)
    assert (
        "Falta el interés bancario corriente del periodo 2016-T2 (2016-04-01 a 2016-06-30)" in shown
    )
    assert "democratiza credito serie-ibc ARCHIVO.csv" in shown and "--serie-ibc" in shown
    assert "Banco Ejemplo $ 4.000.000.000 60 meses 12 meses 22,33 % EA 2016-06-15" in shown
    assert 'id="registrar-linea"' in page and 'id="serie-ibc"' in page

    correction = client.get(f"{PAGE}?corregir=1").text
    assert field(correction, "linea", "fecha_otorgamiento") == ("2016-06-15", "")
    assert field(correction, "linea", "monto_disponible") == ("4.000.000.000", "")
    assert field(correction, "linea", "tasa_ea") == ("22,33", "")
    assert (
        post(client, f"{PAGE}/lineas-credito/1", {**IN_A_GAP, "fecha_otorgamiento": "2017-06-15"})
        == 303
    )
    shown = section(client.get(PAGE).text)
    assert "Falta el interés" not in shown
    assert "Banco Ejemplo $ 4.000.000.000 60 meses 12 meses 22,33 % EA 2017-06-15" in shown
    assert "Las líneas de crédito permiten abrir la oferta." in shown


def test_the_office_loads_the_official_series_from_the_page(
    office: tuple[Engine, TestClient],
) -> None:
    """The series is refused with its row while it has a gap, then loaded; from then on the
    line granted in the shipped points' gap is checked against it (22,33 % > 20,54 %)."""
    _, client = office
    assert post(client, f"{PAGE}/lineas-credito", IN_A_GAP) == 303
    with_gap = SERIES.replace(f"2016-04-01,2016-06-30,20.54,{SOURCE}\n", "")
    refused = client.post(
        f"{PAGE}/serie-ibc",
        data={"csrf": csrf_of(client, PAGE)},
        files={"archivo": ("ibc.csv", with_gap.encode(), "text/csv")},
    )
    assert refused.status_code == 422
    assert field(refused.text, "serie", "archivo")[1] == (
        "ibc.csv, fila 3, columna 'desde': hueco después de la fila 2: falta el periodo "
        "2016-T2 (2016-04-01 a 2016-06-30)"
    )
    loaded = client.post(
        f"{PAGE}/serie-ibc",
        data={"csrf": csrf_of(client, PAGE)},
        files={"archivo": ("ibc.csv", SERIES.encode(), "text/csv")},
        follow_redirects=False,
    )
    assert loaded.status_code == 303
    shown = section(client.get(PAGE).text)
    assert "Serie oficial cargada: 3 periodos, del 2016-01-01 al 2016-09-30." in shown
    assert "Falta el interés" not in shown
    assert "22,33 % EA" in shown and "20,54 %" in shown
    assert "Las líneas de crédito aún no permiten abrir la oferta." in shown


def test_a_line_is_removed_with_its_reason_in_the_log(office: tuple[Engine, TestClient]) -> None:
    engine, client = office
    assert post(client, f"{PAGE}/lineas-credito", IN_A_GAP) == 303
    assert post(client, f"{PAGE}/lineas-credito/1/retiro", {"motivo": "fecha equivocada"}) == 303
    assert "Aún no hay líneas de crédito registradas" in section(client.get(PAGE).text)
    with engine.connect() as conn:
        entry = conn.execute(
            select(audit_log.c.antes, audit_log.c.despues).where(
                audit_log.c.accion == "credito.retirar"
            )
        ).one()
    assert '"fecha_otorgamiento":"2016-06-15"' in entry.antes
    assert entry.despues == '{"motivo":"fecha equivocada"}'
    assert post(client, f"{PAGE}/lineas-credito/1/retiro", {"motivo": "otra vez"}) == 409


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
        data={
            **interruption,
            "fundamento": "",
            "aceptaciones_anteriores": "",
            "precio_nuevo": "1.250,5x",
            "csrf": csrf_of(client, PAGE),
        },
    )
    assert missing.status_code == 422
    # Every problem under its own field, and what was typed still there.
    assert field(missing.text, "interrupcion", "fundamento") == (
        "",
        "cite el fundamento legal del ajuste (p. ej. Ley 226 de 1995 art. 11 num. 2)",
    )
    assert field(missing.text, "interrupcion", "precio_nuevo")[0] == "1.250,5x"
    assert field(missing.text, "interrupcion", "precio_nuevo")[1].startswith("Precio ajustado: ")
    assert field(missing.text, "interrupcion", "motivo") == ("interrupción anunciada", "")
    chosen = re.search(r'id="error-interrupcion-aceptaciones_anteriores">([^<]*)<', missing.text)
    assert chosen and "conservan su precio o se evalúan de nuevo" in unescape(chosen.group(1))
    assert "--fundamento" not in missing.text  # the command line's options stay there
    assert client.get(f"/api/ofertas/{CODE}").json()["precio_vigente"] == "$ 1.000"
    assert post(client, f"{PAGE}/interrupcion", interruption) == 303
    page = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", client.get(PAGE).text)))
    assert "$ 1.250 precio por acción ajustado desde el" in page
    assert client.get(f"/api/ofertas/{CODE}").json()["precio_vigente"] == "$ 1.250"
    with engine.connect() as conn:
        assert load_offer(conn, CODE).price_in_force == 125_000


def test_the_void_stage_asks_for_its_cause_and_its_confirmation(
    office: tuple[Engine, TestClient],
) -> None:
    """GEB art. 3.1: the Primera Etapa may be declared void, with its cause; refused, the form
    keeps the cause typed and says under the box that it must be ticked."""
    engine, client = office
    open_geb(engine)
    page = "/oficina/ofertas/geb"
    answer = client.post(f"{page}/desierta", data={"motivo": CAUSE, "csrf": csrf_of(client, page)})
    assert answer.status_code == 422
    assert field(answer.text, "desierta", "motivo") == (CAUSE, "")
    assert 'id="error-desierta-confirmo">marque la casilla para confirmar<' in answer.text
    done = client.post(
        f"{page}/desierta",
        data={"motivo": CAUSE, "confirmo": "si", "csrf": csrf_of(client, page)},
        follow_redirects=False,
    )
    assert done.status_code == 303
    with engine.connect() as conn:
        assert load_offer(conn, "geb").state == "desierta"


def test_the_api_lists_a_line_it_cannot_check_with_what_to_do(
    office: tuple[Engine, TestClient],
) -> None:
    _, client = office
    assert post(client, f"{PAGE}/lineas-credito", IN_A_GAP) == 303
    answer = client.get(f"/api/ofertas/{CODE}/lineas-credito")
    assert answer.status_code == 200, answer.text
    found = answer.json()
    assert [line["fecha_otorgamiento"] for line in found["lineas"]] == ["2016-06-15"]
    assert found["permite_abrir"] is False and found["condiciones"] == []
    assert "democratiza credito serie-ibc ARCHIVO.csv" in found["motivo"]
