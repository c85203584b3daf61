"""The columnar engine against the plain Decimal reference, on generated acceptances.

Hypothesis draws whole batches (so the columnar path is what is tested) with amounts that
sit exactly on a share boundary, one centavo or one peso either side, or anywhere.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from democratiza.programs.loader import load_program
from democratiza.programs.parameters import Offer, make_offer
from democratiza.rules.engine import CompiledProgram, frame_from_rows, limit_column
from democratiza.vocabulary import CATEGORIES, UNDERTAKINGS
from tests.reference import reference_evaluate

OFFERS: dict[str, dict[str, object]] = {
    "geb-2017": {"trm": "2984.37", "fecha_aviso": "2017-12-22", "fecha_cierre": "2018-02-26"},
    "coltel-2018": {"fecha_corte_directivos": "2018-08-02", "fecha_cierre": "2018-10-05"},
    "ebsa": {
        "precio": "853.17",
        "acciones_ofrecidas": "1000",
        "fecha_corte_directivos": "2010-01-01",
        "fecha_cierre": "2010-12-01",
    },
    "central-seguros-vida": {"precio": "1234.56", "acciones_ofrecidas": "1000"},
}
PROGRAM_OFFERS = {pid: make_offer(load_program(pid), params) for pid, params in OFFERS.items()}


def near_boundary(price: int) -> st.SearchStrategy[int]:
    """Centavo amounts at k × price, or one centavo / one peso either side, or anywhere."""
    k = st.integers(min_value=0, max_value=10**9)
    offsets = st.sampled_from([0, -1, 1, -100, 100])
    on_edge = st.builds(lambda n, d: max(0, n * price + d), k, offsets)
    anywhere = st.integers(min_value=0, max_value=10**17)
    return st.one_of(on_edge, anywhere)


def optional(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), strategy, strategy, strategy)


@st.composite
def acceptance(draw: st.DrawFn, price: int) -> dict[str, Any]:
    money = optional(near_boundary(price))
    row: dict[str, Any] = {
        "referencia": "R",
        "comisionista": "B",
        "fecha_radicacion": datetime(2018, 1, 15),
        "tipo_identificacion": "CC",
        "numero_identificacion": "1",
        "nombre": "N",
        "categoria": draw(st.sampled_from(CATEGORIES)),
        "cantidad": draw(st.integers(min_value=0, max_value=10**13)),
        "forma_pago": draw(st.sampled_from(["contado", "credito", "cesantias"])),
        "obligado_declarar": draw(st.booleans()),
        "extranjero": draw(st.booleans()),
        "directivo": draw(st.booleans()),
        "fecha_ingreso_directivo": draw(
            st.one_of(st.none(), st.dates(min_value=date(2000, 1, 1), max_value=date(2019, 1, 1)))
        ),
        "meses_en_cargo": draw(optional(st.integers(min_value=0, max_value=480))),
        "ingresos_usd": draw(optional(st.integers(min_value=0, max_value=10**12))),
        "estado_certificado": draw(
            optional(st.sampled_from(["activo", "pensionado", "extrabajador"]))
        ),
        **dict.fromkeys(UNDERTAKINGS, True),
    }
    for column in (
        "patrimonio_liquido",
        "ingresos_declaracion",
        "ingresos_certificado",
        "remuneracion_anual",
        "salario_mensual",
        "activos_totales",
        "pasivos_totales",
        "superavit_valorizacion",
        "ingresos_estados_financieros",
        "limite_inversion",
    ):
        row[column] = draw(money)
    return row


def check_against_reference(offer: Offer, rows: list[dict[str, Any]]) -> None:
    frame = frame_from_rows(rows)
    results = CompiledProgram(offer).evaluate(frame)
    rules = offer.program.limits
    for typed, engine in zip(
        frame.iter_rows(named=True), results.iter_rows(named=True), strict=True
    ):
        expected = reference_evaluate(offer, typed)
        for rule in rules:
            assert engine[limit_column(rule)] == expected.limits[rule.id], (rule.id, typed)
        if engine["causas"] == 0:
            assert engine["cantidad_permitida"] == expected.permitted, typed
            if engine["decision"] == "reducida":
                assert engine["regla_limitante"] == expected.binding, typed


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_engine_agrees_with_reference_on_generated_batches(data: st.DataObject) -> None:
    program_id = data.draw(st.sampled_from(sorted(PROGRAM_OFFERS)))
    offer = PROGRAM_OFFERS[program_id]
    rows = data.draw(st.lists(acceptance(offer.price_centavos), min_size=1, max_size=60))
    check_against_reference(offer, rows)


def test_engine_agrees_with_reference_on_thousands_of_boundary_cases() -> None:
    """Deterministic sweep: every amount k × price + d for d in {-100, -1, 0, 1, 100}."""
    for offer in PROGRAM_OFFERS.values():
        price = offer.price_centavos
        rows = []
        for k in range(0, 2_000, 3):
            for d in (-100, -1, 0, 1, 100):
                amount = max(0, k * 7_919 * price + d)
                rows.append(
                    {
                        "referencia": "R",
                        "categoria": CATEGORIES[k % len(CATEGORIES)],
                        "cantidad": k * 7_919,
                        "forma_pago": "contado",
                        "fecha_radicacion": datetime(2018, 1, 15),
                        "obligado_declarar": k % 2 == 0,
                        "directivo": k % 5 == 0,
                        "remuneracion_anual": amount // 5,
                        "patrimonio_liquido": amount,
                        "ingresos_declaracion": amount // 5,
                        "ingresos_certificado": amount,
                        "activos_totales": amount * 2,
                        "pasivos_totales": amount // 2,
                        "superavit_valorizacion": amount // 3,
                        "ingresos_estados_financieros": amount // 4,
                        "limite_inversion": amount,
                    }
                )
        check_against_reference(offer, rows)
        assert len(rows) > 3_000


def test_a_single_acceptance_is_a_batch_of_one() -> None:
    """The calculator's answer for one row equals that row's answer inside a batch."""
    offer = PROGRAM_OFFERS["geb-2017"]
    rows = [
        {
            "referencia": str(i),
            "categoria": "trabajador_activo",
            "cantidad": 10**6,
            "forma_pago": "contado",
            "fecha_radicacion": datetime(2018, 1, 15),
            "obligado_declarar": True,
            "patrimonio_liquido": 10**9 + i * 997,
            "ingresos_declaracion": 10**8 + i,
            **dict.fromkeys(UNDERTAKINGS, True),
        }
        for i in range(50)
    ]
    compiled = CompiledProgram(offer)
    batch = compiled.evaluate(frame_from_rows(rows)).drop("fila")
    singles = pl.concat([compiled.evaluate(frame_from_rows([r])).drop("fila") for r in rows])
    assert batch.equals(singles)
