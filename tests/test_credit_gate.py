"""The credit-line gate (Ley 226 de 1995 art. 11 num. 3; GEB arts. 6.4 and 7): the Primera
Etapa opens only once registered credit lines together make available at least 10 % of the
value of the shares offered, each meeting the law's conditions.

Central's sample offer: 40.000.000 shares × $ 1.000 = $ 40.000.000.000, so the lines must
make $ 4.000.000.000 available. Our text of Central's decree lacks the credit-line article:
the conditions are the law's own (Ley 226/1995 art. 11 num. 3).
"""

from __future__ import annotations

import dataclasses
import json
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from sqlalchemy import Engine, select

from democratiza.compliance.credit.gate import credit_verdict, open_offer, register_line
from democratiza.compliance.credit.lines import CreditLine
from democratiza.offers.lifecycle import OfferError, advance, create_offer, load_offer
from democratiza.storage.schema import offer_events

SAMPLE = Path(__file__).parents[1] / "examples/primera-etapa"
CODE = "central"
PESOS = 100  # centavos

LINE = CreditLine(
    lender="Banco Ejemplo",
    available_centavos=3_600_000_000 * PESOS,  # 9 % of $ 40.000.000.000
    term_months=60,
    grace_months=12,
    rate_ea=Decimal("0.2233"),  # the IBC of April-June 2017 exactly: "no superior"
    granted=date(2017, 6, 15),
    capitalise_grace_interest=True,
    share_collateral="precio_fijo",
)
SECOND = dataclasses.replace(
    LINE, lender="Cooperativa Ejemplo", available_centavos=400_000_000 * PESOS
)  # 1 %


def new_offer(engine: Engine) -> None:
    params = yaml.safe_load((SAMPLE / "oferta.yaml").read_text(encoding="utf-8"))
    with engine.begin() as conn:
        create_offer(conn, CODE, "central-seguros-vida", params, "oficina", "aviso")


def register(engine: Engine, line: CreditLine) -> None:
    with engine.begin() as conn:
        register_line(conn, load_offer(conn, CODE), line, "oficina")


def open_it(engine: Engine) -> None:
    with engine.begin() as conn:
        open_offer(conn, load_offer(conn, CODE), "oficina", "inicio del plazo")


def state(engine: Engine) -> str:
    with engine.connect() as conn:
        return load_offer(conn, CODE).state


def test_ley_226_art_11_num_3_an_offer_without_credit_lines_does_not_open(engine: Engine) -> None:
    new_offer(engine)
    with pytest.raises(OfferError, match="No hay líneas de crédito registradas") as refused:
        open_it(engine)
    assert "Ley 226/1995 art. 11 num. 3" in str(refused.value)
    assert "$ 40.000.000.000" in str(refused.value)
    assert state(engine) == "borrador"


def test_ley_226_art_11_num_3_nine_percent_is_refused_two_lines_summing_ten_open(
    engine: Engine,
) -> None:
    new_offer(engine)
    register(engine, LINE)
    with pytest.raises(OfferError) as refused:
        open_it(engine)
    assert str(refused.value).splitlines()[1] == (
        "- líneas en su conjunto — Ley 226/1995 art. 11 num. 3: no cumple. Financiación "
        "disponible de las líneas que cumplen (Banco Ejemplo) $ 3.600.000.000 < 10 % × "
        "$ 40.000.000.000 (valor de las acciones ofrecidas) = $ 4.000.000.000"
    )
    assert state(engine) == "borrador"

    register(engine, SECOND)
    open_it(engine)
    assert state(engine) == "abierta"
    with engine.connect() as conn:
        opening = conn.execute(
            select(offer_events.c.detalle).where(offer_events.c.a_estado == "abierta")
        ).scalar_one()
    assert json.loads(opening)["lineas_credito"] == (
        "Ley 226/1995 art. 11 num. 3: Financiación disponible de las líneas que cumplen "
        "(Banco Ejemplo, Cooperativa Ejemplo) $ 4.000.000.000 ≥ 10 % × $ 40.000.000.000 "
        "(valor de las acciones ofrecidas) = $ 4.000.000.000"
    )


def test_a_line_that_fails_a_condition_does_not_count_towards_the_ten_percent(
    engine: Engine,
) -> None:
    new_offer(engine)
    short = dataclasses.replace(LINE, available_centavos=4_000_000_000 * PESOS, term_months=48)
    register(engine, short)
    with engine.connect() as conn:
        verdict = credit_verdict(conn, load_offer(conn, CODE))
    assert not verdict.ok
    assert [str(f) for f in verdict.findings if not f.ok] == [
        "Banco Ejemplo — Ley 226/1995 art. 11 num. 3: no cumple. 48 meses < 60 meses (plazo "
        "total de amortización, incluidos 12 meses de gracia a capital)",
        "líneas en su conjunto — Ley 226/1995 art. 11 num. 3: no cumple. Ninguna línea cumple "
        "las condiciones del programa; financiación disponible $ 0 < 10 % × $ 40.000.000.000 "
        "(valor de las acciones ofrecidas) = $ 4.000.000.000",
    ]


def test_a_rate_above_the_ibc_of_its_grant_date_is_refused(engine: Engine) -> None:
    new_offer(engine)
    register(
        engine,
        dataclasses.replace(
            LINE, available_centavos=4_000_000_000 * PESOS, rate_ea=Decimal("0.2234")
        ),
    )
    with pytest.raises(OfferError, match=r"22,34 % EA > 22,33 % EA"):
        open_it(engine)


def test_lines_are_not_registered_after_the_close(engine: Engine) -> None:
    new_offer(engine)
    register(engine, dataclasses.replace(LINE, available_centavos=4_000_000_000 * PESOS))
    open_it(engine)
    with engine.begin() as conn:
        advance(conn, load_offer(conn, CODE), "cerrada", "oficina", "cierre")
    with pytest.raises(OfferError, match="está cerrada: las líneas de crédito se registran"):
        register(engine, SECOND)
