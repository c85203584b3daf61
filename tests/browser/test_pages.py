"""The flows in a real browser: Debian's Chromium driven by Playwright, never a downloaded one.

The service runs with uvicorn in a thread on a free port of the loopback, on a SQLite file.
Each test keeps a screenshot of every step in ``salidas/capturas/`` (the run's artefacts;
``salidas/`` is not versioned), and axe-core checks each of those steps;
``test_every_page`` keeps and checks every page of every role.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from sqlalchemy import Engine

from democratiza.storage.database import make_engine, migrate
from democratiza.web.app import create_app
from democratiza.web.security.auth import create_user
from tests.browser.checks import axe_violations
from tests.browser.conftest import CHROMIUM, SHOTS
from tests.test_web_support import (
    CHEAP,
    CODE,
    PASSWORD,
    SAMPLE,
    add_people,
    file_samples,
    open_offer,
    serving,
)

BATCHES = "oferta-lotes"
CREDICORP = "Credicorp Capital"

if not CHROMIUM.exists():
    pytest.skip(
        "no está /usr/bin/chromium (apt-get install chromium): se omiten las pruebas de navegador",
        allow_module_level=True,
    )

from playwright.sync_api import Browser, Page, expect  # noqa: E402

# One worker runs this file (make test, pytest-xdist): its database and server are built once.
pytestmark = pytest.mark.xdist_group("test_pages")


@pytest.fixture(scope="module")
def engine_on_disk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{tmp_path_factory.mktemp('web') / 'democratiza.db'}")
    migrate(engine)
    add_people(engine)
    with engine.begin() as conn:
        create_user(
            conn, "credicorp", "Credicorp", "comisionista", CREDICORP, PASSWORD, "pruebas", CHEAP
        )
    open_offer(engine)
    file_samples(engine)
    open_offer(engine, BATCHES)
    yield engine
    engine.dispose()


@pytest.fixture(scope="module")
def server(engine_on_disk: Engine) -> Iterator[str]:
    with serving(create_app(engine_on_disk)) as url:
        yield url


@pytest.fixture
def page(browser: Browser, server: str) -> Iterator[Page]:
    context = browser.new_context(base_url=server, locale="es-CO")
    yield context.new_page()
    context.close()


def shot(page: Page, name: str) -> None:
    """The step's screenshot, and the step fails if axe-core finds something wrong on it."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    problems = axe_violations(page, page.viewport_size["width"] if page.viewport_size else 0)
    assert not problems, "\n".join(f"{name}: {p}" for p in problems)


def log_in(page: Page, login: str) -> None:
    page.goto("/entrar")
    page.fill("input[name=login]", login)
    page.fill("input[name=clave]", PASSWORD)
    page.click("#entrar button")
    expect(page.locator("header")).to_contain_text("Salir")


def test_the_calculator_shows_every_limit_and_the_binding_one(page: Page) -> None:
    page.goto("/calculadora")
    shot(page, "01-calculadora")
    # The page starts on an open offer; a person may ask for a program instead.
    page.select_option("#eleccion select[name=oferta]", "")
    page.select_option("#eleccion select[name=programa]", "geb-2017")
    page.click("#eleccion button")
    expect(page.locator("#precio")).to_contain_text("el programa")
    page.select_option("select[name=categoria]", "trabajador_activo")
    page.fill("input[name=patrimonio_liquido]", "48.000.000")
    page.fill("input[name=ingresos_declaracion]", "60.000.000")
    page.click("#calculadora button")
    result = page.locator("#resultado")
    expect(result).to_contain_text("Puede comprar hasta 23.785 acciones.")
    expect(result).to_contain_text("Decreto 706/2017 art. 8.2.1")
    expect(result.locator("li")).to_have_count(3)
    shot(page, "02-calculadora-resultado")


def test_a_broker_uploads_a_batch_with_errors_and_sees_them(page: Page) -> None:
    log_in(page, "credicorp")
    shot(page, "03-comisionista")
    form = page.locator(f"form[action='/comisionista/ofertas/{BATCHES}/lotes']")
    form.locator("input[type=file]").set_input_files(
        str(SAMPLE / "lote-4-credicorp-capital-con-errores.csv")
    )
    form.locator("input[name=lote]").fill("L1")
    form.locator("button").click()
    expect(page.locator("#fallo")).to_contain_text("El lote tiene 3 errores; no se guardó nada.")
    rows = page.locator("#errores tr")
    expect(rows).to_have_count(4)
    expect(rows.nth(1)).to_contain_text("categoria")
    expect(rows.nth(2)).to_contain_text("patrimonio_liquido")
    expect(rows.nth(3)).to_contain_text("cantidad")
    shot(page, "04-lote-con-errores")
    page.goto("/comisionista")
    form = page.locator(f"form[action='/comisionista/ofertas/{BATCHES}/lotes']")
    form.locator("input[type=file]").set_input_files(str(SAMPLE / "lote-4-credicorp-capital.csv"))
    form.locator("input[name=lote]").fill("L1")
    form.locator("button").click()
    expect(page.locator("#hecho")).to_contain_text("750 aceptaciones radicadas")
    expect(page.locator("#filas tr")).to_have_count(201)  # the first 200 of 750, and the header
    expect(page.locator("#paginas")).to_contain_text("Página 1 de 4 (750 filas)")
    shot(page, "05-lote-recibido")


