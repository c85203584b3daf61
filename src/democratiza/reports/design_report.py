"""The designs compared, as a self-contained HTML page and as a PDF, with two charts.

The Lorenz curves of every design on one chart (how evenly each spreads the shares among the
new shareholders), and the shares each design places against those it offers. The table is
``design_comparison.comparison_rows``: the figures a real offer's adjudication report gives.
The same designs give the same bytes (salted SVG ids, no creation date in the PDF).
"""

from __future__ import annotations

import io
from functools import partial
from pathlib import Path

import matplotlib
from markupsafe import Markup
from matplotlib.axes import Axes
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from democratiza.reports.design_comparison import (
    DesignFigures,
    comparison_csv,
    comparison_rows,
    short,
)
from democratiza.reports.render.charts import (
    BAR,
    DARK,
    LIGHT,
    WIDE,
    Width,
    bar_names,
    chart_style,
    integer_axis,
    legend,
    plain_axes,
    responsive_svg,
)
from democratiza.reports.render.files import atomic_write
from democratiza.reports.render.html import PAGES
from democratiza.reports.render.pdf import (
    A4_LANDSCAPE,
    MARGIN,
    column_widths,
    draw_table,
    metadata,
    pages_of_rows,
    row_height,
)
from democratiza.reports.render.text import wrap

TITLE = "Comparación de diseños del programa"
LINES = ("-", "--", "-.", ":")


