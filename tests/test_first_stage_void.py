"""A Primera Etapa declared desierta (GEB, Decreto 706 de 2017 art. 3.1): the Distrito Capital
or the Bolsa de Valores de Colombia may declare it so, on the grounds of the reglamento; the
cause is recorded, nothing is adjudicated, and its shares pass to the Segunda Etapa."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select
from typer.testing import CliRunner

from democratiza.adjudication.record import adjudicate
from democratiza.cli.main import app
from democratiza.offers.lifecycle import (
    OfferError,
    advance,
    create_offer,
    declare_void,
    load_offer,
)
from democratiza.stages.lifecycle import create_stage
from democratiza.stages.terms import StageTerms
from democratiza.storage.database import make_engine, migrate
from democratiza.storage.schema import offer_events
from democratiza.web.app import create_app
from tests.test_web_support import add_people, csrf_of, log_in

EXAMPLES = Path(__file__).parents[1] / "examples"
GEB_PARAMS = yaml.safe_load((EXAMPLES / "oferta-geb-2017.yaml").read_text(encoding="utf-8"))
CAUSE = "ninguna aceptación válida al vencer el plazo (causal del reglamento)"
TERMS = StageTerms.model_validate(
    {
        "mecanismo": "subasta_holandesa",
        "fecha_aviso": date(2018, 4, 2),
        "fecha_apertura": date(2018, 4, 3),
        "fecha_cierre": date(2018, 4, 16),
        "orden_minima": 5_000,
        "lote": 100,
        "fuente": "Reglamento de la Segunda Etapa (ilustrativo)",
    }
)


def open_geb(engine: Engine) -> None:
    with engine.begin() as conn:
        stored = create_offer(conn, "geb", "geb-2017", GEB_PARAMS, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "apertura")


def test_geb_art_3_1_a_void_primera_etapa_passes_all_its_shares_on(engine: Engine) -> None:
    open_geb(engine)
    with engine.begin() as conn:
        advance(conn, load_offer(conn, "geb"), "cerrada", "oficina", "cierre")
        declare_void(conn, load_offer(conn, "geb"), "Distrito Capital", CAUSE)
    with engine.connect() as conn:
        assert load_offer(conn, "geb").state == "desierta"
        event = conn.execute(
            select(offer_events.c.tipo, offer_events.c.a_estado, offer_events.c.por_que).where(
                offer_events.c.a_estado == "desierta"
            )
        ).one()
    assert tuple(event) == ("desierta", "desierta", f"{CAUSE} (Decreto 706/2017 art. 3.1)")
    with pytest.raises(OfferError, match="se adjudica cerrada"):
        adjudicate(engine, "geb", "bolsa", "adjudicación", date(2018, 3, 1))

    with engine.begin() as conn:
        stage = create_stage(conn, "segunda", "geb", TERMS, "oficina", "aviso de la Segunda")
    assert stage.shares == 1_836_235_403  # every share of the Primera Etapa (GEB art. 1)
    assert stage.origin["adjudicadas_primera_etapa"] == 0


def test_a_void_declaration_needs_an_open_or_closed_offer_and_the_programs_rule(
    engine: Engine,
) -> None:
    with engine.begin() as conn:
        stored = create_offer(conn, "geb", "geb-2017", GEB_PARAMS, "oficina", "aviso")
        with pytest.raises(OfferError, match="está borrador: solo se declara desierta"):
            declare_void(conn, stored, "Distrito Capital", CAUSE)
    central = yaml.safe_load((EXAMPLES / "primera-etapa/oferta.yaml").read_text("utf-8"))
    with engine.begin() as conn:
        stored = create_offer(conn, "central", "central-seguros-vida", central, "of", "aviso")
        stored = advance(conn, stored, "abierta", "oficina", "apertura")
        with pytest.raises(OfferError, match="en el texto disponible del decreto, la regla"):
            declare_void(conn, stored, "Fogafín", CAUSE)


def test_the_office_declares_it_from_the_command_line_and_the_page(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'oferta.db'}"
    engine = make_engine(db)
    migrate(engine)
    open_geb(engine)
    runner = CliRunner()
    refused = runner.invoke(app, ["oferta", "desierta", "geb", "--db", db])
    assert refused.exit_code != 0  # the cause is required
    done = runner.invoke(app, ["oferta", "desierta", "geb", "--motivo", CAUSE, "--db", db])
    assert done.exit_code == 0, done.output
    assert "declarada desierta; sus acciones pasan a la etapa siguiente" in done.output

    with engine.begin() as conn:
        stored = create_offer(conn, "geb-2", "geb-2017", GEB_PARAMS, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "apertura")
    add_people(engine)
    client = TestClient(create_app(engine))
    log_in(client, "oficina")
    page = client.get("/oficina/ofertas/geb-2").text
    assert 'id="desierta"' in page
    assert "puede declararla desierta el Distrito Capital o la Bolsa de Valores" in page
    action = {"accion": "desierta", "motivo": CAUSE, "csrf": csrf_of(client, "/oficina")}
    unconfirmed = client.post("/oficina/ofertas/geb-2/acciones", data=action)
    assert unconfirmed.status_code == 422 and "marque la casilla" in unconfirmed.text
    confirmed = client.post(
        "/oficina/ofertas/geb-2/acciones", data={**action, "confirmo": "si"}, follow_redirects=False
    )
    assert confirmed.status_code == 303
    with engine.connect() as conn:
        assert load_offer(conn, "geb-2").state == "desierta"
    engine.dispose()


def test_a_refused_void_names_the_program_by_its_name_not_its_file_identifier(
    engine: Engine,
) -> None:
    """Central's decree text has no rule to declare its Primera Fase void: the clerk reads
    which program, as its file names it ("Programa de enajenación de acciones de Fogafín…"),
    never its identifier ``central-seguros-vida``."""
    central = yaml.safe_load((EXAMPLES / "primera-etapa/oferta.yaml").read_text("utf-8"))
    with engine.begin() as conn:
        stored = create_offer(conn, "central", "central-seguros-vida", central, "of", "aviso")
        stored = advance(conn, stored, "abierta", "oficina", "apertura")
        with pytest.raises(OfferError) as refused:
            declare_void(conn, stored, "Fogafín", CAUSE)
    message = str(refused.value)
    assert message.startswith(
        "El programa de enajenación de acciones de Fogafín en la Compañía Central de Seguros "
        "de Vida S.A. (Primera Fase) no trae"
    )
    assert "central-seguros-vida" not in message


def test_the_void_form_confirms_the_programs_name(engine: Engine) -> None:
    open_geb(engine)
    add_people(engine)
    client = TestClient(create_app(engine))
    log_in(client, "oficina")
    page = client.get("/oficina/ofertas/geb").text
    assert (
        "Confirmo que quiero declarar desierta la Primera Etapa del programa de "
        "democratización de acciones del Grupo Energía Bogotá S.A. ESP (20%)." in page
    )
