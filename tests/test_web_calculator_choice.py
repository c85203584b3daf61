"""The public calculator as a person first meets it: it starts on what can answer (an open
offer, else a program whose decree fixes every figure), lists only that program's categories
and the offers still open, and says what the shares cost.

Worked example: Central's open offer at $ 1.000; a worker with $ 60.000.000 of certified
income may buy 5 × $ 60.000.000 / $ 1.000 = 300.000 shares (A.2(ii)), under the cap of
367.800 (A.2(iii)); 300.000 shares at $ 1.000 cost $ 300.000.000.
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, event

from democratiza.offers.lifecycle import create_offer
from democratiza.web.app import create_app
from tests.test_web_pages import field_error, text
from tests.test_web_support import CODE, PARAMS, add_people, csrf_of, move, open_offer

HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')


@pytest.fixture
def db(engine: Engine) -> Engine:
    """Each database (``engine``: SQLite and PostgreSQL) with the office's people."""
    add_people(engine)
    return engine


def form_of(page: str) -> dict[str, str]:
    """What the page's own calculator form sends as it comes: its hidden and filled fields."""
    found = {name: unescape(value) for name, value in HIDDEN.findall(page)}
    day = re.search(r'name="fecha" value="([^"]*)"', page)
    assert day, "el formulario no propone el día de radicación"
    return {**found, "fecha": day.group(1)}


def options(page: str, name: str) -> list[str]:
    select = re.search(rf'<select id="campo-{name}" name="{name}"[^>]*>(.*?)</select>', page, re.S)
    assert select, f"la página no tiene la lista {name}"
    return re.findall(r'<option value="([^"]*)"', select.group(1))


def test_the_calculator_starts_on_the_open_offer_and_its_own_categories(db: Engine) -> None:
    open_offer(db)
    open_offer(db, "cerrada-ya")
    move(db, "cerrada", "cerrada-ya")
    with db.begin() as conn:
        create_offer(conn, "en-borrador", "central-seguros-vida", PARAMS, "oficina", "aviso")
    client = TestClient(create_app(db))
    page = client.get("/calculadora").text
    assert options(page, "oferta") == ["", CODE]  # neither the closed one nor the draft
    # Central has no cajas de compensación: the list is the program's, not the family's.
    assert "caja_compensacion" not in options(page, "categoria")
    assert options(page, "categoria")[:3] == ["trabajador_activo", "pensionado", "extrabajador"]
    assert "cada acción cuesta $ 1.000 , el precio vigente de la oferta" in text(page)
    form = form_of(page)
    assert form["oferta"] == CODE and form["fecha"] == "2018-02-26"  # within the window
    answer = client.post(
        "/calculadora",
        data={
            **form,
            "categoria": "trabajador_activo",
            "ingresos_certificado": "60.000.000",
            "csrf": csrf_of(client, "/calculadora"),
        },
    )
    assert answer.status_code == 200
    shown = text(answer.text)
    assert "Puede comprar hasta 300.000 acciones." in shown
    assert "A $ 1.000 por acción, 300.000 acciones cuestan $ 300.000.000 ." in shown


def test_the_open_offers_are_named_without_loading_each_one(db: Engine) -> None:
    """Worked example: one open offer, then three. The list names each with its program,
    and the page asks the database as many times for three offers as for one: the names
    come in one query, and only the offer that answers is loaded."""
    client = TestClient(create_app(db))

    def asked(page: str) -> tuple[list[str], int]:
        statements: list[str] = []

        def note(*args: object) -> None:
            statements.append(str(args[2]))

        event.listen(db, "before_cursor_execute", note)
        try:
            shown = client.get(page).text
        finally:
            event.remove(db, "before_cursor_execute", note)
        return options(shown, "oferta"), len(statements)

    open_offer(db)
    client.get("/calculadora")  # the first page view sets up what every later one reuses
    listed, one = asked("/calculadora")
    assert listed == ["", CODE]
    open_offer(db, "otra-abierta")
    open_offer(db, "tercera-abierta")
    listed, three = asked("/calculadora")
    assert listed == ["", CODE, "otra-abierta", "tercera-abierta"]
    assert three == one
    page = client.get("/calculadora", params={"oferta": "otra-abierta"}).text
    assert form_of(page)["oferta"] == "otra-abierta"
    assert "otra-abierta (Programa de enajenación de acciones de Fogafín en la Compañía" in page


def test_without_an_open_offer_the_first_submit_answers_with_a_program(db: Engine) -> None:
    client = TestClient(create_app(db))
    page = client.get("/calculadora").text
    assert 'id="campo-oferta"' not in page  # no open offer to choose
    # Only the programs whose decree fixes the price and every figure a limit needs.
    assert options(page, "programa") == ["coltel-2018", "geb-2017"]
    data = {**form_of(page), "categoria": "trabajador_activo"}
    data["csrf"] = csrf_of(client, "/calculadora")
    data |= {"patrimonio_liquido": "48.000.000", "ingresos_declaracion": "60.000.000"}
    answer = client.post("/calculadora", data=data)
    assert answer.status_code == 200, field_error(answer.text, "programa")
    assert "Puede comprar hasta" in text(answer.text)
    assert "Falta el parámetro" not in answer.text


def test_choosing_a_program_lists_its_categories_and_its_price(db: Engine) -> None:
    client = TestClient(create_app(db))
    page = client.get("/calculadora", params={"programa": "geb-2017"}).text
    assert form_of(page)["programa"] == "geb-2017"
    assert "caja_compensacion" in options(page, "categoria")  # GEB's art. 3 lists them
    assert "cada acción cuesta $ 2.018 ." in text(page)


def test_a_category_of_another_program_is_refused_under_its_field(db: Engine) -> None:
    open_offer(db)
    client = TestClient(create_app(db))
    data = {
        "oferta": CODE,
        "categoria": "caja_compensacion",
        "fecha": "2018-02-26",
        "csrf": csrf_of(client, "/calculadora"),
    }
    answer = client.post("/calculadora", data=data)
    assert answer.status_code == 422
    assert field_error(answer.text, "categoria").startswith(
        "«Caja de compensación familiar» no es una categoría de Programa de enajenación"
    )
