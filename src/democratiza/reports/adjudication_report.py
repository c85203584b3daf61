"""Adjudication report: its figures as a self-contained HTML page and as a PDF.

The page has the offer's figures, the adjudication's results, the four charts (inline SVG)
and the tables behind them; the PDF has the figures on its first page, then one chart and
its table a page. Everything the reader sees is in Spanish, with Colombian numbers
(118.929 acciones; $ 2.018,50; 53,14 %). The same input gives the same bytes: chart ids are
salted with a fixed string and the files carry no creation date.
"""

from __future__ import annotations

import io
from fractions import Fraction
from pathlib import Path

import matplotlib
from markupsafe import Markup
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure

from democratiza.adjudication.figures import TITLES
from democratiza.labels import label
from democratiza.money import ROUNDING_WORDS, fixed, group, pesos, price_text, share_percent
from democratiza.reports.adjudication_charts import (
    AdjudicationChart,
    ChartTable,
    charts,
    gini_text,
    people,
)
from democratiza.reports.adjudication_figures import ReportFigures, ReportInput
from democratiza.reports.person_reductions import person_reductions
from democratiza.reports.render.charts import WIDE, chart_style, responsive_svg
from democratiza.reports.render.files import atomic_write
from democratiza.reports.render.html import PAGES
from democratiza.reports.render.pdf import (
    A4,
    MARGIN,
    column_widths,
    draw_table,
    key_value_table,
    metadata,
    pages_of_rows,
    row_height,
)
from democratiza.reports.render.text import long_date, wrap


def _offer_rows(inp: ReportInput) -> list[tuple[str, str]]:
    return [
        ("Programa", inp.programa_nombre),
        ("Acciones ofrecidas", group(inp.acciones_ofrecidas)),
        ("Precio por acción", price_text(inp.precio_centavos)),
        *_rounding(inp),
        *(("Precio ajustado tras una interrupción", a) for a in inp.ajustes_precio),
        (
            "Valor de la oferta" + (" al precio del aviso" if inp.ajustes_precio else ""),
            pesos(inp.acciones_ofrecidas * Fraction(inp.precio_centavos)),
        ),
        ("Fecha del aviso de oferta", long_date(inp.fecha_aviso)),
        ("Fecha de cierre", long_date(inp.fecha_cierre)),
        ("Método de adjudicación", label("metodo", inp.metodo)),
        ("Regla del remanente", label("residuo", inp.regla_remanente)),
        ("Huella de los datos de entrada", inp.hash_entrada),
    ]


def _rounding(inp: ReportInput) -> list[tuple[str, str]]:
    """How an award's amount is rounded, where the price is finer than a centavo."""
    price = Fraction(inp.precio_centavos)
    if price.denominator == 1:
        return []
    return [
        (
            "Valor a pagar de cada adjudicación",
            f"acciones × {price_text(price)}, {ROUNDING_WORDS}; el valor adjudicado es su suma",
        )
    ]


def _ratio(value: Fraction) -> str:
    if value == 1:
        return "1,00 veces la oferta (demanda igual a la oferta)"
    return f"{fixed(value, 2)} veces la oferta ({'sobredemanda' if value > 1 else 'subdemanda'})"


def _first_upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def _result_rows(f: ReportFigures) -> list[tuple[str, str]]:
    return [
        ("Aceptaciones recibidas", group(f.aceptaciones)),
        (
            "Aceptadas / reducidas / rechazadas en la adjudicación (con las otras "
            "radicaciones de la persona)",
            f"{group(f.aceptadas)} / {group(f.reducidas)} / {group(f.rechazadas)}",
        ),
        *([(_first_upper(TITLES["retiradas"]), group(f.retiradas))] if f.retiradas else []),
        ("Acciones solicitadas", group(f.acciones_solicitadas)),
        ("Demanda sobre oferta", _ratio(f.demanda_sobre_oferta)),
        ("Acciones permitidas por las reglas", group(f.acciones_permitidas)),
        ("Demanda admisible sobre oferta", _ratio(f.demanda_admisible_sobre_oferta)),
        ("Acciones adjudicadas", group(f.acciones_adjudicadas)),
        ("Porcentaje de la oferta colocado", share_percent(f.colocacion)),
        ("Acciones no adjudicadas", group(f.acciones_no_adjudicadas)),
        ("Valor adjudicado", pesos(f.valor_adjudicado_centavos)),
        ("Aceptaciones con acciones adjudicadas", group(f.adjudicaciones)),
        ("Adjudicadas por debajo de la cantidad permitida", group(f.prorrateadas)),
        ("Nuevos accionistas", group(f.nuevos_accionistas)),
        ("Coeficiente de Gini de las adjudicaciones", gini_text(f.gini)),
        (
            f"Participación del 1 % con más acciones ({people(f.top1_personas)})",
            share_percent(f.top1_participacion),
        ),
    ]


