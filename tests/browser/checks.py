"""What the browser tests look for on a page besides its words, as scripts run in it: what
axe-core finds (WCAG 2.x A and AA, and its best practices), and a chart shown so much
smaller than it was drawn that its letters cannot be read (no axe rule measures that).

axe-core is the exact version in ``tests/browser/axe/package-lock.json``, installed by
``make setup`` (npm ci) in ``tests/browser/axe/node_modules``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Page

AXE = Path(__file__).parent / "axe" / "node_modules" / "axe-core"
# WCAG 2.0, 2.1 and 2.2 at levels A and AA, and axe's best practices (among them
# scrollable-region-focusable, region, landmark-one-main, page-has-heading-one).
AXE_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice")


@cache
def axe_source() -> str:
    """axe.min.js and its Spanish messages; the test fails, never skips, without them."""
    script, spanish = AXE / "axe.min.js", AXE / "locales" / "es.json"
    if not script.exists() or not spanish.exists():
        pytest.fail(
            f"no está axe-core en {AXE}: corra `make setup` (instala con npm ci la versión "
            "de tests/browser/axe/package-lock.json)",
            pytrace=False,
        )
    locale = spanish.read_text(encoding="utf-8")
    return f"{script.read_text(encoding='utf-8')}\n;axe.configure({{locale: {locale}}});"


def axe_violations(page: Page, width: int) -> list[str]:
    """Each node axe finds wrong on the page as it is now: rule, width, selector, help (the
    caller names the page).

    The script goes in through the DevTools protocol (``evaluate``), which the page's
    Content-Security-Policy does not govern: the page is tested under the policy it is
    served with, and an inline ``<script>`` of ours would be refused by it."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(axe_source())
    options = {"runOnly": {"type": "tag", "values": list(AXE_TAGS)}, "resultTypes": ["violations"]}
    found: list[dict[str, Any]] = page.evaluate(
        "options => axe.run(document, options).then(r => r.violations.map(v => ({id: v.id,"
        " help: v.help, nodes: v.nodes.map(n => n.target.join(' '))})))",
        options,
    )
    return [
        f"axe {v['id']} a {width} px: {node} — {v['help']}" for v in found for node in v["nodes"]
    ]


# A chart shown below 90 % of the size it was drawn at: its 9-point letters fall under 10 px.
SHRUNK = """() => [...document.querySelectorAll("svg[role=img]")].map(s => {
    const w = s.getAttribute("width") || "", n = parseFloat(w);
    const px = w.endsWith("pt") ? n * 4 / 3 : n, shown = s.getBoundingClientRect().width;
    return [s.getAttribute("aria-label"), px && shown ? shown / px : 1];
  }).filter(([, k]) => k < 0.9)"""
# Each chart shown: its name, which drawing (for a wide screen or a phone), where its right
# edge falls, and the CSS px of its smallest letters as shown (``data-letra`` is their size
# at the drawn size; the SVG's width is in points, 4/3 px each).
CHARTS = """() => [...document.querySelectorAll("svg[role=img][data-letra]")].map(s => {
    const box = s.getBoundingClientRect(), drawn = parseFloat(s.getAttribute("width")) * 4 / 3;
    return {name: s.getAttribute("aria-label"), drawing: s.getAttribute("class"),
            shown: box.width > 0, right: box.right + window.scrollX,
            letter: parseFloat(s.getAttribute("data-letra")) * box.width / drawn};
  })"""
PHONE = 760  # px: the style sheets' phone width, where a chart's narrow drawing is shown
LEGIBLE = 11  # px: the smallest letter a person reads on a phone without zooming


def chart_problems(charts: list[dict[str, object]], width: int) -> list[str]:
    """What is wrong with the page's charts at a viewport ``width`` px wide, from ``CHARTS``:
    the drawing for another width shown (or none), a chart cut by the screen's edge, or on
    a phone letters under ``LEGIBLE`` px."""
    found = []
    drawing = "grafica-estrecha" if width <= PHONE else "grafica-ancha"
    for c in charts:
        name, shown = c["name"], c["shown"]
        if shown != (c["drawing"] == drawing):
            state = "se ve" if shown else "no se ve"
            found.append(f"gráfica «{name}»: {state} su dibujo {c['drawing']} en {width} px")
        if not shown:
            continue
        right, letter = c["right"], c["letter"]
        assert isinstance(right, int | float) and isinstance(letter, int | float)
        if right > width:
            found.append(f"gráfica «{name}»: llega a {right:.0f} px en {width} px: no se ve entera")
        if width <= PHONE and letter < LEGIBLE:
            found.append(f"gráfica «{name}»: letras de {letter:.1f} px en {width} px")
    return found
