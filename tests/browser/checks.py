"""What the browser tests look for on a page besides its words, as scripts run in it: a
region that scrolls sideways and cannot be reached with the keyboard, and a chart shown so
much smaller than it was drawn that its letters cannot be read."""

from __future__ import annotations

# A region that scrolls sideways must take the keyboard's focus and say what it holds (axe's
# rule scrollable-region-focusable): tabindex="0", a name, and a wrapper's role="region".
UNREACHABLE = """() => [...document.querySelectorAll("body *")].filter(e => {
    const s = getComputedStyle(e);
    return ["auto", "scroll"].includes(s.overflowX) && e.scrollWidth > e.clientWidth + 1;
  }).filter(e => !(e.getAttribute("tabindex") === "0" && e.getAttribute("aria-label")
    && (e.tagName === "TABLE" || e.getAttribute("role") === "region")))
  .map(e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + " " + e.className)"""
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