def test_the_office_closes_and_adjudicates_an_offer(page: Page) -> None:
    log_in(page, "oficina")
    page.goto(f"/oficina/ofertas/{CODE}")
    expect(page.locator("#estado")).to_contain_text("abierta")
    expect(page.locator("svg.grafica")).to_have_count(4)
    shot(page, "06-oficina-tablero")
    page.click("#boton-accion")
    expect(page.locator("#estado")).to_have_text("cerrada")
    expect(page.locator("#efecto")).to_contain_text("No se puede deshacer.")
    page.fill("#campo-fecha", "2018-03-01")  # the adjudication's business date, after the close
    page.check("#confirmo")
    page.click("#boton-accion")
    expect(page.locator("#hecho")).to_contain_text(f"Oferta '{CODE}' adjudicada.")
    shot(page, "07-adjudicacion")
    page.click(f"a[href='/oficina/ofertas/{CODE}']")
    expect(page.locator("#estado")).to_have_text("adjudicada")
    expect(page.locator("#registro")).to_contain_text("Huella de las entradas")
    shot(page, "08-oferta-adjudicada")


def test_an_auditor_verifies_the_log(page: Page) -> None:
    log_in(page, "auditor")
    expect(page.locator("#entradas tr").nth(1)).to_be_visible()
    shot(page, "09-auditoria")
    page.click("#verificar")
    expect(page.locator("#verificacion")).to_contain_text("La cadena de auditoría está íntegra")
    shot(page, "10-auditoria-verificada")
    expect(page.locator("#entradas")).to_contain_text("Lote de aceptaciones recibido")
    # The anchor shown is the one to keep; checked with it, the chain still reaches it.
    anchor = page.locator("#ancla").inner_text()
    page.fill("#verificar-ancla input[name=ancla]", anchor)
    page.click("#verificar-ancla button")
    expect(page).to_have_url(re.compile(r"/auditoria/verificacion\?ancla=\d+%3A[0-9a-f]{64}$"))
    expect(page.locator("#verificacion")).to_contain_text("La cadena de auditoría está íntegra")


def test_the_office_runs_a_segunda_fase_and_a_broker_files_orders(
    page: Page, engine_on_disk: Engine, browser: Browser, server: str, tmp_path: Path
) -> None:
    from democratiza.adjudication.record import adjudicate
    from democratiza.compliance.holdings import settle
    from democratiza.offers.lifecycle import advance, load_offer

    with engine_on_disk.begin() as conn:  # whatever the tests above left: adjudicated
        stored = load_offer(conn, CODE)
        if stored.state == "abierta":
            advance(conn, stored, "cerrada", "oficina", "cierre")
    with engine_on_disk.connect() as conn:
        if load_offer(conn, CODE).state == "cerrada":
            adjudicate(engine_on_disk, CODE, "bolsa", "adjudicación", date(2018, 3, 1))
    settle(engine_on_disk, CODE, date(2018, 3, 20), "oficina")  # nothing paid: all return
    log_in(page, "oficina")
    page.goto("/oficina/etapas")
    form = page.locator("#nueva-etapa")
    form.locator("input[name=codigo]").fill("segunda")
    form.locator("select[name=oferta]").select_option(CODE)
    for name, value in [
        ("fecha_aviso", "2018-04-02"),
        ("fecha_apertura", "2018-04-03"),
        ("fecha_cierre", "2018-04-16"),
        ("orden_minima", "1000"),
        ("lote", "100"),
        ("fuente", "aviso de prueba"),
    ]:
        form.locator(f"input[name={name}]").fill(value)
    form.locator("button").click()
    expect(page.locator("h1")).to_contain_text("Segunda Fase: segunda")
    expect(page.locator("#cifras")).to_contain_text("40.000.000")
    page.locator("#accion-etapa button").click()
    expect(page.locator("#estado")).to_have_text("abierta (recibe órdenes)")
    shot(page, "11-segunda-fase")

    broker = browser.new_context(base_url=server, locale="es-CO")
    broker_page = broker.new_page()
    log_in(broker_page, "comisionista_a")
    broker_page.goto("/comisionista/etapas/segunda")
    orders = tmp_path / "ordenes.csv"
    orders.write_text(
        "referencia,comisionista,fecha_ingreso,tipo_identificacion,numero_identificacion,nombre,"
        "tipo_persona,nacionalidad,capacidad_legal,precio,cantidad\n"
        "O-1,Casa de Bolsa,2018-04-05T10:00,NIT,900100,Inversora,juridica,colombiana,si,"
        "1100,5000\n"
        "O-2,Casa de Bolsa,2018-04-05T10:05,CC,1020,Ana,natural,colombiana,si,900,5000\n",
        encoding="utf-8",
    )
    upload = broker_page.locator("#subir-ordenes")
    upload.locator("input[type=file]").set_input_files(str(orders))
    upload.locator("input[name=lote]").fill("B1")
    upload.locator("button").click()
    rows = broker_page.locator("#ordenes tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(2)).to_contain_text("precio por debajo del precio mínimo")
    shot(broker_page, "12-ordenes-comisionista")
    broker.close()

    page.reload()
    page.locator("select[name=accion]").select_option("cerrar")
    page.locator("#accion-etapa button").click()
    expect(page.locator("#estado")).to_have_text("cerrada")
    page.locator("select[name=accion]").select_option("adjudicar")
    page.check("#campo-confirmo")
    page.locator("#accion-etapa button").click()
    expect(page.locator("#estado")).to_have_text("adjudicada")
    expect(page.locator("#registro-etapa")).to_contain_text("precio $ 1.000 por acción")
    curve = page.locator("svg[aria-label='Curva de demanda y punto de corte']")
    expect(curve).to_have_count(2)  # drawn for a wide screen and for a phone
    expect(curve.locator("visible=true")).to_have_count(1)
    shot(page, "13-segunda-fase-adjudicada")