def chart_svg(chart: AdjudicationChart) -> str:
    """The chart as inline SVG for a wide screen and for a phone, text drawn as paths so
    that it looks the same everywhere."""
    # Four charts share the page: each one's ids (and references to them) get the chart's key.
    return responsive_svg(chart.draw, chart.size, chart.tall, chart.title, chart.key)


# ------------------------------------------------------------------------------------- HTML

_PAGE = """{% extends "informe.html" %}{% from "grafico.html" import grafico %}{% block cuerpo %}
<p class="sub">{{ program }}</p>

<h2>Cifras de la oferta</h2>
<table class="kv" tabindex="0" aria-label="Cifras de la oferta">
{% for label, value in offer %}<tr><th scope="row">{{ label }}</th><td>
{%- if loop.last %}<code>{{ value }}</code>{% else %}{{ value }}{% endif %}</td></tr>
{% endfor %}</table>

<h2>Resultados de la adjudicación</h2>
<table class="kv" tabindex="0" aria-label="Resultados de la adjudicación">
{% for label, value in results %}<tr><th scope="row">{{ label }}</th><td>{{ value }}</td></tr>
{% endfor %}</table>{% if caps %}
<h2>Topes conjuntos</h2>
{% for note in caps %}<p>{{ note }}</p>
{% endfor %}{% endif %}
<p class="nota">Nuevos accionistas: números de identificación distintos con al menos una acción
adjudicada. Coeficiente de Gini de las acciones adjudicadas por adjudicatario, calculado en
forma exacta: G = 2·Σ i·x<sub>i</sub> / (n·Σ x) − (n + 1) / n, con x<sub>1</sub> ≤ … ≤
x<sub>n</sub>. El 1 % con más acciones son los adjudicatarios que más recibieron, tantos como el
1 % de n redondeado hacia arriba (al menos uno); el 10 %, igual.</p>
{%- if reductions %}

<h2 id="reducidas-por-persona">Reducidas por las radicaciones anteriores de la misma persona</h2>
<p>{{ reductions.caption }}.</p>
<table tabindex="0" aria-label="Reducidas por la misma persona">
<thead><tr>{% for h in reductions.header %}<th scope="col">{{ h }}</th>{% endfor %}</tr></thead>
<tbody>
{% for row in reductions.rows %}<tr>{% for cell in row %}<td
{%- if reductions.numeric[loop.index0] %} class="n"{% endif %}>{{ cell }}</td>{% endfor %}</tr>
{% endfor %}</tbody>
</table>
{%- endif %}

<h2>Gráficos</h2>
{% for chart in charts %}
{{- grafico(chart.title, chart.svg, chart.caption, "grafico-" ~ chart.key) }}
{% endfor %}
<h2>Tablas de los gráficos</h2>
{% for chart in charts %}<h3 id="tabla-{{ chart.key }}">{{ chart.table.caption }}</h3>
<table tabindex="0" aria-label="{{ chart.table.caption }}">
<thead><tr>{% for h in chart.table.header %}<th scope="col"
{%- if chart.table.numeric[loop.index0] %} class="n"{% endif %}>{{ h }}</th>
{%- endfor %}</tr></thead>
<tbody>
{% for row in chart.table.rows %}<tr
{%- if chart.table.total and loop.last %} class="total"{% endif %}>
{%- for cell in row %}<td{% if chart.table.numeric[loop.index0] %} class="n"{% endif %}>
{{- cell }}</td>{% endfor %}</tr>
{% endfor %}</tbody>
</table>
{% endfor %}
{% endblock %}
"""


