"""The public statistics of a published offer: headline figures and charts, no one named.

What anyone may read once the results are published (Ley 226 de 1995 art. 3: the sale is
public, its results too): how much was offered, asked, permitted and placed, how many
acceptances and new shareholders, how the awards fell by category and how concentrated they
are. Counts of shares and of acceptances only: no name, no identification number and no
financial figure of anyone (Ley 1581 de 2012), not even aggregated in pesos. The figures and
the charts are the adjudication report's own (``adjudication_figures``,
``adjudication_charts``): one computation, shown in two places.

A later stage's (``stage_statistics``) are its report's too (``stage_report``): shares
offered, orders, valid demand, the single price, shares allocated and buyers, and the demand
curve with the table of its figures. Prices are the stage's, public like the sale; no order's
sum to pay.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from democratiza.labels import label
from democratiza.money import fixed, group, pesos, share_percent
from democratiza.reports.adjudication_charts import ChartTable, charts, gini_text, people
from democratiza.reports.adjudication_figures import ReportFigures, ReportInput
from democratiza.reports.adjudication_report import chart_svg
from democratiza.reports.stage_report import (
    DEMAND_CAPTION,
    DEMAND_TITLE,
    buyers,
    clearing_point,
    demand_svg,
    demand_table,
)
from democratiza.stages.allocate import StageAllocation
from democratiza.stages.lifecycle import StoredStage

# The report's charts that name no one and carry no figure in pesos, in the page's order.
PUBLIC_CHARTS = ("categorias", "histograma", "concentracion")


@dataclass(frozen=True)
class Headline:
    """One headline figure: its value as read, what it is, and an optional note."""

    value: str
    name: str
    note: str = ""


@dataclass(frozen=True)
class PublicChart:
    key: str
    title: str
    caption: str
    svg: str  # drawn by matplotlib from exact figures: our own markup, not user text
    table: ChartTable


@dataclass(frozen=True)
class PublicStatistics:
    headline: tuple[Headline, ...]
    placement: tuple[tuple[str, int], ...]  # shares offered, asked, permitted, awarded
    method: str  # the allocation method and its remainder rule, in words
    charts: tuple[PublicChart, ...]


def headline(inp: ReportInput, f: ReportFigures) -> tuple[Headline, ...]:
    def times(n: int) -> str:
        return f"{fixed(Fraction(n, inp.acciones_ofrecidas), 2)} veces la oferta"

    return (
        Headline(group(inp.acciones_ofrecidas), "acciones ofrecidas"),
        Headline(group(f.aceptaciones), "aceptaciones recibidas"),
        Headline(
            group(f.acciones_solicitadas), "acciones solicitadas", times(f.acciones_solicitadas)
        ),
        Headline(
            group(f.acciones_permitidas),
            "acciones permitidas por las reglas",
            times(f.acciones_permitidas),
        ),
        Headline(
            group(f.acciones_adjudicadas),
            "acciones adjudicadas",
            f"{share_percent(f.colocacion)} de la oferta colocado",
        ),
        Headline(group(f.acciones_no_adjudicadas), "acciones no adjudicadas"),
        Headline(group(f.nuevos_accionistas), "nuevos accionistas"),
        Headline(group(f.prorrateadas), "aceptaciones adjudicadas por debajo de lo permitido"),
        Headline(gini_text(f.gini), "coeficiente de Gini de las adjudicaciones"),
        Headline(
            share_percent(f.top1_participacion) if f.top1_participacion is not None else "—",
            f"de las acciones, al 1 % con más acciones ({people(f.top1_personas)})",
        ),
    )


def placement(inp: ReportInput, f: ReportFigures) -> tuple[tuple[str, int], ...]:
    """What was offered, asked, permitted by the rules and awarded, in shares."""
    return (
        ("Acciones ofrecidas", inp.acciones_ofrecidas),
        ("Acciones solicitadas", f.acciones_solicitadas),
        ("Permitidas por las reglas", f.acciones_permitidas),
        ("Acciones adjudicadas", f.acciones_adjudicadas),
    )


def public_statistics(inp: ReportInput, f: ReportFigures) -> PublicStatistics:
    """The page's figures and charts (each chart with the table of its figures)."""
    drawn = tuple(
        PublicChart(c.key, c.title, c.caption, chart_svg(c), c.table)
        for c in charts(inp, f)
        if c.key in PUBLIC_CHARTS
    )
    method = (
        f"{label('metodo', inp.metodo)}; remanente: {label('residuo', inp.regla_remanente).lower()}"
    )
    return PublicStatistics(headline(inp, f), placement(inp, f), method, drawn)


@dataclass(frozen=True)
class PublicStageStatistics:
    headline: tuple[Headline, ...]
    method: str  # the mechanism, in words
    chart: PublicChart  # the demand curve and its table


def stage_statistics(stage: StoredStage, done: StageAllocation) -> PublicStageStatistics:
    """A published later stage's figures and its demand curve (with the table of its figures)."""
    h = done.header
    offered = stage.shares
    demand, allocated = int(str(h["demanda_valida"])), int(str(h["asignadas"]))
    price = h["precio"]
    assert price is None or isinstance(price, int)

    def times(n: int) -> str:
        return f"{fixed(Fraction(n, offered), 2)} veces la oferta" if offered else ""

    figures = (
        Headline(
            group(offered),
            "acciones ofrecidas en la etapa",
            f"de {group(int(stage.origin['disponibles']))} disponibles",
        ),
        Headline(pesos(stage.minimum_price), "precio mínimo por acción"),
        Headline(group(done.results.height), "órdenes recibidas"),
        Headline(group(int(str(h["ordenes_validas"]))), "órdenes válidas"),
        Headline(group(demand), "acciones pedidas en las órdenes válidas", times(demand)),
        Headline(pesos(price) if price is not None else "—", "precio único de adjudicación"),
        Headline(
            group(allocated),
            "acciones asignadas",
            f"{share_percent(Fraction(allocated, offered))} de la oferta colocado"
            if offered
            else "",
        ),
        Headline(group(offered - allocated), "acciones no asignadas"),
        Headline(group(buyers(done)), "compradores"),
    )
    chart = PublicChart(
        "demanda",
        DEMAND_TITLE,
        DEMAND_CAPTION,
        demand_svg(stage, done.curve, clearing_point(done)),
        demand_table(done.curve, price),
    )
    return PublicStageStatistics(figures, label("mecanismo", stage.terms.mechanism), chart)
