"""The pages as a clerk, a broker and an acceptant read them: every error at once under its
field with what was typed kept, amounts as people write them, figures first, confirmation
before what cannot be undone, a batch's result by decision, and the public's own result."""

from __future__ import annotations

import csv
import io
import re
import time
from collections.abc import Iterator
from decimal import Decimal
from html import unescape
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select

from democratiza.adjudication.record import adjudicate, publish, stored_adjudication
from democratiza.labels import label
from democratiza.offers.lifecycle import load_offer
from democratiza.reports.adjudication_figures import build_figures, report_input
from democratiza.storage.database import make_engine, migrate
from democratiza.storage.schema import acceptances
from democratiza.verification.package import AWARDS
from democratiza.verification.publish import offer_package
from democratiza.web.app import create_app
from tests.test_web_support import (
    CODE,
    SAMPLE,
    add_people,
    csrf_of,
    file_samples,
    log_in,
    move,
    open_offer,
)


@pytest.fixture
def sqlite(tmp_path: Path) -> Iterator[Engine]:
    """The presentation does not depend on the database: these tests run on SQLite."""
    engine = make_engine(f"sqlite:///{tmp_path / 'democratiza.db'}")
    migrate(engine)
    add_people(engine)
    open_offer(engine)
    yield engine
    engine.dispose()


def text(page: str) -> str:
    """What a person reads of a page: no tags, no scripts, entities decoded, spaces collapsed."""
    shown = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", shown)))


def field_error(page: str, name: str) -> str:
    """The error written under a field of a form ('' if none)."""
    found = re.search(rf'<small class="campo-error" id="error-{name}">(.*?)</small>', page)
    return unescape(found.group(1)) if found else ""


def typed(page: str, name: str) -> str | None:
    found = re.search(rf'name="{name}"[^>]*? value="([^"]*)"', page)
    return unescape(found.group(1)) if found else None


def post(client: TestClient, path: str, data: dict[str, str], page: str | None = None) -> str:
    answer = client.post(path, data={**data, "csrf": csrf_of(client, page or path)})
    return str(answer.text)


def test_the_calculator_shows_every_error_at_once_under_its_field(sqlite: Engine) -> None:
    client = TestClient(create_app(sqlite))
    form = {
        "programa": "geb-2017",
        "categoria": "trabajador_activo",
        "cantidad": "1.00",
        "patrimonio_liquido": "48.000.0",
        "ingresos_declaracion": "-5",
        "meses_en_cargo": "muchos",
    }
    answer = client.post("/calculadora", data={**form, "csrf": csrf_of(client, "/calculadora")})
    assert answer.status_code == 422
    page = answer.text
    assert field_error(page, "cantidad") == (
        "'1.00' no es un número entero de acciones (se escribe 40000000 o 40.000.000)"
    )
    assert field_error(page, "patrimonio_liquido") == (
        "'48.000.0' no es un monto en pesos (se escribe 48000000, 2075.31, 48.000.000 o "
        "48.000.000,50)"
    )
    assert field_error(page, "ingresos_declaracion") == "el monto no puede ser negativo"
    assert field_error(page, "meses_en_cargo") == "se espera un número entero"
    # What was typed stays in the form, wrong or right.
    assert typed(page, "patrimonio_liquido") == "48.000.0"
    assert typed(page, "cantidad") == "1.00"
    assert 'value="trabajador_activo" selected' in page
    assert "Input should" not in page and "Field required" not in page


@pytest.mark.parametrize("written", ["48.000.000", "48000000", "48.000.000,00", "$ 48.000.000"])
def test_the_calculator_reads_an_amount_as_people_write_it(sqlite: Engine, written: str) -> None:
    client = TestClient(create_app(sqlite))
    form = {
        "programa": "geb-2017",
        "categoria": "trabajador_activo",
        "obligado_declarar": "si",
        "patrimonio_liquido": written,
        "ingresos_declaracion": "60.000.000",
    }
    page = post(client, "/calculadora", form)
    # Decreto 706/2017 art. 8.2.1: 1 × $ 48.000.000 / $ 2.018 = 23.785 acciones.
    assert "Puede comprar hasta 23.785 acciones." in text(page)
    assert "Una vez el patrimonio líquido" in text(page)