# Under the title, which names the program (its code is in the offer's figures, by its name).
SUBTITLE = "Ley 226 de 1995"


def _title(inp: ReportInput) -> str:
    return f"Informe de adjudicación — {inp.programa_nombre}"


def render_html(inp: ReportInput, figures: ReportFigures) -> str:
    shown = [
        {
            "key": c.key,
            "title": c.title,
            "caption": c.caption,
            "svg": Markup(chart_svg(c)),  # our own matplotlib output, not user text
            "table": c.table,
        }
        for c in charts(inp, figures)
    ]
    return PAGES.from_string(_PAGE).render(
        title=_title(inp),
        program=SUBTITLE,
        offer=_offer_rows(inp),
        results=_result_rows(figures),
        reductions=person_reductions(inp),
        charts=shown,
        caps=inp.topes_conjuntos,
    )


# -------------------------------------------------------------------------------------- PDF

PAGE_RECT = (0.05, 0.03, 0.9, 0.93)  # chart pages: left, bottom, width, height
PAGE_RATIOS = (5.4, 0.8, 4.0)  # chart pages: chart, caption, table
TABLE_AXES = (0.0, 0.08, 1.0, 0.9)  # the table inside its part of the page
TABLE_HEIGHT_IN = A4[1] * PAGE_RECT[3] * PAGE_RATIOS[2] / sum(PAGE_RATIOS) * TABLE_AXES[3]


CONTINUED_HEIGHT_IN = A4[1] * 0.84  # a table's later pages: under its caption


def _table_runs(t: ChartTable) -> tuple[list[str], list[list[str]], float, list[list[list[str]]]]:
    """A chart's table as the PDF draws it: its header and rows wrapped, their font size,
    and the rows in runs, the first under the chart, the others a page each, so that no row
    and no header is squeezed into the height of its cell."""
    header = [wrap(h, 34 if i == 0 else 14) for i, h in enumerate(t.header)]
    rows = [[wrap(r[0], 34), *r[1:]] for r in t.rows]
    fontsize = 7.5 if len(t.header) <= 4 else 7.0
    head = row_height(header, fontsize)
    first, *rest = pages_of_rows(rows, fontsize, TABLE_HEIGHT_IN, head)
    later = pages_of_rows([r for run in rest for r in run], fontsize, CONTINUED_HEIGHT_IN, head)
    return header, rows, fontsize, [first, *(later if rest else [])]


def _first_page(inp: ReportInput, f: ReportFigures) -> Figure:
    fig = Figure(figsize=A4)
    page_h = A4[1]
    title = wrap(_title(inp), 55)
    fig.text(MARGIN, 1 - 0.5 / page_h, title, fontsize=16, fontweight="bold", va="top")
    below = 0.5 + 0.3 * (title.count("\n") + 1) + 0.1
    fig.text(
        MARGIN,
        1 - below / page_h,
        SUBTITLE,
        color="#555555",
        va="top",
    )
    fig.text(1 - MARGIN, 0.02, "Página 1", fontsize=8, ha="right", color="#777777")
    bottom = key_value_table(fig, below + 0.7, "Cifras de la oferta", _offer_rows(inp))
    key_value_table(fig, bottom + 0.6, "Resultados de la adjudicación", _result_rows(f))
    return fig


