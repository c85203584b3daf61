"""Charts: the project's matplotlib settings, its colours, axis helpers and inline SVG.

The same calls give the same bytes: SVG ids are salted with a fixed string (``SVG_STYLE``)
and no file carries a date. Text is drawn as paths in SVGs (it looks the same in every
browser) and kept as text in PDFs (it can be searched and copied).
"""

from __future__ import annotations

import html
import io
import re
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator
from matplotlib.typing import RcKeyType

from democratiza.money import group

SALT = "democratiza"
# The palette, light to dark blue: demand, what the rules permit, what was awarded.
LIGHT = "#a6bddb"
BAR = "#3690c0"
DARK = "#034e7b"


def chart_style() -> dict[RcKeyType, Any]:
    """The project's matplotlib settings: text kept as text in PDFs, drawn as paths in SVGs."""
    return {
        "font.family": "DejaVu Sans",
        "font.size": 10,
        "axes.titlesize": 12,
        "svg.fonttype": "path",
        "pdf.fonttype": 42,
        "axes.unicode_minus": False,
    }


SVG_STYLE = {**chart_style(), "svg.hashsalt": SALT}  # stable ids: the same chart, the same SVG

_SVG_ID = re.compile(r'(\bid="|\bhref="#|url\(#)')


def svg(fig: Figure, label: str, ids: str | None = None) -> str:
    """``fig`` as inline SVG with its accessible label, in the style the caller has set.

    ``ids`` prefixes every id of the drawing (and each reference to one), so that several
    SVGs can share a page.
    """
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    text = text[text.index("<svg") :]
    if ids is not None:
        text = _SVG_ID.sub(lambda m: f"{m.group(1)}{ids}-", text)
    label = html.escape(label, quote=True)
    return text.replace("<svg ", f'<svg role="img" aria-label="{label}" ', 1)


def integer_axis(axis: str, ax: Axes) -> None:
    """Whole-number ticks on the ``x`` or ``y`` axis, with thousands dots."""
    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_locator(MaxNLocator(integer=True, nbins=6))
    target.set_major_formatter(FuncFormatter(lambda v, _: group(round(v))))


def plain_axes(ax: Axes) -> None:
    """No top and right frame, small tick labels."""
    ax.spines[["top", "right"]].set_visible(False)
    ax.tick_params(labelsize=9)


def empty_chart(ax: Axes, text: str) -> None:
    """A chart with nothing to draw: ``text`` in its middle, no axes."""
    ax.set_axis_off()
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize=11, color="#555555")