def test_the_api_speaks_spanish_about_a_bad_request(sqlite: Engine) -> None:
    client = TestClient(create_app(sqlite))
    answer = client.post(
        "/api/calculadora",
        json={"programa": "geb-2017", "categoria": "marciano", "cantidad": 0},
    )
    assert answer.status_code == 422
    errors = {e["columna"]: e["mensaje"] for e in answer.json()["errores"]}
    assert errors["cantidad"] == "debe ser mayor o igual a 1"
    assert errors["categoria"].startswith("valor no admitido (se admite: 'trabajador_activo'")


def test_a_refused_new_offer_keeps_the_form_and_names_each_field(sqlite: Engine) -> None:
    office = TestClient(create_app(sqlite))
    log_in(office, "oficina")
    form = {
        "codigo": "con espacios",
        "programa": "central-seguros-vida",
        "precio": "mil",
        "acciones_ofrecidas": "40.000.00",
        "fecha_aviso": "2018-13-01",
        "motivo": "aviso",
    }
    page = post(office, "/oficina/ofertas", form, "/oficina")
    assert "No se creó la oferta" in page
    assert field_error(page, "codigo").startswith("escriba un código de letras, números")
    assert field_error(page, "precio").startswith("se espera un monto en pesos mayor que cero")
    assert field_error(page, "acciones_ofrecidas") == (
        "se espera un número entero mayor que cero (40000000 o 40.000.000)"
    )
    assert field_error(page, "fecha_aviso") == "se espera una fecha AAAA-MM-DD"
    assert field_error(page, "fecha_cierre") == "falta este dato"
    assert typed(page, "precio") == "mil" and typed(page, "codigo") == "con espacios"
    # Shares with thousands dots, as the price: 40.000.000 acciones.
    fixed = {**form, "codigo": "nueva", "precio": "1.000", "acciones_ofrecidas": "40.000.000"}
    created = office.post(
        "/oficina/ofertas",
        data={
            **fixed,
            "fecha_aviso": "2017-12-22",
            "fecha_cierre": "2018-02-26",
            "csrf": csrf_of(office, "/oficina"),
        },
        follow_redirects=False,
    )
    assert created.status_code == 303 and created.headers["location"] == "/oficina/ofertas/nueva"
    with sqlite.connect() as conn:
        assert load_offer(conn, "nueva").offer.price_centavos == 100_000  # $ 1.000


def test_the_fines_page_reads_amounts_as_written_and_keeps_its_errors(sqlite: Engine) -> None:
    office = TestClient(create_app(sqlite))
    log_in(office, "oficina")
    form = {
        "programa": "geb-2017",
        "fecha_referencia": "2018-04-02",
        "fecha_incumplimiento": "2019-01-15",
        "acciones": "10.000",  # with its thousands dot, as the amounts below
        "hasta": "2019-02-20",
        "precio_adquisicion": "2.018",
        "contraprestacion": "2.500,50",
        "formato": "pagina",
    }
    page = post(office, "/oficina/multas", form)
    # Decreto 706/2017 art. 11: the greater base, $ 2.500,50, × 10.000 × 75 %.
    assert "10.000 acciones × $ 2.500,50" in text(page) and "$ 18.753.750" in text(page)
    wrong = post(
        office, "/oficina/multas", {**form, "acciones": "diez", "contraprestacion": "2,5,0"}
    )
    assert field_error(wrong, "acciones") == (
        "'diez' no es un número entero de acciones (se escribe 40000000 o 40.000.000)"
    )
    assert "no es un monto en pesos" in field_error(wrong, "contraprestacion")
    assert typed(wrong, "contraprestacion") == "2,5,0"


def wait_for(client: TestClient, job_path: str) -> str:
    for _ in range(600):
        page = str(client.get(job_path).text)
        if 'id="avance"' not in page:
            return page
        time.sleep(0.05)
    raise AssertionError(f"{job_path} no terminó")


def upload(client: TestClient, name: str, batch: str) -> str:
    csrf = csrf_of(client, "/comisionista")
    answer = client.post(
        f"/comisionista/ofertas/{CODE}/lotes",
        files={"archivo": (name, (SAMPLE / name).read_bytes())},
        data={"lote": batch, "csrf": csrf},
        follow_redirects=False,
    )
    assert answer.status_code == 303
    return str(answer.headers["location"])


