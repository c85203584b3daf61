"""The acceptances the per-person aggregation reduced, as the adjudication report lists them.

A person who files more than once (through one broker or several) has one limit; the filings
received first use it, and a later one is reduced to what is left (``rules.person``). The
report names each such acceptance with the rule that bound it, its article and the filings
that used the limit before it, so the reduction is explained where the figures are.
"""

from __future__ import annotations

import polars as pl

from democratiza.money import group
from democratiza.reports.adjudication_charts import ChartTable, rule_cited
from democratiza.reports.adjudication_figures import ReportInput

HEADER = (
    "Radicado",
    "Límite que determinó la cantidad",
    "Cantidad permitida",
    "Lo que dejaron los límites de la persona",
    "Radicaciones anteriores que usaron el límite",
)


def person_reductions(inp: ReportInput) -> ChartTable | None:
    """The reduced acceptances in the order of the results; None when there are none."""
    if "consumido_por" not in inp.awards.columns:
        return None
    reduced = inp.awards.filter(pl.col("consumido_por").is_not_null())
    if reduced.is_empty():
        return None
    rows = []
    for r in reduced.iter_rows(named=True):
        rule = r["regla_limitante"]
        cited = rule_cited(inp, rule) if rule else "—"
        rows.append(
            (
                r["radicado"],
                cited,
                group(r["cantidad_permitida"]),
                group(r["cantidad_persona"]),
                r["consumido_por"] or "—",
            )
        )
    return ChartTable(
        "Aceptaciones reducidas por lo que usaron las radicaciones anteriores de la misma "
        "persona (el límite es de la persona, no de cada aceptación)",
        HEADER,
        tuple(rows),
        (False, False, True, True, False),
    )
