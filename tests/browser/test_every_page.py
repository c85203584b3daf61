"""Every page, as every role sees it, at 1280 and at 375 px: a screenshot of each, and the page
fails if it is wider than the screen, shows an identifier where its word belongs, shows a
chart cut, drawn for another width or (on a phone) with letters under 11 px, or axe-core
finds something wrong with it (``tests.browser.checks``).

The data are one Primera Etapa adjudicated, published and settled with its Segunda Fase open
and a broker's orders in it, an offer open with its batches, and a broker's batch filed from
the page (its result) and another refused (its errors). Each role's pages are visited in one
browser context per width; the screenshots go to ``salidas/capturas/paginas/<ancho>/``. An
identifier "where its word belongs" is one of ``tests.identifiers`` (the vocabulary's codes,
the programs' ids, an audit action) in the text a person reads; what a person must type or
keep (a radicado, a hash, a category's code for the file) is shown in ``<code>`` and is not
read as text.
"""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import partial
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.adjudication.record import adjudicate, publish, stored_adjudication
from democratiza.compliance.credit.gate import register_line
from democratiza.compliance.credit.lines import CreditLine
from democratiza.compliance.holdings import settle
from democratiza.filing.batches import import_batch
from democratiza.offers.lifecycle import create_offer
from democratiza.stages.allocate import allocate_stage, current_orders
from democratiza.stages.lifecycle import advance_stage, create_stage, load_stage
from democratiza.stages.orders import import_orders
from democratiza.stages.terms import StageTerms
from democratiza.storage.database import make_engine, migrate
from democratiza.web.api import views
from democratiza.web.app import create_app
from democratiza.web.pages import broker as broker_pages
from tests.browser.checks import CHARTS, SHRUNK, axe_violations, chart_problems
from tests.browser.conftest import CHROMIUM, SHOTS
from tests.identifiers import internal_words, leaks
from tests.test_web_support import (
    BROKER_A,
    BROKER_B,
    CODE,
    PARAMS,
    PASSWORD,
    SAMPLE,
    add_people,
    csrf_of,
    file_samples,
    log_in,
    move,
    open_offer,
    serving,
)

if not CHROMIUM.exists():
    pytest.skip(
        "no está /usr/bin/chromium: se omiten las pruebas de navegador", allow_module_level=True
    )

from playwright.sync_api import Browser, Page

# One worker runs this file (make test, pytest-xdist): every page's world is built once,
# and its screenshots' folder emptied once (never under another worker's screenshots).
pytestmark = pytest.mark.xdist_group("test_every_page")

OPEN = "oferta-abierta"
DRAFT = "oferta-borrador"
LINE_IN_A_GAP = CreditLine(
    "Banco Ejemplo",
    400_000_000_000,
    60,
    12,
    Decimal("0.2233"),
    date(2016, 6, 15),
    True,
    "precio_fijo",
)
STAGE = "segunda"
SOLD = "oferta-con-etapa"  # an offer whose Segunda Fase is allocated and published
SOLD_STAGE = "segunda-publicada"
PAGES = SHOTS / "paginas"
WIDTHS = (1280, 375)
TALLEST = 4000  # px of a page kept in its screenshot
SHORT_PAGE = 20  # rows on a page of rows (``world``)
ROLES = ("publico", "comisionista_a", "oficina", "auditor")
ORDERS = Path(__file__).parents[2] / "examples/segunda-etapa"
DESIGNS = Path(__file__).parents[2] / "examples/simulacion"
BATCH, BAD = "lote-1-casa-de-bolsa.csv", "lote-4-credicorp-capital-con-errores.csv"
# English that must never reach a person (pydantic's, starlette's, click's).
ENGLISH = re.compile(
    r"Input should|Field required|value is not|Not Found|Method Not Allowed|Internal Server|"
    r"Show this message|Unprocessable|Bad Request|Error: Missing"
)