def test_a_batch_result_filters_by_decision_pages_and_explains_once(sqlite: Engine) -> None:
    broker = TestClient(create_app(sqlite))
    log_in(broker, "comisionista_a")
    job = upload(broker, "lote-1-casa-de-bolsa.csv", "L1")
    page = wait_for(broker, job)
    assert "750 aceptaciones radicadas" in text(page)
    assert page.count("<tr><td><code>") == 200  # a page of 200 rows out of 750
    assert "Página 1 de 4 (750 filas)" in text(page)
    assert 'href="/comisionista">Volver a mis lotes' in page
    rejected = broker.get(f"{job}?decision=rechazada").text
    rows = re.findall(r"<tr><td><code>.*?</tr>", rejected)
    assert rows and all("<td>rechazada</td>" in r for r in rows)
    assert f"<strong>Rechazadas ({len(rows)})</strong>" in rejected
    reduced = re.findall(r"<tr><td><code>.*?</tr>", broker.get(f"{job}?decision=reducida").text)
    assert reduced
    for row in reduced:  # the binding limit is said once, in the summary
        reason = text(row)
        assert reason.count("Reducida de") == 1
        limit = re.search(r"por el límite (.+?):", reason)
        assert limit and reason.count(limit.group(1)) == 1, reason
    last = broker.get(f"{job}?pagina=4").text
    assert last.count("<tr><td><code>") == 150 and 'rel="next"' not in last


def test_a_failed_batch_says_so_once_and_what_to_do(sqlite: Engine) -> None:
    broker = TestClient(create_app(sqlite))
    log_in(broker, "comisionista_a")
    page = wait_for(broker, upload(broker, "lote-4-credicorp-capital-con-errores.csv", "L9"))
    shown = text(page)
    assert shown.count("El lote tiene 3 errores; no se guardó nada.") == 1
    assert "<progress" not in page
    assert "Corrija en el archivo las filas que se listan abajo" in shown
    assert page.count("<tr><td>lote-4-credicorp-capital-con-errores.csv</td>") == 3


def test_the_acceptances_file_has_amounts_in_pesos(sqlite: Engine) -> None:
    file_samples(sqlite)
    broker = TestClient(create_app(sqlite))
    log_in(broker, "comisionista_a")
    rows = list(
        csv.DictReader(io.StringIO(broker.get(f"/api/ofertas/{CODE}/aceptaciones.csv").text))
    )
    with sqlite.connect() as conn:
        stored = dict(
            conn.execute(
                select(acceptances.c.radicado, acceptances.c.patrimonio_liquido).where(
                    acceptances.c.patrimonio_liquido.is_not(None)
                )
            ).all()
        )
    checked = [r for r in rows if r["patrimonio_liquido"]]
    assert checked
    for row in checked:  # 96028998300 centavos is written 960289983.00: pesos, exactly
        assert re.fullmatch(r"\d+\.\d\d", row["patrimonio_liquido"])
        assert Decimal(row["patrimonio_liquido"]) * 100 == stored[row["radicado"]]


def test_the_offer_page_refreshes_itself_only_while_the_offer_is_open(sqlite: Engine) -> None:
    office = TestClient(create_app(sqlite))
    log_in(office, "oficina")
    assert '<script src="/estaticos/tablero.js">' in office.get(f"/oficina/ofertas/{CODE}").text
    move(sqlite, "cerrada")
    assert "tablero.js" not in office.get(f"/oficina/ofertas/{CODE}").text


def test_adjudicating_asks_for_confirmation_and_says_what_will_happen(sqlite: Engine) -> None:
    file_samples(sqlite)
    move(sqlite, "cerrada")
    office = TestClient(create_app(sqlite))
    log_in(office, "oficina")
    page = office.get(f"/oficina/ofertas/{CODE}").text
    assert "Igualitario con redistribución" in text(page) and "No se puede deshacer." in page
    assert 'name="confirmo" value="si" required' in page
    refused = office.post(
        f"/oficina/ofertas/{CODE}/acciones",
        data={"accion": "adjudicar", "motivo": "cierre", "csrf": csrf_of(office, "/oficina")},
    )
    assert refused.status_code == 422 and "marque la casilla" in refused.text
    with sqlite.connect() as conn:
        assert load_offer(conn, CODE).state == "cerrada"


