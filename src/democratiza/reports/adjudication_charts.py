"""Adjudication report, its charts: demand by category, the limits that bound, the
distribution of the awards and their concentration, each with the table of its figures.

Each chart is a drawing function and a table (``AdjudicationChart``): the HTML page shows
both, the PDF gives each its page. Only the drawing uses floating point.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from matplotlib.axes import Axes
from matplotlib.ticker import FuncFormatter

from democratiza.adjudication.figures import TITLES
from democratiza.labels import label
from democratiza.money import fixed, group, share_percent
from democratiza.reports.adjudication_figures import HistogramBin, ReportFigures, ReportInput
from democratiza.reports.render.charts import (
    BAR,
    DARK,
    LIGHT,
    Draw,
    Width,
    bar_names,
    empty_chart,
    integer_axis,
    legend,
    plain_axes,
)

COLORS = {"solicitadas": LIGHT, "permitidas": BAR, "adjudicadas": DARK}


def shares_range(b: HistogramBin) -> str:
    """A histogram bin's shares: '5' or '10 a 19'."""
    return group(b.desde) if b.desde == b.hasta else f"{group(b.desde)} a {group(b.hasta)}"


def _category(names: Mapping[str, str], key: str) -> str:
    """A category's name (the program's), or the family's word for it."""
    return names.get(key) or label("categoria", key)


def _rule(names: Mapping[str, str], key: str) -> str:
    """A limit's name, as its decree writes it."""
    return names.get(key) or label("regla", key)


def rule_cited(inp: ReportInput, key: str) -> str:
    """A limit's name with its article: 'Una vez el patrimonio líquido (Decreto 706/2017 art.
    8.2.1)'; the decision files name it so too (``regla_limitante_cita``)."""
    where = inp.citas_reglas.get(key)
    return (
        f"{_rule(inp.nombres_reglas, key)} ({where})" if where else _rule(inp.nombres_reglas, key)
    )


@dataclass(frozen=True)
class ChartTable:
    """The figures behind a chart, as the page and the PDF show them under it."""

    caption: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: tuple[bool, ...]  # right-aligned columns
    total: bool = False  # the last row is a total


@dataclass(frozen=True)
class AdjudicationChart:
    """A chart of the report: how to draw it for a width, its size (inches) and its height
    on a phone (``tall``, inches), and the table of its figures."""

    key: str
    title: str
    caption: str
    draw: Draw
    size: tuple[float, float]
    tall: float
    table: ChartTable


def people(n: int) -> str:
    """'1 adjudicatario', '1.234 adjudicatarios'."""
    return "1 adjudicatario" if n == 1 else f"{group(n)} adjudicatarios"


def gini_text(gini: Fraction | None) -> str:
    """The Gini coefficient to four decimals; '—' without awardees."""
    return "—" if gini is None else fixed(gini, 4)


def _draw_categories(inp: ReportInput, f: ReportFigures) -> Draw:
    def draw(ax: Axes, width: Width) -> None:
        rows = f.por_categoria
        if not rows:
            empty_chart(ax, "No hay aceptaciones.")
            return
        height = 0.27 * width.bars
        series = (
            ("Solicitadas", COLORS["solicitadas"], [r.acciones_solicitadas for r in rows]),
            (
                "Permitidas por las reglas",
                COLORS["permitidas"],
                [r.acciones_permitidas for r in rows],
            ),
            ("Adjudicadas", COLORS["adjudicadas"], [r.acciones_adjudicadas for r in rows]),
        )
        for j, (name, color, values) in enumerate(series):
            ax.barh(
                [width.row(i) + (j - 1) * height for i in range(len(rows))],
                values,
                height=height,
                color=color,
                label=name,
            )
        bar_names(ax, width, [_category(inp.nombres_categorias, r.categoria) for r in rows])
        integer_axis("x", ax, width)
        ax.set_xlabel("Acciones")
        ax.grid(axis="x", color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)
        legend(
            ax,
            width,
            loc="lower center",
            bbox_to_anchor=(0.5, 1.0),
            ncols=3,
            frameon=False,
            fontsize=9,
        )
        plain_axes(ax)

    return draw