@dataclass(frozen=True)
class Visit:
    """One page: its name in the screenshot, its address, and what to do on it first."""

    name: str
    path: str
    act: Callable[[Page], None] | None = None


def _calculate(page: Page) -> None:
    page.fill("input[name=patrimonio_liquido]", "48.000.000")
    page.fill("input[name=ingresos_declaracion]", "60.000.000")
    page.click("#calculadora button")


def _miscalculate(page: Page) -> None:
    page.fill("input[name=cantidad]", "1.000")
    page.fill("input[name=patrimonio_liquido]", "48.000.0")
    page.click("#calculadora button")


def _fine(page: Page) -> None:
    page.select_option("select[name=programa]", "geb-2017")
    for name, value in [
        ("fecha_referencia", "2018-04-02"),
        ("fecha_incumplimiento", "2019-01-15"),
        ("acciones", "10000"),
        ("hasta", "2019-02-20"),
        ("precio_adquisicion", "2.018"),
        ("contraprestacion", "2.500"),
    ]:
        page.fill(f"input[name={name}]", value)
    page.click("#multa button[value=pagina]")


def _fine_with_payment(page: Page) -> None:
    """The statement after a partial payment: the balance first, then the account."""
    _fine(page)
    page.fill("textarea[name=pagos]", "2019-02-01 5.000.000")
    page.click("#multa button[value=pagina]")
    page.wait_for_selector("#saldo-multa")


def _design(page: Page) -> None:
    page.check("#fuente-ejemplo")
    page.select_option("select[name=ejemplo]", "poblacion-geb")
    page.set_input_files("input[name=disenos]", str(DESIGNS / "disenos-geb.yaml"))
    page.click("#simular")
    page.wait_for_selector("#tabla-disenos")


def _design_file(batch: Path) -> Callable[[Page], None]:
    """A population of the office's own: its radio and its file chosen through their labels,
    as a person at any width does."""

    def act(page: Page) -> None:
        page.get_by_text("Un archivo propio").click()
        assert page.is_checked("#fuente-archivo")
        page.get_by_label("Archivo de la población").set_input_files(str(batch))
        page.set_input_files("input[name=disenos]", str(DESIGNS / "disenos-central.yaml"))
        page.click("#simular")
        page.wait_for_selector("#tabla-disenos, #errores")

    return act


def _verify(page: Page) -> None:
    """Upload the published offer's package, as downloaded from its statistics page."""
    package = page.request.get(f"/ofertas/{CODE}/paquete.zip").body()
    page.set_input_files(
        "input[name=paquete]",
        {"name": "paquete.zip", "mimeType": "application/zip", "buffer": package},
    )
    page.click("#verificar-enviar")
    page.wait_for_selector("#veredicto")


def _verify_not_a_zip(page: Page) -> None:
    page.set_input_files(
        "input[name=paquete]",
        {"name": "paquete.zip", "mimeType": "application/zip", "buffer": b"no es un ZIP"},
    )
    page.click("#verificar-enviar")
    page.wait_for_selector("#error-paquete")


@dataclass(frozen=True)
class World:
    url: str
    pages: dict[str, list[Visit]]


def _wait(client: TestClient, path: str) -> None:
    for _ in range(600):
        if 'id="avance"' not in client.get(path).text:
            return
        time.sleep(0.05)
    raise AssertionError(f"{path} no terminó")


def _upload(client: TestClient, offer: str, name: str, batch: str) -> str:
    answer = client.post(
        f"/comisionista/ofertas/{offer}/lotes",
        files={"archivo": (name, (SAMPLE / name).read_bytes())},
        data={"lote": batch, "csrf": csrf_of(client, "/comisionista")},
        follow_redirects=False,
    )
    job = str(answer.headers["location"])
    _wait(client, job)
    return job


