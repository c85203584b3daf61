"""The Segunda Etapa is paid and settled as the Primera (GEB art. 3.2, art. 5).

Worked example on the Central de Seguros sample. The Segunda Fase offers a small tranche
(0,05 % of what the Primera Fase left: 19.999 shares) by Dutch auction; the price is
$ 1.200 and the orders get O1 8.000, O2 7.200 and O3 4.700 shares. O1 pays its 8.000
($ 9.600.000), O2 pays for 3.000 ($ 3.600.000 and $ 100 more, not a whole share), O3 pays
nothing. Settled on 2018-05-02: 11.000 shares are sold; O2's other 4.200 and O3's 4.700 are
resolved for non-payment and go back, so the next stage has 11.000 fewer shares than the
Segunda Fase had available, not 19.900 fewer. Only paid shares go to the registry.
"""

from __future__ import annotations

import csv
from datetime import date
from pathlib import Path

import polars as pl
import pytest
from sqlalchemy import Engine
from typer.testing import CliRunner

from democratiza.cli.main import app
from democratiza.compliance.holdings import settle
from democratiza.compliance.ledger import stage_ledger, stage_paid_shares
from democratiza.compliance.payment_batches import import_payments, record_payment
from democratiza.offers.lifecycle import OfferError
from democratiza.reports.stage_report import registry_frame
from democratiza.stages.allocate import allocate_stage, stored_allocation
from democratiza.stages.lifecycle import create_stage, load_stage
from democratiza.stages.orders import import_orders
from democratiza.stages.terms import StageError
from democratiza.tables.errors import InputRejected
from democratiza.web.app import create_app
from tests.test_stages import FIRST, book, close, new_stage, order, settle_sample, terms
from tests.test_web_after_sale import session
from tests.test_web_pages import text
from tests.test_web_support import add_people, csrf_of

PRICE = 120_000  # $ 1.200, the clearing price, in centavos
SALE = date(2018, 5, 2)


@pytest.fixture
def allocated(engine: Engine, tmp_path: Path) -> dict[str, str]:
    """The Primera Fase settled, then the Segunda Fase allocated: referencia → radicado."""
    settle_sample(engine, "central-seguros-vida")
    new_stage(engine, tope_porcentaje="0.05")
    rows = [
        order("O1", "1300", "8000"),
        order("O2", "1200", "9000", tipo_persona="natural", tipo_identificacion="CC"),
        order("O3", "1200", "6000"),
    ]
    import_orders(engine, "segunda", book(tmp_path / "o.csv", rows), "Casa de Bolsa", "B1", "s")
    close(engine)
    done = allocate_stage(engine, "segunda", "bolsa", "cierre del libro")
    assert done.header["precio"] == PRICE
    given = dict(done.results.select("referencia", "asignada").iter_rows())
    assert given == {"O1": 8_000, "O2": 7_200, "O3": 4_700}
    return dict(done.results.select("referencia", "radicado").iter_rows())


