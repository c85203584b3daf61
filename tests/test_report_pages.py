"""The PDF reports read whole: a long table goes on as many pages as it needs, each with
its header, and no radicado, rule or header is cut at its cell's edge (the tables under the
charts too).

Worked example: 70 acceptances reduced by the person's earlier filings, each bound by
«Cinco veces los ingresos anuales (Programa Central de Seguros de Vida (Primera Fase)
A.2(ii))»: at 7 points a row of three lines is 0,46 in tall, so about 20 rows fit a page
and the list takes 4 pages; pdftotext reads every radicado ("CLYF-000001-0000070") whole.
"""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import matplotlib
import pytest
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure
from matplotlib.table import Table

from democratiza.reports.adjudication_charts import AdjudicationChart, ChartTable
from democratiza.reports.adjudication_report import chart_pages, reduction_pages
from democratiza.reports.person_reductions import HEADER
from democratiza.reports.render.charts import Width, chart_style
from democratiza.reports.render.pdf import line_height, pages_of_rows, row_height

RULE = (
    "Cinco veces los ingresos anuales (Programa Central de Seguros de Vida (Primera Fase) A.2(ii))"
)
CAPTION = (
    "Aceptaciones reducidas por lo que usaron las radicaciones anteriores de la misma "
    "persona (el límite es de la persona, no de cada aceptación)"
)
ROWS = tuple(
    (f"CLYF-000001-{n:07d}", RULE, "160.159", "67.707", f"MFZJ-000001-{n:07d}")
    for n in range(1, 71)
)


def pdf_pages(path: Path) -> list[str]:
    """The text of each page of the PDF at ``path``, as pdftotext reads it."""
    out = subprocess.run(
        ["pdftotext", "-raw", str(path), "-"], check=True, capture_output=True, text=True
    )
    return out.stdout.split("\f")


def test_rows_go_on_as_many_pages_as_they_need_and_each_fits() -> None:
    rows = [["a"], ["b\nc"], ["d"]] * 10
    runs = pages_of_rows(rows, 7.0, 2.0, row_height(["x"], 7.0))
    assert [r for run in runs for r in run] == rows  # every row, once, in order
    for run in runs:
        assert row_height(["x"], 7.0) + sum(row_height(r, 7.0) for r in run) <= 2.0
    assert row_height(["b\nc"], 7.0) == pytest.approx(2.8 * line_height(7.0))  # two lines + padding


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="sin pdftotext (poppler-utils)")
def test_the_reductions_pages_keep_every_radicado_rule_and_header_whole(tmp_path: Path) -> None:
    table = ChartTable(CAPTION, HEADER, ROWS, (False, False, True, True, False))
    out = io.BytesIO()
    with matplotlib.rc_context(chart_style()), PdfPages(out) as pdf:
        figures = reduction_pages(table, 6)
        for figure in figures:
            pdf.savefig(figure)
    assert len(figures) == 4
    path = tmp_path / "informe.pdf"
    path.write_bytes(out.getvalue())
    pages = pdf_pages(path)
    shown = " ".join(" ".join(pages).split())
    for radicado, *_, earlier in ROWS:
        assert radicado in shown and earlier in shown
    assert " ".join(CAPTION.split()) in shown
    assert shown.count("Programa Central de Seguros de Vida (Primera Fase) A.2(ii))") == 70
    for n, page in enumerate(pages[:4]):
        words = " ".join(page.split())
        assert "Radicado Límite que determinó la cantidad" in words, n  # the header, whole
        assert f"Página {6 + n}" in words


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="sin pdftotext (poppler-utils)")
def test_the_designs_comparison_pdf_never_squeezes_its_rows(tmp_path: Path) -> None:
    """Three designs of Central on Casa de Bolsa's batch: the comparison's 30-odd rows, each
    as tall as its lines, go on two pages; every figure's name reads whole on them."""
    from typer.testing import CliRunner

    from democratiza.cli.main import app

    examples = Path(__file__).parents[1] / "examples"
    result = CliRunner().invoke(
        app,
        [
            "simular",
            str(examples / "simulacion" / "disenos-central.yaml"),
            "--aceptaciones",
            str(examples / "primera-etapa" / "lote-1-casa-de-bolsa.csv"),
            "--salida",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    labels = [
        line.split(",")[0].strip('"')
        for line in (tmp_path / "comparacion-disenos.csv")
        .read_text(encoding="utf-8")
        .splitlines()[1:]
    ]
    pages = pdf_pages(tmp_path / "comparacion-disenos.pdf")
    tables = [p for p in pages if "Comparación de diseños del programa" in p]
    assert len(tables) == 2 and "(continuación)" in tables[1]
    for page in tables:
        assert "Cifra Programa de Fogafín" in " ".join(page.split())  # the header on each
    shown = " ".join(" ".join(tables).split())
    for label in labels:
        assert " ".join(label.split()) in shown, label


# A histogram's table as long as a wide offer's: 40 ranges of shares, under its chart.
BINS = ChartTable(
    "Distribución de las adjudicaciones",
    ("Acciones adjudicadas", "Aceptaciones", "Acciones", "Porcentaje de las acciones"),
    tuple(
        (f"{n:,} a {n + 9:,}".replace(",", "."), "1.234", "123.456.789", "2,50 %")
        for n in range(1000, 41000, 1000)
    ),
    (False, True, True, True),
)


def _cut_cells(figure: Figure) -> list[str]:
    """The texts of ``figure``'s table cells that stick out of their cell."""
    canvas = FigureCanvasAgg(figure)
    canvas.draw()  # type: ignore[no-untyped-call]
    renderer = canvas.get_renderer()  # type: ignore[no-untyped-call]
    cut = []
    for table in figure.findobj(Table):
        assert isinstance(table, Table)
        for cell in table.get_celld().values():
            box, text = cell.get_window_extent(renderer), cell.get_text()
            inside = text.get_window_extent(renderer).padded(-0.5)
            x_in = box.x0 <= inside.x0 and inside.x1 <= box.x1
            if not (x_in and box.y0 <= inside.y0 and inside.y1 <= box.y1):
                cut.append(text.get_text())
    return cut


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="sin pdftotext (poppler-utils)")
def test_a_chart_page_table_too_long_goes_on_with_its_header_whole(tmp_path: Path) -> None:
    """40 rows do not fit under the chart (about 14 do): the rest go on over the next page,
    the header on each, no header line squeezed into a shorter cell."""

    def draw(ax: Axes, width: Width) -> None:
        ax.bar(range(40), range(40))

    chart = AdjudicationChart("histograma", BINS.caption, "Leyenda.", draw, (8.0, 4.6), 4.4, BINS)
    with matplotlib.rc_context(chart_style()):
        figures = chart_pages(chart, 4)
        assert len(figures) == 2
        for figure in figures:
            assert _cut_cells(figure) == []
        out = io.BytesIO()
        with PdfPages(out) as pdf:
            for figure in figures:
                pdf.savefig(figure)
    path = tmp_path / "informe.pdf"
    path.write_bytes(out.getvalue())
    pages = pdf_pages(path)
    shown = " ".join(" ".join(pages).split())
    for row in BINS.rows:
        assert " ".join(row) in shown, row  # every row, once, whole
    assert "Distribución de las adjudicaciones (continuación)" in pages[1]
    for n, page in enumerate(pages[:2]):
        words = " ".join(page.split())
        assert "Acciones adjudicadas Aceptaciones Acciones Porcentaje de las acciones" in words, n
        assert f"Página {4 + n}" in words