def _draw_limits(inp: ReportInput, f: ReportFigures) -> Draw:
    def draw(ax: Axes, width: Width) -> None:
        rows = f.limites
        if not rows:
            empty_chart(ax, "Ningún límite determinó la cantidad de una aceptación.")
            return
        counts = [r.aceptaciones for r in rows]
        rows_at = [width.row(i) for i in range(len(rows))]
        bars = ax.barh(rows_at, counts, height=0.6 * width.bars, color=BAR)
        bar_names(ax, width, [_rule(inp.nombres_reglas, r.regla) for r in rows])
        ax.bar_label(bars, [group(c) for c in counts], padding=3, fontsize=9)
        ax.set_xlim(0, max(counts) * (1.3 if width.narrow else 1.15))  # room for the labels
        integer_axis("x", ax, width)
        ax.set_xlabel("Aceptaciones")
        plain_axes(ax)

    return draw


def _draw_histogram(f: ReportFigures) -> Draw:
    def draw(ax: Axes, width: Width) -> None:
        bins = f.histograma
        if not bins:
            empty_chart(ax, "No hubo adjudicaciones.")
            return
        counts = [b.adjudicaciones for b in bins]
        bars = ax.bar(range(len(bins)), counts, width=0.8, color=BAR)
        labels = [shares_range(b).replace(" a ", "–") for b in bins]
        # On a phone the ranges stand upright: one letter's height per bar.
        upright = width.narrow and len(bins) > 4
        rotate = upright or len(bins) > 8 or max(len(s) for s in labels) > 9
        ax.set_xticks(
            range(len(bins)),
            labels,
            rotation=(90 if upright else 45) if rotate else 0,
            ha="right" if rotate else "center",
            va="center" if upright else "top",
            rotation_mode="anchor",
        )
        # Beyond that the labels touch; the table has the numbers.
        if len(bins) <= (4 if width.narrow else 10):
            ax.bar_label(bars, [group(c) if c else "" for c in counts], padding=2, fontsize=8)
        ax.set_ylim(0, max(counts) * 1.12)
        integer_axis("y", ax, width)
        ax.set_xlabel(
            width.title("Acciones adjudicadas en la aceptación (escala logarítmica: 1, 2, 5, 10…)")
        )
        ax.set_ylabel("Aceptaciones")
        plain_axes(ax)

    return draw


def _draw_lorenz(f: ReportFigures) -> Draw:
    def draw(ax: Axes, width: Width) -> None:
        n, total = f.nuevos_accionistas, f.acciones_adjudicadas
        if not n:
            empty_chart(ax, "No hubo adjudicaciones.")
            return
        xs = [p.personas / n for p in f.lorenz]
        ys = [p.acciones / total for p in f.lorenz]
        ax.plot([0, 1], [0, 1], color="#888888", linestyle="--", linewidth=1, label="Igualdad")
        ax.plot(xs, ys, color=DARK, linewidth=2, label="Curva de Lorenz")
        ax.fill_between(xs, ys, xs, color=COLORS["solicitadas"], alpha=0.5, linewidth=0)
        pct = FuncFormatter(lambda v, _: f"{round(v * 100)} %")
        ax.xaxis.set_major_formatter(pct)
        ax.yaxis.set_major_formatter(pct)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_aspect("equal")
        ax.set_xlabel(width.title("Adjudicatarios, de menos a más acciones (acumulado)"))
        ax.set_ylabel(width.title("Acciones adjudicadas (acumulado)"))
        # The curve stays under the diagonal: the upper left corner is always free.
        legend(
            ax,
            width,
            loc="upper left",
            title=f"Gini = {gini_text(f.gini)}",
            title_fontproperties={"size": 10, "weight": "bold"},
            alignment="left",
            fontsize=9,
            framealpha=1.0,
            edgecolor="#bbbbbb",
        )
        ax.grid(color="#eeeeee", linewidth=0.6)
        plain_axes(ax)

    return draw


