"""Charts for the intake dashboard as inline SVG, drawn on the server.

Why SVG from Python: no JavaScript charting library and no front-end build; the figures
are exact integers and only the bar lengths are scaled. Labels use Colombian thousands
separators (``money.group``); every bar carries its exact figure as text and as a tooltip.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from markupsafe import Markup

from democratiza.words import count

WIDTH = 720
LABEL = 300
SHORT = 46  # characters of a bar's name that fit before the bar; the whole name is its tooltip
ROW = 22
BAR_COLOR = "#3690c0"


def bar_chart(title: str, rows: Sequence[tuple[str, int]], one: str, many: str) -> Markup:
    """Horizontal bars, one per row, longest = full width, each with its figure and its noun
    in agreement ('1 aceptación', '12 aceptaciones'); an empty chart says so."""
    if not rows:
        return Markup(f'<p class="vacio">{escape(title)}: aún no hay datos.</p>')
    top = max(value for _, value in rows) or 1
    height = ROW * len(rows) + 30
    span = WIDTH - LABEL - 150  # room for the figure after the longest bar
    parts = [
        f'<svg class="grafica" role="img" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" aria-label="{escape(title)}">',
        f'<text x="0" y="14" class="titulo">{escape(title)}</text>',
    ]
    for i, (label, value) in enumerate(rows):
        y = 24 + i * ROW
        length = value * span // top
        text = count(value, one, many)
        parts.append(
            f'<text x="{LABEL - 6}" y="{y + 14}" text-anchor="end">{escape(_short(label))}</text>'
            f'<rect x="{LABEL}" y="{y + 3}" width="{max(length, 1)}" height="{ROW - 6}" '
            f'fill="{BAR_COLOR}"><title>{escape(label)}: {text}</title></rect>'
            f'<text x="{LABEL + length + 6}" y="{y + 14}">{text}</text>'
        )
    parts.append("</svg>")
    return Markup("".join(parts))


def _short(name: str) -> str:
    return name if len(name) <= SHORT else name[: SHORT - 1].rstrip() + "…"
