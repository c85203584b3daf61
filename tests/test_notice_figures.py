"""The offer's notice (aviso) says what a person must act on: after an interruption the
adjusted price and the date from which it is paid, and each cap that is the same for
everyone with its number of shares."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.filing.reevaluation import interrupt
from democratiza.offers.lifecycle import load_offer
from democratiza.offers.prices import AdjustmentRequest
from democratiza.storage.database import make_engine, migrate
from democratiza.web.app import create_app
from tests.test_web_pages import text
from tests.test_web_support import CODE, open_offer

BASIS = "Ley 226 de 1995 art. 11 num. 2; interrupción por decisión de la oficina"


def notice(engine: Engine) -> str:
    return text(TestClient(create_app(engine)).get(f"/ofertas/{CODE}").text)


def test_the_notice_shows_the_adjusted_price_its_date_and_each_cap(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'democratiza.db'}")
    migrate(engine)
    open_offer(engine)
    before = notice(engine)
    assert "Precio ajustado" not in before
    assert "367.800 acciones" in before  # Central's cap in shares (A.2(iii), B.4(i))
    asked = AdjustmentRequest("990", BASIS, "conservan", "se respondieron al precio del aviso")
    with engine.begin() as conn:
        adjusted, _ = interrupt(conn, load_offer(conn, CODE), "oficina", "interrupción", asked)
    since = adjusted.adjustments[-1].effective
    after = notice(engine)
    assert f"$ 990 {since:%Y-%m-%d} {BASIS}" in after
    assert "Precio vigente: $ 990" in after
    engine.dispose()