def _build(engine: Engine) -> tuple[str, str, str]:
    """The data every page shows; the jobs' pages (batch filed, batch refused, adjudication)."""
    add_people(engine)
    open_offer(engine)
    file_samples(engine)
    move(engine, "cerrada")
    adjudicate(engine, CODE, "oficina", "adjudicación", date(2018, 3, 1))
    publish(engine, CODE, "oficina", "publicación de resultados")
    settle(engine, CODE, date(2018, 3, 20), "oficina")
    terms = StageTerms.model_validate(
        yaml.safe_load((ORDERS / "terminos.yaml").read_text(encoding="utf-8"))
    )
    with engine.begin() as conn:
        stage = create_stage(conn, STAGE, CODE, terms, "oficina", "aviso de la Segunda Fase")
        advance_stage(conn, stage, "abierta", "oficina", "apertura")
    import_orders(engine, STAGE, ORDERS / "ordenes-casa-de-bolsa.csv", BROKER_A, "CB-O1", "scb")
    open_offer(engine, SOLD)
    file_samples(engine, SOLD)
    move(engine, "cerrada", SOLD)
    adjudicate(engine, SOLD, "oficina", "adjudicación", date(2018, 3, 1))
    publish(engine, SOLD, "oficina", "publicación de resultados")
    settle(engine, SOLD, date(2018, 3, 20), "oficina")
    with engine.begin() as conn:
        stage = create_stage(conn, SOLD_STAGE, SOLD, terms, "oficina", "aviso de la Segunda Fase")
        advance_stage(conn, stage, "abierta", "oficina", "apertura")
    import_orders(
        engine, SOLD_STAGE, ORDERS / "ordenes-casa-de-bolsa.csv", BROKER_A, "CB-O1", "scb"
    )
    with engine.begin() as conn:
        advance_stage(conn, load_stage(conn, SOLD_STAGE), "cerrada", "oficina", "cierre")
    allocate_stage(engine, SOLD_STAGE, "oficina", "cierre del libro")
    with engine.begin() as conn:
        advance_stage(conn, load_stage(conn, SOLD_STAGE), "publicada", "oficina", "publicación")
    open_offer(engine, OPEN)
    import_batch(engine, OPEN, SAMPLE / "lote-2-acciones-y-valores.csv", BROKER_B, "L1", "ayv")
    open_offer(engine, "oferta-por-adjudicar")
    import_batch(
        engine,
        "oferta-por-adjudicar",
        SAMPLE / "lote-2-acciones-y-valores.csv",
        BROKER_B,
        "L1",
        "ayv",
    )
    move(engine, "cerrada", "oferta-por-adjudicar")
    # A draft whose credit line was granted where the shipped IBC points have no rate.
    with engine.begin() as conn:
        draft = create_offer(conn, DRAFT, "central-seguros-vida", PARAMS, "oficina", "aviso")
        register_line(conn, draft, LINE_IN_A_GAP, "oficina")
    app = create_app(engine)
    broker, office = TestClient(app), TestClient(app)
    log_in(broker, "comisionista_a")
    filed = _upload(broker, OPEN, "lote-1-casa-de-bolsa.csv", "L1")
    refused = _upload(broker, OPEN, "lote-4-credicorp-capital-con-errores.csv", "L2")
    log_in(office, "oficina")
    answer = office.post(
        "/oficina/ofertas/oferta-por-adjudicar/acciones",
        data={
            "accion": "adjudicar",
            "motivo": "cierre",
            "confirmo": "si",
            "csrf": csrf_of(office, "/oficina"),
        },
        follow_redirects=False,
    )
    adjudication = str(answer.headers["location"])
    _wait(office, adjudication)
    return filed, refused, adjudication


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    engine = make_engine(f"sqlite:///{tmp_path_factory.mktemp('paginas') / 'democratiza.db'}")
    migrate(engine)
    filed, refused, adjudication = _build(engine)
    results = stored_adjudication(engine, CODE).results
    person = results.filter(
        (results["adjudicada"] > 0) & (results["comisionista"] == BROKER_A)
    ).row(0, named=True)
    with engine.connect() as conn:
        assert load_stage(conn, STAGE).state == "abierta"

    with engine.connect() as conn:
        bought = current_orders(conn, load_stage(conn, SOLD_STAGE)).row(0, named=True)

    def lookup_order(page: Page) -> None:
        page.select_option("select[name=oferta]", SOLD_STAGE)
        page.fill("input[name=radicado]", bought["radicado"])
        page.select_option("select[name=tipo_identificacion]", bought["tipo_identificacion"])
        page.fill("input[name=numero_identificacion]", bought["numero_identificacion"])
        page.click("#consulta button")

    def lookup(page: Page) -> None:
        page.select_option("select[name=oferta]", CODE)
        page.fill("input[name=radicado]", person["radicado"])
        page.select_option("select[name=tipo_identificacion]", person["tipo_identificacion"])
        page.fill("input[name=numero_identificacion]", person["numero_identificacion"])
        page.click("#consulta button")

    public = [
        Visit("inicio", "/"),
        Visit("aviso", f"/ofertas/{CODE}"),
        Visit("calculadora", "/calculadora"),
        Visit("calculadora-resultado", "/calculadora?programa=geb-2017", _calculate),
        Visit("calculadora-oferta", f"/calculadora?oferta={OPEN}", _calculate),
        Visit("calculadora-errores", "/calculadora", _miscalculate),
        Visit("resultado", "/resultados"),
        Visit("resultado-consultado", "/resultados", lookup),
        Visit("resultado-orden-consultado", "/resultados", lookup_order),
        Visit("estadisticas", f"/ofertas/{CODE}/estadisticas"),
        Visit("aviso-etapa", f"/etapas/{STAGE}"),
        Visit("aviso-etapa-publicada", f"/etapas/{SOLD_STAGE}"),
        Visit("estadisticas-etapa", f"/etapas/{SOLD_STAGE}/estadisticas"),
        Visit("verificar", "/verificar"),
        Visit("verificar-coincide", "/verificar", _verify),
        Visit("verificar-no-es-zip", "/verificar", _verify_not_a_zip),
        Visit("no-existe", "/ofertas/no-existe"),
    ]
    office = [
        Visit("ofertas", "/oficina"),
        Visit("oferta-publicada", f"/oficina/ofertas/{CODE}"),
        Visit("oferta-abierta", f"/oficina/ofertas/{OPEN}"),
        Visit("aceptaciones", f"/ofertas/{OPEN}/aceptaciones"),
        Visit("etapas", "/oficina/etapas"),
        Visit("etapa", f"/oficina/etapas/{STAGE}"),
        Visit("multas", "/oficina/multas"),
        Visit("multa-calculada", "/oficina/multas", _fine),
        Visit("multa-con-pagos", "/oficina/multas", _fine_with_payment),
        Visit("oferta-linea-sin-tasa", f"/oficina/ofertas/{DRAFT}"),
        Visit("oferta-linea-corregir", f"/oficina/ofertas/{DRAFT}?corregir=1"),
        Visit("oferta-adjudicada-pagos", "/oficina/ofertas/oferta-por-adjudicar"),
        Visit("tokens", "/oficina/tokens"),
    ]
    pages = {
        "publico": [*public, Visit("entrar", "/entrar")],
        "comisionista_a": [
            Visit("mis-lotes", "/comisionista"),
            Visit("lote-recibido", filed),
            Visit("lote-recibido-rechazadas", f"{filed}?decision=rechazada"),
            Visit("lote-rechazado", refused),
            Visit("mis-aceptaciones", f"/ofertas/{OPEN}/aceptaciones"),
            Visit("mis-aceptaciones-lote", f"/ofertas/{OPEN}/aceptaciones?lote=L1"),
            Visit("etapa", f"/comisionista/etapas/{STAGE}"),
            Visit("etapa-asignada", f"/comisionista/etapas/{SOLD_STAGE}"),
            *public,
        ],
        "oficina": [
            *office,
            Visit("adjudicacion", adjudication),
            Visit("disenador", "/oficina/disenador"),
            Visit("disenador-comparacion", "/oficina/disenador", _design),
            Visit("disenador-archivo", "/oficina/disenador", _design_file(SAMPLE / BATCH)),
            Visit("disenador-archivo-rechazado", "/oficina/disenador", _design_file(SAMPLE / BAD)),
        ],
        "auditor": [
            Visit("auditoria", "/auditoria"),
            Visit("auditoria-verificada", "/auditoria/verificacion"),
            *office,
        ],
    }
    shutil.rmtree(PAGES, ignore_errors=True)
    with pytest.MonkeyPatch.context() as patch, serving(create_app(engine)) as url:
        # Pages of rows show 20 a time here instead of 200: the rows are one template's, and
        # axe reads every one of them (seconds for 200); 20 still make each page's table and
        # its link to the next page, as 200 do.
        patch.setattr(views, "PAGE", SHORT_PAGE)
        patch.setattr(views, "list_acceptances", partial(views.list_acceptances, limit=SHORT_PAGE))
        patch.setattr(broker_pages, "ROWS_PER_PAGE", SHORT_PAGE)
        yield World(url, pages)
    engine.dispose()


