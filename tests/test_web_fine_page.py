"""The fine's statement on the office's page: the balance due opens it, a partial payment is
typed in the form, and the account follows step by step; a payment line that cannot be read
is named under its field, with what was typed kept.

Worked example (Decreto 706/2017, GEB): 10.000 shares sold on 2019-01-15, 287 days after
the adjudication of 2018-04-02, the greater base $ 2.500,50 × 75 % = $ 18.753.750; a payment
of $ 5.000.000 on 2019-02-01; the statement at 2019-02-20.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from democratiza.compliance.fines.account import Payment
from democratiza.compliance.fines.case import compute_fine
from democratiza.money import pesos
from democratiza.programs.loader import load_program
from democratiza.storage.database import make_engine, migrate
from democratiza.web.app import create_app
from tests.test_web_pages import field_error, post, text
from tests.test_web_support import add_people, log_in

FORM = {
    "programa": "geb-2017",
    "fecha_referencia": "2018-04-02",
    "fecha_incumplimiento": "2019-01-15",
    "acciones": "10000",
    "hasta": "2019-02-20",
    "precio_adquisicion": "2.018",
    "contraprestacion": "2.500,50",
    "pagos": "2019-02-01 5.000.000",
    "formato": "pagina",
}


@pytest.fixture
def office(tmp_path: Path) -> Iterator[TestClient]:
    """The office logged in (the fines page reads no offer: SQLite is enough)."""
    engine = make_engine(f"sqlite:///{tmp_path / 'democratiza.db'}")
    migrate(engine)
    add_people(engine)
    client = TestClient(create_app(engine))
    log_in(client, "oficina")
    yield client
    engine.dispose()


def test_the_statement_opens_with_the_balance_after_a_partial_payment(
    office: TestClient,
) -> None:
    page = post(office, "/oficina/multas", FORM)
    expected = compute_fine(
        load_program("geb-2017"),
        date(2018, 4, 2),
        date(2019, 1, 15),
        10_000,
        date(2019, 2, 20),
        {"precio_adquisicion": 201_800, "contraprestacion": 250_050, "precio_segunda_etapa": None},
        [Payment(date(2019, 2, 1), 500_000_000)],
    ).statement
    assert expected is not None
    shown = text(page)
    balance = f"{pesos(expected.due)} saldo a pagar el 2019-02-20"
    assert balance in shown
    assert (
        "$ 18.753.750 multa impuesta" in shown and "$ 5.000.000 pagado hasta el 2019-02-20" in shown
    )
    # The balance comes before the account's steps, and the payment is one of them.
    assert shown.index(balance) < shown.index("Saldo total")
    assert "Pago de $ 5.000.000: primero" in shown
    steps = re.findall(r"<tr><td>\d{4}-\d{2}-\d{2}</td>", page)
    assert len(steps) == len(expected.rows)
    # The form keeps the payment typed, to compute again.
    assert "2019-02-01 5.000.000</textarea>" in page


def test_a_payment_line_that_cannot_be_read_is_named_under_its_field(office: TestClient) -> None:
    typed = "2019-02-01 5.000.000\n1 de marzo 2.000.000\n2019-03-05 dos millones"
    page = post(office, "/oficina/multas", {**FORM, "pagos": typed})
    error = field_error(page, "pagos")
    assert "línea 2: empiece con la fecha del pago, AAAA-MM-DD ('1 de marzo 2.000.000')" in error
    assert "línea 3: " in error
    assert f"{typed}</textarea>" in page
    outside = post(office, "/oficina/multas", {**FORM, "pagos": "2019-03-01 1.000"})
    assert "fuera del periodo del estado de cuenta" in field_error(outside, "pagos")