def payments_file(path: Path, rows: list[tuple[str, str, str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["radicado", "fecha", "monto", "forma"])
        writer.writerows((r, "2018-04-25", amount, method) for r, amount, method in rows)
    return path


def test_an_unpaid_allocation_is_resolved_and_only_paid_shares_are_registered(
    engine: Engine, allocated: dict[str, str], tmp_path: Path
) -> None:
    o1, o2, o3 = allocated["O1"], allocated["O2"], allocated["O3"]
    paid = payments_file(tmp_path / "p.csv", [(o1, "9600000", "contado")])
    assert import_payments(engine, "segunda", paid, "P1", "scb", stage_ledger).rows == 1
    a_share_and_a_bit = 3_000 * PRICE + 10_000  # $ 100 more than 3.000 shares: not a share
    record_payment(
        engine, "segunda", o2, date(2018, 4, 26), a_share_and_a_bit, "contado", "scb", stage_ledger
    )
    waits = pytest.raises(StageError, match=r"Liquide primero los pagos de la etapa 'segunda'")
    with engine.begin() as conn, waits:  # the next stage waits for the settlement
        create_stage(conn, "tercera", FIRST, terms(), "oficina", "aviso")

    done = settle(engine, "segunda", SALE, "oficina", stage_ledger)
    assert (done.paid_shares, done.resolved_shares, done.awards) == (11_000, 8_900, 3)
    with engine.connect() as conn:
        sold = dict(stage_paid_shares(conn, "segunda").iter_rows())
    assert sold == {o1: 8_000, o2: 3_000, o3: 0}
    paid_shares = pl.DataFrame(
        {"radicado": list(sold), "acciones_pagadas": list(sold.values())},
        schema={"radicado": pl.String, "acciones_pagadas": pl.Int64},
    )
    registry = registry_frame(stored_allocation(engine, "segunda"), paid_shares)
    assert dict(registry.select("numero_identificacion", "acciones").iter_rows()) == {
        "900001": 8_000,
        "900002": 3_000,
    }  # O3 resolved: not in the registry

    new_stage(engine, "tercera")
    with engine.connect() as conn:
        segunda, tercera = load_stage(conn, "segunda"), load_stage(conn, "tercera")
    assert tercera.origin["resueltas_por_no_pago"] == 8_900
    assert tercera.origin["disponibles"] == segunda.origin["disponibles"] - 11_000


def test_a_stage_is_paid_in_cash_to_its_awards_and_once_settled_takes_no_more(
    engine: Engine, allocated: dict[str, str], tmp_path: Path
) -> None:
    bad = payments_file(
        tmp_path / "p.csv",
        [(allocated["O1"], "9600000", "credito"), ("O000009-000001", "10", "contado")],
    )
    with pytest.raises(InputRejected) as refused:
        import_payments(engine, "segunda", bad, "P1", "scb", stage_ledger)
    assert [(e.row, e.column) for e in refused.value.errors] == [(2, "forma"), (3, "radicado")]
    assert "solo se paga de contado" in refused.value.errors[0].message
    assert "(Ley 226/1995 art. 11)" in refused.value.errors[0].message
    settle(engine, "segunda", SALE, "oficina", stage_ledger)
    with pytest.raises(OfferError, match=r"ya se liquidó"):
        record_payment(
            engine, "segunda", allocated["O1"], SALE, PRICE, "contado", "scb", stage_ledger
        )


def test_the_cli_pays_and_settles_a_stage_and_exports_its_registry(
    engine: Engine, allocated: dict[str, str], tmp_path: Path
) -> None:
    url = engine.url.render_as_string(hide_password=False)
    paid = payments_file(tmp_path / "p.csv", [(allocated["O1"], "9600000", "contado")])
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(app, [*args, "--db", url])
        assert result.exit_code == 0, result.output
        return result.output

    assert "1 pago por $ 9.600.000" in run(
        "etapa", "pago", "importar", "segunda", str(paid), "--lote", "P1"
    )
    settled = run("etapa", "pago", "liquidar", "segunda", "--fecha-enajenacion", "2018-05-02")
    assert "Vendidas (pagadas): 8.000 acciones" in settled
    assert "11.900" in settled  # 7.200 + 4.700 resolved
    assert "Pagos liquidados: 8.000 acciones vendidas; 11.900 resueltas" in run(
        "etapa", "ver", "segunda"
    )
    run("etapa", "exportar", "segunda", "--salida", str(tmp_path / "out"))
    with (tmp_path / "out/segunda/registro-segunda.csv").open(encoding="utf-8") as fh:
        assert [(r["numero_identificacion"], r["acciones"]) for r in csv.DictReader(fh)] == [
            ("900001", "8000")
        ]


def test_the_api_pays_and_settles_a_stage(engine: Engine, allocated: dict[str, str]) -> None:
    add_people(engine)
    office = session(create_app(engine), "oficina")
    body = f"radicado,fecha,monto,forma\n{allocated['O3']},2018-04-25,5640000,contado\n"
    sent = office.post(
        "/api/etapas/segunda/pagos/lotes",
        files={"archivo": ("pagos.csv", body)},
        data={"lote": "P1"},
    )
    assert sent.status_code == 201 and sent.json()["total"] == 4_700 * PRICE, sent.text
    done = office.post("/api/etapas/segunda/liquidacion", json={"fecha_enajenacion": "2018-05-02"})
    assert done.json()["acciones_pagadas"] == 4_700
    assert done.json()["acciones_resueltas"] == 8_000 + 7_200
    registry = office.get("/api/etapas/segunda/registro.csv").text.splitlines()
    assert registry[1:] == ["NIT,900003,Inversionista O3,Casa de Bolsa,4700"]


def test_the_stage_page_takes_the_payments_and_the_settlement(
    engine: Engine, allocated: dict[str, str]
) -> None:
    add_people(engine)
    office = session(create_app(engine), "oficina")
    page = "/oficina/etapas/segunda"
    assert "Pagos recibidos: $ 0 de 0 órdenes." in text(office.get(page).text)
    body = f"radicado,fecha,monto,forma\n{allocated['O1']},2018-04-25,9600000,contado\n"
    sent = office.post(
        f"{page}/pagos/lotes",
        files={"archivo": ("pagos.csv", body)},
        data={"lote": "P1", "csrf": csrf_of(office, page)},
        follow_redirects=False,
    )
    assert sent.status_code == 303, sent.text
    assert "Pagos recibidos: $ 9.600.000 de 1 orden." in text(office.get(page).text)
    unconfirmed = {"fecha_enajenacion": "2018-05-02", "csrf": csrf_of(office, page)}
    refused = office.post(f"{page}/liquidacion", data=unconfirmed)
    assert refused.status_code == 422 and "marque la casilla" in refused.text
    confirmed = {**unconfirmed, "confirmo": "si", "csrf": csrf_of(office, page)}
    assert (
        office.post(f"{page}/liquidacion", data=confirmed, follow_redirects=False).status_code
        == 303
    )
    shown = text(office.get(page).text)
    assert "Periodo de pago liquidado: 8.000 acciones vendidas (pagadas); 11.900 acciones" in shown
