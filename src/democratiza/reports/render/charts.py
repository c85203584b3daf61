"""Charts: the project's matplotlib settings, its colours, axis helpers and inline SVG.

The same calls give the same bytes: SVG ids are salted with a fixed string (``SVG_STYLE``)
and no file carries a date. Text is drawn as paths in SVGs (it looks the same in every
browser) and kept as text in PDFs (it can be searched and copied).

A chart shown on a screen is drawn twice, for the width it is shown at (``Width``): the
chart's own size (``WIDE``, as in the PDF) and a phone's (``NARROW``: 3,5 pulgadas, no letter
under 10 points, fewer ticks, long names wrapped). ``responsive_svg`` gives both, and the
page's style sheet shows one (``svg.grafica-ancha``, ``svg.grafica-estrecha``).
"""

from __future__ import annotations

import html
import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import matplotlib
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import FuncFormatter, MaxNLocator
from matplotlib.typing import RcKeyType

from democratiza.money import group
from democratiza.reports.render.text import tick, wrap

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
PX_PER_POINT = 4 / 3  # an SVG drawn in points, shown at its size: 1 point is 4/3 CSS px


@dataclass(frozen=True)
class Width:
    """What a chart is drawn for: its figure's width, its smallest letters and how many ticks
    a numeric axis holds."""

    css: str  # the SVG's class, which the style sheets show on wide or narrow screens
    inches: float | None  # None: the chart's own width (a page's column, a PDF page)
    least: float  # points: no letter of the chart is smaller
    ticks: int  # at most this many ticks on a numeric axis
    narrow: bool

    def size(self, wide: tuple[float, float], tall: float) -> tuple[float, float]:
        """The figure's size: the chart's own when wide, ``tall`` inches high when narrow."""
        return wide if self.inches is None else (self.inches, tall)

    def row(self, i: int) -> float:
        """Where the bars of row ``i`` are centred: a narrow chart keeps room above them for
        their name (``bar_names``)."""
        return i + 0.2 if self.narrow else float(i)

    @property
    def bars(self) -> float:
        """How much thinner bars are drawn: on a narrow chart they share a row with its name."""
        return 0.75 if self.narrow else 1.0

    def title(self, text: str) -> str:
        """An axis title, whole, in lines that fit the chart's width."""
        return wrap(text, NAME_LINE + 12) if self.narrow else text


WIDE = Width("grafica-ancha", None, 0.0, 6, narrow=False)
# 3,5 in is 336 px: a 375 px phone shows it whole, at 90 % or more, its letters 12 px or more.
NARROW = Width("grafica-estrecha", 3.5, 10.0, 3, narrow=True)
# Characters in a line of a name on a narrow chart (a wide one has room for the name whole).
NAME_LINE = 22


def smallest_letter(fig: Figure) -> float:
    """The size in points of the smallest letters drawn on ``fig`` (after laying it out)."""
    sizes = [
        float(t.get_fontsize())
        for t in fig.findobj(Text)
        if isinstance(t, Text) and t.get_visible() and t.get_text().strip()
    ]
    return min(sizes, default=0.0)


def _least_letters(fig: Figure, points: float) -> None:
    """No letter of ``fig`` under ``points``: tick labels (also those drawn later), legends,
    bar labels, notes."""
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            size = min((float(t.get_fontsize()) for t in axis.get_ticklabels()), default=points)
            if size < points:
                ax.tick_params(axis="x" if axis is ax.xaxis else "y", labelsize=points)
    for text in fig.findobj(Text):
        if isinstance(text, Text) and float(text.get_fontsize()) < points:
            text.set_fontsize(points)


def svg(fig: Figure, label: str, ids: str, width: Width) -> str:
    """``fig`` as inline SVG with its accessible label, in the style the caller has set.

    ``ids`` prefixes every id of the drawing (and each reference to one), so that several
    SVGs can share a page. The SVG carries the class of the ``width`` it was drawn for and,
    in ``data-letra``, the CSS pixels of its smallest letters when shown at its size.
    """
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    text = text[text.index("<svg") :]
    text = _SVG_ID.sub(lambda m: f"{m.group(1)}{ids}-", text)
    label = html.escape(label, quote=True)
    letter = round(smallest_letter(fig) * PX_PER_POINT, 1)
    extra = f'class="{width.css}" data-letra="{letter}" '
    return text.replace("<svg ", f'<svg {extra}role="img" aria-label="{label}" ', 1)


Draw = Callable[[Axes, Width], None]


def responsive_svg(draw: Draw, size: tuple[float, float], tall: float, label: str, ids: str) -> str:
    """The chart drawn twice, at its own ``size`` (inches) and for a phone (``tall`` inches
    high), as two inline SVGs: the page's style sheet shows the one for its width."""
    drawn = []
    with matplotlib.rc_context(SVG_STYLE):
        for width in (WIDE, NARROW):
            fig = Figure(figsize=width.size(size, tall), layout="constrained")
            FigureCanvasAgg(fig)
            draw(fig.add_subplot(), width)
            if width.least:
                _least_letters(fig, width.least)
            drawn.append(svg(fig, label, f"{ids}-{width.css}", width))
    return "".join(drawn)


def bar_names(ax: Axes, width: Width, names: list[str]) -> None:
    """Horizontal bars' names, one for each row of bars (``Width.row``), the first on top: on
    the axis beside them on a wide chart; on a narrow one above each row, so that the bars
    keep the chart's width."""
    rows = range(len(names))
    if not width.narrow:
        ax.set_yticks(list(rows), [tick(n) for n in names])  # the table has them whole
        ax.invert_yaxis()
        return
    ax.set_yticks([])
    for i, name in zip(rows, names, strict=True):
        text = tick(name, 2 * NAME_LINE, 2)
        ax.text(0, i - 0.12, text, transform=ax.get_yaxis_transform(), va="bottom", ha="left")
    ax.set_ylim(len(names) - 0.4, -0.55)  # inverted: the first row on top, its name in view


def integer_axis(axis: str, ax: Axes, width: Width = WIDE) -> None:
    """Whole-number ticks on the ``x`` or ``y`` axis, with thousands dots."""
    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_locator(MaxNLocator(integer=True, nbins=width.ticks))
    target.set_major_formatter(FuncFormatter(lambda v, _: group(round(v))))


def plain_axes(ax: Axes) -> None:
    """No top and right frame, small tick labels."""
    ax.spines[["top", "right"]].set_visible(False)
    ax.tick_params(labelsize=9)


def legend(ax: Axes, width: Width, **wide: Any) -> None:
    """The chart's legend: where ``wide`` puts it on a wide chart; on a narrow one under the
    chart, one entry a line, so that it covers nothing."""
    if not width.narrow:
        ax.legend(**wide)
        return
    handles, labels = ax.get_legend_handles_labels()
    keep = {k: wide[k] for k in ("title", "title_fontproperties", "alignment") if k in wide}
    ax.figure.legend(handles, labels, loc="outside lower center", ncols=1, frameon=False, **keep)


def empty_chart(ax: Axes, text: str) -> None:
    """A chart with nothing to draw: ``text`` in its middle, no axes."""
    ax.set_axis_off()
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize=11, color="#555555")