def _lorenz(designs: list[DesignFigures], ax: Axes, width: Width) -> None:
    ax.plot([0, 1], [0, 1], color="#888888", linewidth=1, linestyle=(0, (1, 2)), label="Igualdad")
    palette = [DARK, BAR, LIGHT, "#e6550d", "#31a354", "#756bb1"]
    for i, d in enumerate(designs):
        f = d.figures
        if not f.nuevos_accionistas:
            continue
        xs = [p.personas / f.nuevos_accionistas for p in f.lorenz]
        ys = [p.acciones / f.acciones_adjudicadas for p in f.lorenz]
        ax.plot(
            xs,
            ys,
            color=palette[i % len(palette)],
            linestyle=LINES[i // len(palette) % len(LINES)],
            linewidth=2,
            label=short(d.name),
        )
    pct = FuncFormatter(lambda v, _: f"{round(v * 100)} %")
    ax.xaxis.set_major_formatter(pct)
    ax.yaxis.set_major_formatter(pct)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel(width.title("Adjudicatarios, de menos a más acciones (acumulado)"))
    ax.set_ylabel(width.title("Acciones adjudicadas (acumulado)"))
    legend(ax, width, loc="upper left", fontsize=8, framealpha=1.0, edgecolor="#bbbbbb")
    ax.grid(color="#eeeeee", linewidth=0.6)
    plain_axes(ax)


def _placement(designs: list[DesignFigures], ax: Axes, width: Width) -> None:
    names = [short(d.name) for d in designs]
    offered = [d.figures.acciones_adjudicadas + d.figures.acciones_no_adjudicadas for d in designs]
    placed = [d.figures.acciones_adjudicadas for d in designs]
    positions = [width.row(i) for i in range(len(designs))]
    ax.barh(positions, offered, color=LIGHT, height=0.8 * width.bars, label="Acciones ofrecidas")
    ax.barh(positions, placed, color=DARK, height=0.5 * width.bars, label="Acciones adjudicadas")
    bar_names(ax, width, names)
    integer_axis("x", ax, width)
    ax.set_xlabel("Acciones")
    legend(ax, width, loc="lower right", fontsize=8, framealpha=1.0, edgecolor="#bbbbbb")
    plain_axes(ax)


# Each chart's (title, inline SVG), as ``chart_svgs`` draws them.
Charts = list[tuple[str, str]]


# Each chart: its key, title, drawing, size (inches) and height on a phone (inches).
CHARTS = (
    ("lorenz", "Curvas de Lorenz de las adjudicaciones", _lorenz, (6.4, 6.0), 5.6),
    ("colocacion", "Acciones adjudicadas frente a las ofrecidas", _placement, (7.2, 4.2), 4.6),
)


def chart_svgs(designs: list[DesignFigures]) -> Charts:
    """(title, inline SVG for a wide screen and for a phone) of each chart: the report's, and
    the designer page's."""
    out = []
    for key, title, draw, size, tall in CHARTS:
        out.append((title, responsive_svg(partial(draw, designs), size, tall, title, key)))
    return out


_PAGE = """{% extends "informe.html" %}{% from "grafico.html" import grafico %}
{%- block ancho %}72rem{% endblock %}
{% block estilo %}.tabla { overflow-x: auto; } .tabla > table { display: table; }
td { text-align: right; font-variant-numeric: tabular-nums; }{% endblock %}
{% block cuerpo %}
<p class="nota">{{ program }}. Cada diseño se decide con las mismas reglas y se adjudica con
el mismo método de adjudicación que una oferta real, sobre la misma población.</p>
<h2>Cifras de cada diseño</h2>
<div class="tabla" tabindex="0" role="region" aria-label="Cifras de cada diseño"><table>
<thead><tr><th scope="col">Cifra</th>{% for name in names %}<th scope="col">{{ name }}</th>
{% endfor %}</tr></thead>
<tbody>
{% for label, values in rows %}<tr><th scope="row">{{ label }}</th>
{%- for v in values %}<td>{{ v }}</td>{% endfor %}</tr>
{% endfor %}</tbody></table></div>
<h2>Gráficos</h2>
{% for title, chart in charts %}{{ grafico(title, chart) }}
{% endfor %}
{% endblock %}
"""


def render_html(designs: list[DesignFigures], program: str, charts: Charts | None = None) -> str:
    """The comparison as a page; ``charts``: the designs' charts if already drawn."""
    drawn = chart_svgs(designs) if charts is None else charts
    return PAGES.from_string(_PAGE).render(
        title=TITLE,
        program=program,
        names=[d.name for d in designs],
        rows=comparison_rows(designs),
        charts=[(title, Markup(chart)) for title, chart in drawn],  # our own SVG
    )


def _table_pages(designs: list[DesignFigures], program: str) -> list[Figure]:
    """The comparison table on as many landscape pages as its rows need, the header on each:
    rows are as tall as their lines, never squeezed into one page (their text would overlap)."""
    fontsize, height = 6.5, A4_LANDSCAPE[1]
    header = ["Cifra", *(wrap(d.name, 22) for d in designs)]
    rows = [
        [wrap(label, 40), *(wrap(v, 22) for v in values)]
        for label, values in comparison_rows(designs)
    ]
    widths = column_widths([header, *rows])
    numeric = (False, *(True for _ in designs))
    top = 1.0  # inches from the page's top to the table
    runs = pages_of_rows(rows, fontsize, height - top - 0.4, row_height(header, fontsize))
    pages = []
    for n, run in enumerate(runs):
        fig = Figure(figsize=A4_LANDSCAPE)
        title = TITLE + (" (continuación)" if n else "")
        fig.text(MARGIN, 1 - 0.45 / height, title, fontsize=15, fontweight="bold", va="top")
        fig.text(
            MARGIN, 1 - 0.8 / height, wrap(program, 150), color="#555555", va="top", fontsize=9
        )
        cells = [header, *run]
        used = sum(row_height(c, fontsize) for c in cells)
        ax = fig.add_axes((MARGIN, 1 - (top + used) / height, 1 - 2 * MARGIN, used / height))
        draw_table(ax, cells, widths, numeric, fontsize, used, header=True, total=False)
        pages.append(fig)
    return pages


def render_pdf(designs: list[DesignFigures], program: str, path: Path) -> None:
    """The comparison as a PDF: the table, then a page a chart; written whole or not at all."""
    out = io.BytesIO()
    info = metadata(TITLE, program)
    with matplotlib.rc_context(chart_style()), PdfPages(out, metadata=info) as pdf:
        for page in _table_pages(designs, program):
            pdf.savefig(page)
        for _, title, draw, _size, _tall in CHARTS:
            fig = Figure(figsize=A4_LANDSCAPE, layout="constrained")
            fig.suptitle(title, x=0.02, ha="left", fontsize=14, fontweight="bold")
            draw(designs, fig.add_subplot(), WIDE)
            pdf.savefig(fig)
    atomic_write(path, out.getvalue())


def write_report(
    designs: list[DesignFigures], program: str, folder: Path, charts: Charts | None = None
) -> list[Path]:
    """The comparison's page, PDF and CSV in ``folder``; ``charts``: the designs' charts if
    already drawn (the designer's page shows the same ones: drawn once per request)."""
    folder.mkdir(parents=True, exist_ok=True)
    html_path, pdf_path, csv_path = (
        folder / "comparacion-disenos.html",
        folder / "comparacion-disenos.pdf",
        folder / "comparacion-disenos.csv",
    )
    atomic_write(html_path, render_html(designs, program, charts).encode("utf-8"))
    render_pdf(designs, program, pdf_path)
    atomic_write(csv_path, comparison_csv(designs))
    return [html_path, pdf_path, csv_path]
