"""One person, many acceptances (dominio.md §3): worked examples."""

from __future__ import annotations

from datetime import datetime

import polars as pl

from democratiza.rules.person import per_person


def filings() -> pl.DataFrame:
    # Person 1 files four times (one rejected); their smallest limit is 900 shares.
    return pl.DataFrame(
        {
            "tipo_identificacion": ["CC"] * 5,
            "numero_identificacion": ["1", "1", "1", "1", "2"],
            "fecha_radicacion": [datetime(2018, 1, d) for d in (3, 1, 2, 4, 1)],
            "radicado": ["c", "a", "b", "d", "e"],
            "cantidad_permitida": [300, 500, 400, 100, 50],
            "limite_minimo": [1_000, 900, 1_200, None, None],
            "decision": ["aceptada", "aceptada", "reducida", "rechazada", "aceptada"],
        }
    )


def test_the_limit_is_consumed_in_filing_order_and_the_latest_is_reduced() -> None:
    out = per_person(filings()).select("radicado", "cantidad_persona", "usado_antes")
    assert out.rows() == [
        ("a", 500, 0),  # first filed: all 500
        ("b", 400, 500),  # 500 + 400 = 900, exactly the limit
        ("c", 0, 900),  # filed last among the valid ones: nothing left
        ("d", 0, 900),  # rejected: takes nothing
        ("e", 50, 0),  # another person, no limit applied
    ]


def test_a_reduced_acceptance_names_the_filings_that_used_the_limit() -> None:
    out = per_person(filings()).select("radicado", "consumido_por")
    assert out.rows() == [("a", None), ("b", None), ("c", "a, b"), ("d", None), ("e", None)]
