"""The PDF reports read whole: a long table goes on as many pages as it needs, each with
its header, and no radicado, rule or header is cut at its cell's edge.

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
from matplotlib.backends.backend_pdf import PdfPages

from democratiza.reports.adjudication_charts import ChartTable
from democratiza.reports.adjudication_report import reduction_pages
from democratiza.reports.person_reductions import HEADER
from democratiza.reports.render.charts import chart_style
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
    pages = subprocess.run(
        ["pdftotext", "-raw", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout.split("\f")
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
    pages = subprocess.run(
        ["pdftotext", "-raw", str(tmp_path / "comparacion-disenos.pdf"), "-"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split("\f")
    tables = [p for p in pages if "Comparación de diseños del programa" in p]
    assert len(tables) == 2 and "(continuación)" in tables[1]
    for page in tables:
        assert "Cifra Programa de Fogafín" in " ".join(page.split())  # the header on each
    shown = " ".join(" ".join(tables).split())
    for label in labels:
        assert " ".join(label.split()) in shown, label