def chart_pages(chart: AdjudicationChart, page: int) -> list[Figure]:
    """The chart, its caption and its table on page ``page``; a table longer than the page
    goes on over the next pages, its header on each."""
    header, rows, fontsize, runs = _table_runs(chart.table)
    widths = column_widths([header, *rows])
    fig = Figure(figsize=A4)
    fig.set_layout_engine("constrained", rect=PAGE_RECT)
    grid = fig.add_gridspec(3, 1, height_ratios=PAGE_RATIOS)
    top, middle, bottom = (fig.add_subfigure(grid[i]) for i in range(3))
    top.suptitle(chart.title, x=0.0, ha="left", fontsize=15, fontweight="bold")
    chart.draw(top.add_subplot(), WIDE)
    middle.text(0.0, 0.95, wrap(chart.caption, 105), fontsize=9.5, va="top")
    t = chart.table
    # The total row is the table's last: under the chart only when the table ends there.
    total = t.total and len(runs) == 1
    cells = [header, *runs[0]]
    draw_table(
        bottom.add_axes(TABLE_AXES),
        cells,
        widths,
        t.numeric,
        fontsize,
        TABLE_HEIGHT_IN,
        True,
        total,
    )
    bottom.text(1.0, 0.01, f"Página {page}", fontsize=8, ha="right", color="#777777")
    caption = f"{t.caption} (continuación)"
    return [
        fig,
        *(
            _table_page(
                caption,
                [header, *run],
                widths,
                t.numeric,
                fontsize,
                page + n,
                total=t.total and n == len(runs) - 1,
            )
            for n, run in enumerate(runs[1:], 1)
        ),
    ]


def _table_page(
    caption: str,
    cells: list[list[str]],
    widths: list[float],
    numeric: tuple[bool, ...],
    fontsize: float,
    page: int,
    total: bool = False,
) -> Figure:
    """A page of a table under its caption: its header (the first row) and rows, the last
    one in bold if ``total``."""
    fig = Figure(figsize=A4)
    fig.text(MARGIN, 0.965, wrap(caption, 78), fontsize=11, fontweight="bold", va="top")
    used = sum(row_height(c, fontsize) for c in cells)
    ax = fig.add_axes((MARGIN, 0.9 - used / A4[1], 1 - 2 * MARGIN, used / A4[1]))
    draw_table(ax, cells, widths, numeric, fontsize, used, True, total)
    fig.text(1 - MARGIN, 0.02, f"Página {page}", fontsize=8, ha="right", color="#777777")
    return fig


def reduction_pages(table: ChartTable, first: int) -> list[Figure]:
    """The reductions across a person's filings under their caption, as many pages as the
    rows need, the header on each: every radicado, rule and header whole in its cell."""
    fontsize, height = 7.0, A4[1] * 0.84
    header = [wrap(h, 16) for h in table.header]
    rows = [[r[0], wrap(r[1], 38), r[2], r[3], wrap(r[4], 20)] for r in table.rows]
    widths = column_widths([header, *rows])
    runs = pages_of_rows(rows, fontsize, height, row_height(header, fontsize))
    return [
        _table_page(
            table.caption + (" (continuación)" if n else ""),
            [header, *run],
            widths,
            table.numeric,
            fontsize,
            first + n,
        )
        for n, run in enumerate(runs)
    ]


def _notes_page(title: str, notes: tuple[str, ...], page: int) -> Figure:
    """A page of notes under a title: what each joint cap of the program did, with its
    article and arithmetic, as the HTML report says it."""
    fig = Figure(figsize=A4)
    fig.text(MARGIN, 0.96, title, fontsize=15, fontweight="bold", va="top")
    fig.text(MARGIN, 0.91, "\n\n".join(wrap(n, 95) for n in notes), fontsize=9.5, va="top")
    fig.text(1 - MARGIN, 0.02, f"Página {page}", fontsize=8, ha="right", color="#777777")
    return fig


def render_pdf(inp: ReportInput, figures: ReportFigures, path: Path) -> None:
    """The report as a PDF: the figures on the first page, then one chart and its table a page.

    Written whole or not at all (``atomic_write``): a failure leaves no half file.
    """
    info = metadata(_title(inp), f"Adjudicación del programa {inp.programa_id} (Ley 226 de 1995)")
    out = io.BytesIO()
    with matplotlib.rc_context(chart_style()), PdfPages(out, metadata=info) as pdf:
        pdf.savefig(_first_page(inp, figures))
        page = 2
        for chart in charts(inp, figures):
            for figure in chart_pages(chart, page):
                pdf.savefig(figure)
                page += 1
        if inp.topes_conjuntos:
            pdf.savefig(_notes_page("Topes conjuntos", inp.topes_conjuntos, page))
            page += 1
        reductions = person_reductions(inp)
        if reductions is not None:
            for figure in reduction_pages(reductions, page):
                pdf.savefig(figure)
    atomic_write(path, out.getvalue())