def charts(inp: ReportInput, f: ReportFigures) -> list[AdjudicationChart]:
    """The report's four charts, in the order of the page."""
    names_c = inp.nombres_categorias
    categories = ChartTable(
        "Demanda y adjudicación por categoría",
        (
            "Categoría",
            "Aceptaciones",
            "Rechazadas",
            "Acciones solicitadas",
            "Acciones permitidas",
            "Acciones adjudicadas",
            "Adjudicatarios",
        ),
        (
            *(
                (
                    _category(names_c, r.categoria),
                    group(r.aceptaciones),
                    group(r.rechazadas),
                    group(r.acciones_solicitadas),
                    group(r.acciones_permitidas),
                    group(r.acciones_adjudicadas),
                    group(r.adjudicatarios),
                )
                for r in f.por_categoria
            ),
            (
                "Total",
                group(f.aceptaciones),
                group(f.rechazadas),
                group(f.acciones_solicitadas),
                group(f.acciones_permitidas),
                group(f.acciones_adjudicadas),
                group(f.nuevos_accionistas),
            ),
        ),
        (False, *[True] * 6),
        total=True,
    )
    limits = ChartTable(
        TITLES["limites_adjudicacion"],
        ("Límite", "Aceptaciones", "Acciones recortadas"),
        (
            *(
                (rule_cited(inp, r.regla), group(r.aceptaciones), group(r.acciones_recortadas))
                for r in f.limites
            ),
            ("Sin límite determinante", group(f.sin_limite), "—"),
        ),
        (False, True, True),
    )
    histogram = ChartTable(
        "Distribución de las adjudicaciones",
        ("Acciones adjudicadas", "Aceptaciones", "Acciones", "Porcentaje de las acciones"),
        tuple(
            (
                shares_range(b),
                group(b.adjudicaciones),
                group(b.acciones),
                share_percent(Fraction(b.acciones, f.acciones_adjudicadas)),
            )
            for b in f.histograma
        ),
        (False, True, True, True),
    )
    concentration = ChartTable(
        "Concentración",
        ("Adjudicatarios con menos acciones", "Personas", "Acciones", "Porcentaje de las acciones"),
        tuple(
            (
                f"{10 * (i + 1)} %",
                group(p.personas),
                group(p.acciones),
                share_percent(Fraction(p.acciones, f.acciones_adjudicadas))
                if f.acciones_adjudicadas
                else "—",
            )
            for i, p in enumerate(f.deciles)
        ),
        (False, True, True, True),
    )
    rules_count = len(f.limites)
    bins = len(f.histograma)
    cats = len(f.por_categoria)
    return [
        AdjudicationChart(
            "categorias",
            "Demanda y adjudicación por categoría",
            "Acciones solicitadas, acciones que las reglas del programa permitían y acciones "
            "adjudicadas, por categoría de destinatario. Las categorías van de mayor a menor "
            "demanda.",
            _draw_categories(inp, f),
            (8.0, max(3.0, 1.4 + 0.7 * cats)),
            max(4.0, 1.9 + 1.1 * cats),
            categories,
        ),
        AdjudicationChart(
            "limites",
            TITLES["limites_adjudicacion"],
            "Número de aceptaciones cuya cantidad permitida fijó cada límite (la regla "
            f"limitante). Otras {group(f.sin_limite)} aceptaciones no tuvieron límite "
            "determinante: se permitió lo solicitado o se rechazaron por otra causa.",
            _draw_limits(inp, f),
            (8.0, max(2.4, 1.2 + 0.5 * rules_count)),
            max(2.8, 1.2 + 0.8 * rules_count),
            limits,
        ),
        AdjudicationChart(
            "histograma",
            "Distribución de las adjudicaciones",
            (
                f"Las {group(f.adjudicaciones)} aceptaciones con acciones adjudicadas, según "
                "cuántas acciones recibieron. Los rangos crecen en escala logarítmica (1, 2, 5, "
                "10, 20, 50…), tres por cada potencia de diez."
            )
            if f.adjudicaciones
            else "No hubo adjudicaciones.",
            _draw_histogram(f),
            (8.0, 4.2 if bins <= 8 else 4.6),
            4.4,
            histogram,
        ),
        AdjudicationChart(
            "concentracion",
            "Concentración",
            (
                f"Curva de Lorenz de las acciones adjudicadas entre los "
                f"{group(f.nuevos_accionistas)} adjudicatarios (las aceptaciones de un mismo "
                "número de identificación se suman); cuanto más se aleja de la diagonal, más "
                f"concentradas. Coeficiente de Gini: {gini_text(f.gini)}. El 1 % con más "
                f"acciones ({people(f.top1_personas)}) recibió "
                f"{share_percent(f.top1_participacion)} "
                f"de las acciones; el 10 % ({people(f.top10_personas)}), "
                f"{share_percent(f.top10_participacion)}."
            )
            if f.nuevos_accionistas
            else "No hubo adjudicaciones: no hay curva de Lorenz ni coeficiente de Gini.",
            _draw_lorenz(f),
            (6.0, 5.4),
            4.6,
            concentration,
        ),
    ]
