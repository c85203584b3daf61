"""A later stage's aviso for the public (``/etapas/{etapa}``): from its opening on, what it
offers and where from, who may buy, how the price is set, the minimum price and its steps, the
minimum order, the lot, the window, how it is paid and who files orders, each rule with its
article and in words; its figures are the API's notice (``GET /api/etapas/{etapa}``)."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.labels import label
from democratiza.money import group
from democratiza.offers.lifecycle import create_offer
from democratiza.rules.explain import cite
from democratiza.stages.lifecycle import advance_stage, create_stage, declare_void, load_stage
from democratiza.stages.terms import rules
from democratiza.web.app import create_app
from tests.test_stages import FIRST, new_stage, settle_sample, terms
from tests.test_web_stage_public import STAGE, allocated_stage, publish_stage, text
from tests.test_web_support import PARAMS, add_people, log_in

NOTICE = f"/etapas/{STAGE}"


def shown(page: str, ident: str) -> str:
    """The text of the element with that id."""
    found = re.search(rf'id="{ident}"[^>]*>(.*?)</(span|p|ol|table)>', page, flags=re.S)
    assert found, f"falta #{ident}"
    return text(found.group(1)).strip()


def words_only(page: str) -> str:
    """What a person reads as text: without what they type or keep (``<code>``)."""
    return text(re.sub(r"<code>.*?</code>", " ", page, flags=re.S))


def test_the_notice_tells_each_figure_in_words_with_its_article(engine: Engine) -> None:
    settle_sample(engine, "central-seguros-vida")
    new_stage(engine, tope_porcentaje="12.52")
    public = TestClient(create_app(engine))  # no login
    page = public.get(NOTICE)
    assert page.status_code == 200, page.text
    with engine.connect() as conn:
        stage = load_stage(conn, STAGE)
    program = stage.program
    later = rules(program)
    body = text(page.text)
    assert "Aviso de la Segunda Fase: " in body and f"código: {STAGE}" in body
    assert program.name in body and label("estado_etapa", "abierta") in body
    # Who may buy, with its article.
    who = shown(page.text, "inversionistas")
    assert later.investors.value[1:] in who and cite(program, later.investors.citation) in who
    # The mechanism, named and explained in words.
    mechanism = shown(page.text, "mecanismo")
    assert label("mecanismo", "subasta_holandesa") in mechanism
    assert label("mecanismo_precio", "subasta_holandesa") in mechanism
    # The minimum price, its rule with its article, and every step that reached it.
    floor = shown(page.text, "regla-precio-minimo")
    assert "$ 1.000 por acción" in floor and later.minimum_price.value in floor
    assert cite(program, later.minimum_price.citation) in floor
    steps = re.findall(r"<li>(.*?)</li>", page.text.split('id="pasos"')[1].split("</ol>")[0])
    assert steps == list(stage.origin["precio_minimo_pasos"]) and len(steps) >= 2
    # Where the shares come from, the tranche cap, the minimum order, the lot, the window.
    origin = shown(page.text, "origen")
    assert f"{label('origen_etapa', 'disponibles')} {group(stage.origin['disponibles'])}" in origin
    assert f"{label('origen_etapa', 'pagadas')} {group(stage.origin['pagadas'])}" in origin
    assert "Tope del tramo: 12.52 %" in shown(page.text, "tope")
    window = shown(page.text, "terminos")
    assert "del 2018-04-03 al 2018-04-16" in window
    assert "Orden mínima 5.000 acciones" in window and "Lote 100 acciones" in window
    assert "Reglamento de la Segunda Fase (ilustrativo)" in window
    # How it is paid, with its article; who files the orders.
    paid = shown(page.text, "formas-pago")
    assert paid.startswith(
        f"{label('forma_pago', 'contado')} ({cite(program, later.payments.citation)})"
    )
    assert "sociedad comisionista de bolsa" in shown(page.text, "comisionista")
    void = shown(page.text, "desierta")
    assert cite(program, later.void.citation) in void


def test_the_notice_shows_the_apis_figures(engine: Engine) -> None:
    settle_sample(engine, "central-seguros-vida")
    new_stage(engine, mecanismo="construccion_libro")
    public = TestClient(create_app(engine))
    api = public.get(f"/api/etapas/{STAGE}").json()
    page = public.get(NOTICE).text
    assert shown(page, "acciones-ofrecidas") == group(api["acciones_ofrecidas"])
    assert shown(page, "precio-minimo") == api["precio_minimo_texto"]
    assert shown(page, "orden-minima") == group(api["orden_minima"])
    assert shown(page, "lote") == group(api["lote"])
    window = shown(page, "terminos")
    assert f"del {api['fecha_apertura']} al {api['fecha_cierre']}" in window
    assert api["fuente"] in window
    origin = shown(page, "origen")
    for key in ("ofrecidas_primera_etapa", "pagadas", "resueltas_por_no_pago", "disponibles"):
        assert f"{label('origen_etapa', key)} {group(api['origen'][key])}" in origin
    steps = re.findall(r"<li>(.*?)</li>", page.split('id="pasos"')[1].split("</ol>")[0])
    assert steps == api["origen"]["precio_minimo_pasos"]
    assert label("mecanismo", api["mecanismo"]) in shown(page, "mecanismo")


def test_no_internal_identifier_reaches_the_text(engine: Engine) -> None:
    settle_sample(engine, "central-seguros-vida")
    new_stage(engine)
    page = TestClient(create_app(engine)).get(NOTICE).text
    read = words_only(page)
    assert not re.search(r"\w_\w", read), re.search(r".{40}\w_\w.{40}", read)
    for ident in ("subasta_holandesa", "contado", "abierta"):
        assert ident not in read.replace(label("forma_pago", "contado"), "").replace(
            label("estado_etapa", "abierta"), ""
        )


def test_a_draft_stage_has_no_public_notice(engine: Engine) -> None:
    settle_sample(engine, "central-seguros-vida")
    with engine.begin() as conn:
        create_stage(conn, STAGE, FIRST, terms(), "oficina", "aviso")  # not opened
    public = TestClient(create_app(engine))
    page = public.get(NOTICE)
    assert page.status_code == 404
    assert "aún no se ha publicado" in text(page.text)
    assert f'href="{NOTICE}"' not in public.get("/").text
    assert f'href="{NOTICE}"' not in public.get(f"/ofertas/{FIRST}").text


def test_a_stage_declared_void_keeps_its_notice(engine: Engine) -> None:
    settle_sample(engine, "central-seguros-vida")
    new_stage(engine)
    with engine.begin() as conn:
        declare_void(conn, load_stage(conn, STAGE), "oficina", "causal del reglamento")
    page = TestClient(create_app(engine)).get(NOTICE)
    assert page.status_code == 200
    assert f"Estado: {label('estado_etapa', 'desierta')}" in text(page.text)


def test_the_notice_is_linked_from_home_the_offer_and_the_statistics(
    engine: Engine, tmp_path: Path
) -> None:
    allocated_stage(engine, tmp_path)
    public = TestClient(create_app(engine))
    assert f'href="{NOTICE}"' in public.get("/").text  # allocated: its aviso stays public
    assert f'href="{NOTICE}"' in public.get(f"/ofertas/{FIRST}").text
    assert public.get(NOTICE).status_code == 200
    publish_stage(engine)
    statistics = public.get(f"{NOTICE}/estadisticas").text
    assert f'href="{NOTICE}"' in statistics
    notice = public.get(NOTICE).text
    assert f'href="{NOTICE}/estadisticas"' in notice and label("estado_etapa", "publicada") in text(
        notice
    )


def test_the_offices_stage_page_links_the_public_notice_once_it_is_public(engine: Engine) -> None:
    settle_sample(engine, "central-seguros-vida")
    add_people(engine)
    with engine.begin() as conn:
        create_stage(conn, STAGE, FIRST, terms(), "oficina", "aviso")  # a draft: not public
    office = TestClient(create_app(engine))
    log_in(office, "oficina")
    assert f'href="{NOTICE}"' not in office.get(f"/oficina/etapas/{STAGE}").text
    with engine.begin() as conn:
        advance_stage(conn, load_stage(conn, STAGE), "abierta", "oficina", "apertura")
    assert f'href="{NOTICE}"' in office.get(f"/oficina/etapas/{STAGE}").text


def test_a_draft_stage_and_a_draft_offer_are_the_offices_until_they_open(engine: Engine) -> None:
    settle_sample(engine, "central-seguros-vida")
    add_people(engine)
    with engine.begin() as conn:
        create_stage(conn, STAGE, FIRST, terms(), "oficina", "aviso")  # a draft: not public
    app = create_app(engine)
    public, office, broker = TestClient(app), TestClient(app), TestClient(app)
    log_in(office, "oficina")
    log_in(broker, "comisionista_a")
    for who in (public, broker):
        missing = who.get(f"/api/etapas/{STAGE}")
        assert missing.status_code == 404
        assert missing.json()["detalle"] == f"No existe la etapa '{STAGE}'."
        assert missing.json() == who.get("/api/etapas/ninguna").json() | {
            "detalle": f"No existe la etapa '{STAGE}'."
        }
        assert who.get("/api/etapas").json() == []
    seen = office.get(f"/api/etapas/{STAGE}")
    assert seen.status_code == 200 and seen.json()["estado"] == "borrador"
    assert [s["codigo"] for s in office.get("/api/etapas").json()] == [STAGE]
    with engine.begin() as conn:
        advance_stage(conn, load_stage(conn, STAGE), "abierta", "oficina", "apertura")
    assert public.get(f"/api/etapas/{STAGE}").json()["estado"] == "abierta"
    assert [s["codigo"] for s in public.get("/api/etapas").json()] == [STAGE]
    # A draft offer, likewise: the office's, not the public's nor a broker's.
    with engine.begin() as conn:
        create_offer(conn, "nueva", "central-seguros-vida", PARAMS, "oficina", "aviso")
    for who in (public, broker):
        assert who.get("/api/ofertas/nueva").status_code == 404
        assert "nueva" not in [o["codigo"] for o in who.get("/api/ofertas").json()]
    assert office.get("/api/ofertas/nueva").json()["estado"] == "borrador"
    assert "nueva" in [o["codigo"] for o in office.get("/api/ofertas").json()]
