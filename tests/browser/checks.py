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
