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
