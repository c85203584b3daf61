"""PDF pages: their sizes, the document's metadata, and tables drawn on a page.

A table row is as tall as its lines of text plus a padding (``row_height``); columns are as
wide as their longest line (``column_widths``). Every size is in inches unless it says it is
a fraction of the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.table import Table
from matplotlib.transforms import Bbox

from democratiza.reports.render.charts import chart_style
from democratiza.reports.render.text import wrap

A4 = (8.27, 11.69)
A4_LANDSCAPE = (11.69, 8.27)
MARGIN = 0.07  # of the page width, left and right, on portrait pages
# Pages of amounts: they carry "$", which must never be read as mathtext.
AMOUNTS_STYLE = {**chart_style(), "text.parse_math": False}


def metadata(title: str, subject: str | None = None) -> dict[str, str | None]:
    """A PDF's document information: no creation date, so the same pages give the same bytes."""
    return {
        "Title": title,
        **({"Subject": subject} if subject is not None else {}),
        "Creator": "democratiza",
        "CreationDate": None,
    }


def line_height(fontsize: float) -> float:
    """The height of one line of text in a table row."""
    return fontsize * 1.25 / 72


def row_height(cells: Sequence[str], fontsize: float) -> float:
    """A table row's height: its tallest cell's lines plus padding."""
    return (max(c.count("\n") for c in cells) + 1.8) * line_height(fontsize)


Row = TypeVar("Row", bound=Sequence[str])


def pages_of_rows(
    rows: Sequence[Row], fontsize: float, height_in: float, header_in: float
) -> list[list[Row]]:
    """The rows in runs that each fit ``height_in`` under a header ``header_in`` tall: a long
    table goes on as many pages as it needs, never squeezed into one (its lines would
    overlap)."""
    pages: list[list[Row]] = [[]]
    used = header_in
    for row in rows:
        tall = row_height(row, fontsize)
        if pages[-1] and used + tall > height_in:
            pages.append([])
            used = header_in
        pages[-1].append(row)
        used += tall
    return pages


def column_widths(cells: Sequence[Sequence[str]]) -> list[float]:
    """Column widths, as fractions of the table, in proportion to their longest line."""
    chars = [
        max(len(line) for row in cells for line in row[col].split("\n")) + 3
        for col in range(len(cells[0]))
    ]
    return [c / sum(chars) for c in chars]


def draw_table(
    ax: Axes,
    cells: list[list[str]],
    widths: list[float],
    numeric: tuple[bool, ...],
    fontsize: float,
    height_in: float,
    header: bool,
    total: bool,
) -> None:
    """A table from the top of ``ax``, each row as tall as its lines (in inches)."""
    ax.set_axis_off()
    heights = [row_height(row, fontsize) for row in cells]
    used = min(1.0, sum(heights) / height_in)
    table = Table(ax, bbox=Bbox.from_bounds(0.0, 1.0 - used, 1.0, used))
    table.auto_set_font_size(False)
    last = len(cells) - 1
    for row, values in enumerate(cells):
        head = header and row == 0
        for col, value in enumerate(values):
            right = numeric[col] and not head
            cell = table.add_cell(
                row, col, widths[col], heights[row], text=value, loc="right" if right else "left"
            )
            cell.set_edgecolor("#c8c8c8")
            cell.PAD = 0.04
            cell.get_text().set_fontsize(fontsize)
            if head or (not header and col == 0):
                cell.set_facecolor("#eef3f8")
            if head or (total and row == last):
                cell.get_text().set_fontweight("bold")
            if total and row == last:
                cell.set_facecolor("#f6f6f6")
    ax.add_table(table)


def key_value_table(fig: Figure, top_in: float, title: str, rows: list[tuple[str, str]]) -> float:
    """A titled two-column table on a portrait A4 page, its top ``top_in`` below the page's
    top, between the margins; returns where it ends."""
    fontsize = 8.5
    cells = [[wrap(k, 48), wrap(v, 44)] for k, v in rows]
    height = sum(row_height(row, fontsize) for row in cells)
    page_h = A4[1]
    fig.text(MARGIN, 1 - top_in / page_h, title, fontsize=12, fontweight="bold", va="bottom")
    ax = fig.add_axes(
        (MARGIN, 1 - (top_in + 0.08 + height) / page_h, 1 - 2 * MARGIN, height / page_h)
    )
    draw_table(ax, cells, [0.5, 0.5], (False, False), fontsize, height, header=False, total=False)
    return top_in + 0.08 + height
