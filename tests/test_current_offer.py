"""An offer kept by this process is served only while its stored version is the same.

``offers.lifecycle.current_offer`` answers a group of single acceptances without reading
the program's texts again; every change the office makes (its state, an interruption with
a price adjustment) reloads it, so no filing is ever decided with a stale offer.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from sqlalchemy import Engine, update

from democratiza.filing.reevaluation import interrupt
from democratiza.offers.lifecycle import (
    OfferError,
    advance,
    create_offer,
    current_offer,
    load_offer,
)
from democratiza.offers.prices import AdjustmentRequest
from democratiza.storage.schema import offers

SAMPLE = Path(__file__).parents[1] / "examples/primera-etapa"
CODE = "central"
ADJUSTED = AdjustmentRequest(
    "1.250",
    "Ley 226 de 1995 art. 11 num. 2; interrupción por decisión de la oficina",
    "conservan",
    "se evaluaron y respondieron con el precio del aviso",
)


def test_the_kept_offer_is_reloaded_on_every_change_of_its_stored_version(engine: Engine) -> None:
    params = yaml.safe_load((SAMPLE / "oferta.yaml").read_text(encoding="utf-8"))
    with engine.begin() as conn:
        stored = create_offer(conn, CODE, "central-seguros-vida", params, "oficina", "aviso")
    with engine.connect() as conn:
        first = current_offer(conn, CODE)
        assert current_offer(conn, CODE) is first  # unchanged: the same object, no reload
        assert first == load_offer(conn, CODE)
    with engine.begin() as conn:
        advance(conn, stored, "abierta", "oficina", "apertura")
    with engine.connect() as conn:
        opened = current_offer(conn, CODE)
        assert (first.state, opened.state) == ("borrador", "abierta")
    with engine.begin() as conn:
        interrupt(conn, load_offer(conn, CODE), "oficina", "interrupción", ADJUSTED)
    with engine.connect() as conn:
        adjusted = current_offer(conn, CODE)
        assert adjusted == load_offer(conn, CODE)
        assert opened.adjustments == ()
        assert adjusted.price_in_force == 125_000 != opened.price_in_force
    with engine.begin() as conn:  # a program text changed behind its hash is read again...
        conn.execute(update(offers).values(programa_texto=offers.c.programa_texto + " "))
    with engine.connect() as conn, pytest.raises(OfferError, match="no coincide con su huella"):
        current_offer(conn, CODE)  # ... and refused, as load_offer refuses it
