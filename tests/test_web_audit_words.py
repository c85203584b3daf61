"""The auditors' log in words: the offer by its code, the person by their user's name, and
each field that changed with its value before and after, not ``ofertas/1`` and raw JSON
(what was recorded stays under "Lo registrado", for comparing with an export).

Worked example: the office (user "oficina", named "Oficina") creates Central's offer and
opens it; the log reads "Oferta central-primera-fase", "Oficina", "Estado: en borrador →
abierta"; a broker's batch reads "Lote L1 de Casa de Bolsa (oferta central-primera-fase)".
"""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.filing.batches import import_batch
from democratiza.web.app import create_app
from democratiza.web.pages.audit_words import changes, value_words
from tests.test_web_pages import text
from tests.test_web_support import BROKER_A, SAMPLE, add_people, log_in, open_offer


def test_the_audit_page_says_what_changed_in_words(engine: Engine) -> None:
    add_people(engine)
    open_offer(engine)
    import_batch(
        engine,
        "central-primera-fase",
        SAMPLE / "lote-1-casa-de-bolsa.csv",
        BROKER_A,
        "L1",
        "comisionista_a",
    )
    with TestClient(create_app(engine)) as auditor:
        log_in(auditor, "auditor")
        page = auditor.get("/auditoria").text
    shown = text(re.sub(r"<details>.*?</details>", " ", page, flags=re.S))
    assert "Oferta central-primera-fase" in shown
    assert "Estado: en borrador → abierta" in shown
    assert "Motivo: inicio del plazo" in shown
    assert "Lote L1 de Casa de Bolsa (oferta central-primera-fase)" in shown
    assert "Filas: 750" in shown
    assert "Oficina" in shown and "Comisionista_A" in shown  # the users' names
    assert "ofertas/1" not in shown and '"estado"' not in shown
    assert "ofertas/1" in page  # what was recorded, under "Lo registrado"


def test_a_value_is_read_as_a_person_reads_it() -> None:
    assert value_words("monto_disponible", 360_000_000_000) == "$ 3.600.000.000"
    assert value_words("precio_centavos", 99_000) == "$ 990"
    assert value_words("tasa_ea", "0.2233") == "22,33 % efectivo anual"
    assert value_words("capitalizar_gracia", True) == "sí"
    assert value_words("huella", "ab" * 32) == "abababababababab…"
    assert value_words("metodo", "igualitario_redistribucion") != "igualitario_redistribucion"
    # Only what changed: the version and the state, not the unchanged broker.
    before = {"estado": "radicada", "version": 1, "comisionista": "X"}
    after = {"estado": "retirada", "version": 2, "comisionista": "X"}
    assert [(c.field, c.before, c.after) for c in changes(before, after)] == [
        ("estado", "radicada", "retirada"),
        ("versión", "1", "2"),
    ]
