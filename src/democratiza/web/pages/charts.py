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

WIDTH = 320  # drawn for a phone: at 375 px it is shown at about its own size, labels ~12 px
FIGURE = 130  # room after the longest bar for its figure ('12.345.678 acciones')
SHORT = 44  # characters of a bar's name that fit on its line; the whole name is its tooltip
ROW = 38  # a row: the bar's name on its own line, the bar and its figure under it
BAR_COLOR = "#3690c0"


def bar_chart(title: str, rows: Sequence[tuple[str, int]], one: str, many: str) -> Markup:
    """Horizontal bars, one per row, longest = full width, each with its figure and its noun
    in agreement ('1 aceptación', '12 aceptaciones'); an empty chart says so. Each bar's name
    is written above it, not beside it, so that the chart is narrow enough for a phone
    without shrinking its letters."""
    if not rows:
        return Markup(f'<p class="vacio">{escape(title)}: aún no hay datos.</p>')
    top = max(value for _, value in rows) or 1
    height = ROW * len(rows) + 24
    span = WIDTH - FIGURE
    parts = [
        f'<svg class="grafica" role="img" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" aria-label="{escape(title)}">',
        f'<text x="0" y="14" class="titulo">{escape(title)}</text>',
    ]
    for i, (label, value) in enumerate(rows):
        y = 22 + i * ROW
        length = value * span // top
        text = count(value, one, many)
        parts.append(
            f'<text x="0" y="{y + 12}">{escape(_short(label))}</text>'
            f'<rect x="0" y="{y + 17}" width="{max(length, 1)}" height="{ROW - 22}" '
            f'fill="{BAR_COLOR}"><title>{escape(label)}: {text}</title></rect>'
            f'<text x="{length + 5}" y="{y + 29}">{text}</text>'
        )
    parts.append("</svg>")
    return Markup("".join(parts))


def _short(name: str) -> str:
    return name if len(name) <= SHORT else name[: SHORT - 1].rstrip() + "…"
