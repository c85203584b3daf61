"""The HTML reports a person opens from a folder or an e-mail, on a phone and on a desk: no
wider than the screen, each chart whole in its drawing for the screen's width (on a phone
the narrow one, its letters 11 px or more), and nothing axe-core finds wrong (among it,
every region that scrolls sideways reachable with the keyboard).

The adjudication report of the worked example in ``tests.test_adjudication_report``, and
the comparison of Central's three designs on Casa de Bolsa's batch.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from democratiza.cli.main import app
from democratiza.reports.adjudication_figures import build_figures
from democratiza.reports.adjudication_report import render_html
from tests.browser.checks import CHARTS, SHRUNK, axe_violations, chart_problems
from tests.browser.conftest import CHROMIUM
from tests.test_adjudication_report import report_input

if not CHROMIUM.exists():
    pytest.skip("no está /usr/bin/chromium", allow_module_level=True)

from playwright.sync_api import Browser

EXAMPLES = Path(__file__).parents[2] / "examples"
# The drawings of each report's charts (each chart drawn for a narrow and a wide screen).
CHART_DRAWINGS = {"informe-adjudicacion.html": 8, "comparacion-disenos.html": 4}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("informes")
    inp = report_input()
    adjudication = folder / "informe-adjudicacion.html"
    adjudication.write_text(render_html(inp, build_figures(inp)), encoding="utf-8")
    designs = [
        "simular",
        str(EXAMPLES / "simulacion" / "disenos-central.yaml"),
        "--aceptaciones",
        str(EXAMPLES / "primera-etapa" / "lote-1-casa-de-bolsa.csv"),
        "--salida",
        str(folder),
    ]
    result = CliRunner().invoke(app, designs)
    assert result.exit_code == 0, result.output
    return [adjudication, folder / "comparacion-disenos.html"]


@pytest.mark.parametrize("width", [375, 1280])
def test_a_report_fits_the_screen_with_legible_charts(
    browser: Browser, reports: list[Path], width: int
) -> None:
    page = browser.new_page(viewport={"width": width, "height": 900})
    problems = []
    try:
        for report in reports:
            page.goto(report.as_uri())
            wide = page.evaluate(
                "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
            )
            if wide > width:
                problems.append(f"{report.name}: {wide} px de ancho en {width} px")
            charts = page.evaluate("document.querySelectorAll('svg[role=img]').length")
            assert charts == CHART_DRAWINGS[report.name]  # every chart there, none lost
            problems += [f"{report.name}: {n} al {k:.0%}" for n, k in page.evaluate(SHRUNK)]
            charts_shown = page.evaluate(CHARTS)
            assert sum(c["shown"] for c in charts_shown) >= 2, report.name
            problems += [f"{report.name}: {p}" for p in chart_problems(charts_shown, width)]
            problems += [f"{report.name}: {p}" for p in axe_violations(page, width)]
    finally:
        page.close()
    assert not problems, "\n".join(problems)