def shot(page: Page, path: Path, width: int) -> None:
    """The page from its top, whole up to ``TALLEST`` px: a long table's first screens say
    how it looks, and a screenshot of all 200 rows of one costs seconds."""
    tall = page.evaluate("document.documentElement.scrollHeight")
    clip = {"x": 0, "y": 0, "width": width, "height": min(tall, TALLEST)}
    page.screenshot(path=str(path), full_page=True, clip=clip)  # type: ignore[arg-type]


def problems_of(page: Page, width: int) -> list[str]:
    found = []
    wide = page.evaluate(
        "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
    )
    if wide > width:
        found.append(f"más ancha que la pantalla: {wide} px en {width} px")
    shown = page.evaluate(
        """() => { const copy = document.body.cloneNode(true);
        copy.querySelectorAll("code, script, style, title").forEach(e => e.remove());
        document.body.appendChild(copy); copy.style.position = "absolute";
        const text = copy.innerText; copy.remove(); return text; }"""
    )
    found += leaks(shown)
    found += internal_words(shown)
    found += axe_violations(page, width)
    for name, scale in page.evaluate(SHRUNK):
        found.append(f"gráfica «{name}» dibujada al {scale:.0%} de su tamaño: letras ilegibles")
    found += chart_problems(page.evaluate(CHARTS), width)
    for match in sorted({m.group(0) for m in ENGLISH.finditer(shown)}):
        found.append(f"inglés: {match!r}")
    return found


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("role", ROLES)
def test_every_page_fits_the_screen_and_reads_in_words(
    browser: Browser, world: World, role: str, width: int
) -> None:
    context = browser.new_context(
        base_url=world.url, locale="es-CO", viewport={"width": width, "height": 900}
    )
    page = context.new_page()
    try:
        if role != "publico":
            page.goto("/entrar")
            page.fill("input[name=login]", role)
            page.fill("input[name=clave]", PASSWORD)
            page.click("#entrar button")
            page.wait_for_url(re.compile(r"/(oficina|comisionista|auditoria)$"))
        folder = PAGES / str(width)
        folder.mkdir(parents=True, exist_ok=True)
        problems = []
        for n, visit in enumerate(world.pages[role], 1):
            page.goto(visit.path)
            if visit.act is not None:
                visit.act(page)
                page.wait_for_load_state()
            shot(page, folder / f"{role}-{n:02d}-{visit.name}.png", width)
            problems += [f"{visit.name} ({visit.path}): {p}" for p in problems_of(page, width)]
        assert not problems, "\n".join(problems)
    finally:
        context.close()