def test_the_offer_page_opens_with_its_figures(engine: Engine) -> None:
    add_people(engine)
    open_offer(engine)
    file_samples(engine)
    move(engine, "cerrada")
    adjudicate(engine, CODE, "oficina", "adjudicación")
    office = TestClient(create_app(engine))
    log_in(office, "oficina")
    page = office.get(f"/oficina/ofertas/{CODE}").text
    with engine.connect() as conn:
        stored = load_offer(conn, CODE)
    figures = build_figures(report_input(stored, stored_adjudication(engine, CODE)))
    shown = text(page)
    # The headline, as the adjudication report computes it on its own.
    for value, name in [
        ("40.000.000", "acciones ofrecidas"),
        (f"{figures.aceptaciones:,}".replace(",", "."), "aceptaciones recibidas"),
        (f"{figures.acciones_solicitadas:,}".replace(",", "."), "acciones solicitadas"),
        (f"{figures.acciones_permitidas:,}".replace(",", "."), "acciones admisibles al radicar"),
        (f"{figures.acciones_adjudicadas:,}".replace(",", "."), "acciones adjudicadas"),
        (f"{figures.nuevos_accionistas:,}".replace(",", "."), "nuevos accionistas"),
    ]:
        assert f"{value} {name}" in shown, (value, name)
    assert "100,00 % de la oferta colocado" in shown
    # Figures, then the limits that bound (by name and article), then charts, then tables.
    order = [
        page.index(m)
        for m in ('id="cifras"', 'id="limites-determinantes"', "<svg", 'id="decisiones"')
    ]
    assert order == sorted(order)
    cited = "(Programa Central de Seguros de Vida (Primera Fase) A.2(i))"
    assert f"Dos veces el patrimonio líquido {cited}" in shown
    assert "central-a.2(i)" not in shown and "igualitario_redistribucion" not in shown


def test_the_public_finds_its_result_with_price_amount_and_deadline(sqlite: Engine) -> None:
    file_samples(sqlite)
    move(sqlite, "cerrada")
    adjudicate(sqlite, CODE, "oficina", "adjudicación")
    publish(sqlite, CODE, "oficina", "publicación de resultados")
    done = stored_adjudication(sqlite, CODE).results
    person = done.filter(done["adjudicada"] > 0).row(0, named=True)
    public = TestClient(create_app(sqlite))
    form = public.get("/resultados").text
    assert f'<option value="{CODE}"' in form  # the offer and the ID type are choices
    assert f'<option value="CC" selected>{label("tipo_identificacion", "CC")} (CC)</option>' in form
    page = post(
        public,
        "/resultados",
        {
            "oferta": CODE,
            "radicado": person["radicado"],
            "tipo_identificacion": person["tipo_identificacion"],
            "numero_identificacion": person["numero_identificacion"],
        },
    )
    shown = text(page)
    shares = person["adjudicada"]
    assert f"{shares:,}".replace(",", ".") in shown and "adjudicada" in shown
    assert "$ 1.000 precio por acción" in shown  # the sample offer's price
    to_pay = f"$ {shares * 1000:,}".replace(",", ".")
    assert f"{to_pay} valor a pagar" in shown
    assert "Plazo para pagar" in shown


def test_the_public_sees_its_pseudonym_and_finds_its_row_in_the_package(sqlite: Engine) -> None:
    file_samples(sqlite)
    move(sqlite, "cerrada")
    adjudicate(sqlite, CODE, "oficina", "adjudicación")
    publish(sqlite, CODE, "oficina", "publicación de resultados")
    done = stored_adjudication(sqlite, CODE).results
    person = done.filter(done["adjudicada"] > 0).row(2, named=True)
    query = {
        "oferta": CODE,
        "radicado": person["radicado"],
        "tipo_identificacion": person["tipo_identificacion"],
        "numero_identificacion": person["numero_identificacion"],
    }
    public = TestClient(create_app(sqlite))
    # Looked up before anyone built the package: the key drawn now is the package's.
    shown = re.search(
        r'<code id="seudonimo">([0-9a-f]{32})</code>', post(public, "/resultados", query)
    )
    assert shown is not None
    mine = shown.group(1)
    assert public.post("/api/resultados/consulta", json=query).json()["seudonimo"] == mine
    package = offer_package(sqlite, CODE, "oficina").files
    rows = list(csv.DictReader(io.StringIO(package[AWARDS].decode())))
    row = next(r for r in rows if r["seudonimo"] == mine)
    assert int(row["adjudicada"]) == person["adjudicada"]
    assert int(row["cantidad_permitida"]) == person["cantidad_persona"]
    assert sum(r["seudonimo"] == mine for r in rows) == 1
