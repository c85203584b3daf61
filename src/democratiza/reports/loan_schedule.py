"""The loan schedule as a PDF: parameters and notes first, then the table, totals at the end.

Drawing lives here, beside the other reports; ``compliance.credit`` computes the schedule.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Sequence

import matplotlib
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure
from matplotlib.table import Table
from matplotlib.transforms import Bbox

from democratiza.compliance.credit import Schedule, ScheduleRow
from democratiza.money import decimal_percent, pesos_cents
from democratiza.reports.render.pdf import A4, AMOUNTS_STYLE, metadata

PDF_TITLE = "Plan de amortización del crédito"
PDF_HEADERS = (
    "Cuota",
    "Fecha",
    "Saldo inicial",
    "Intereses",
    "Intereses\ncapitalizados",
    "Abono a capital",
    "Valor cuota",
    "Saldo final",
)
PDF_WIDTHS = (0.05, 0.1, 0.15, 0.135, 0.135, 0.145, 0.14, 0.145)
FIRST_PAGE_ROWS = 36
PAGE_ROWS = 46
FONT_SIZE = 7.5
LINE_HEIGHT = 7.5 * 1.35 / 72 / A4[1]  # a line of 7,5 pt text, as a fraction of the page


def _pages(rows: Sequence[ScheduleRow]) -> list[Sequence[ScheduleRow]]:
    pages = [rows[:FIRST_PAGE_ROWS]]
    rest = rows[FIRST_PAGE_ROWS:]
    while rest:
        pages.append(rest[:PAGE_ROWS])
        rest = rest[PAGE_ROWS:]
    return pages


def _table(fig: Figure, top: float, cells: list[list[str]], total: bool) -> None:
    """A table from ``top`` (figure fraction) down, one line of text per body row."""
    row_h = FONT_SIZE * 1.9 / 72 / A4[1]
    heights = [row_h * (1.7 if i == 0 else 1) for i in range(len(cells))]
    height = sum(heights)
    ax = fig.add_axes((0.04, top - height, 0.92, height))
    ax.set_axis_off()
    table = Table(ax, bbox=Bbox.from_bounds(0, 0, 1, 1))
    table.auto_set_font_size(False)
    last = len(cells) - 1
    for i, row in enumerate(cells):
        for j, value in enumerate(row):
            cell = table.add_cell(
                i,
                j,
                PDF_WIDTHS[j],
                heights[i] / height,
                text=value,
                loc="center" if i == 0 else ("left" if j == 1 else "right"),
            )
            cell.set_edgecolor("#c8c8c8")
            cell.PAD = 0.04
            cell.get_text().set_fontsize(FONT_SIZE)
            if i == 0 or (total and i == last):
                cell.set_facecolor("#eef3f8")
                cell.get_text().set_fontweight("bold")
    ax.add_table(table)


def schedule_pdf(schedule: Schedule, subtitle: str | None = None) -> bytes:
    """The schedule as a PDF: parameters and notes first, then the table, totals at the end.

    Deterministic: the same schedule gives the same bytes (no creation date).
    """
    pages = _pages(schedule.rows)
    total = len(pages)
    out = io.BytesIO()
    with matplotlib.rc_context(AMOUNTS_STYLE), PdfPages(out, metadata=metadata(PDF_TITLE)) as pdf:
        for index, rows in enumerate(pages, start=1):
            fig = Figure(figsize=A4)
            fig.text(0.04, 0.955, PDF_TITLE, fontsize=15, fontweight="bold", va="top")
            top = 0.925
            if index == 1:
                lines = [
                    *([subtitle] if subtitle else []),
                    f"Monto: {pesos_cents(schedule.principal)} · Tasa: "
                    f"{decimal_percent(schedule.rate_ea.scaleb(2))} efectivo anual · Plazo: "
                    f"{schedule.term_months} meses · Desembolso: {schedule.start:%Y-%m-%d}",
                    *(f"• {note}" for note in schedule.notes()),
                ]
                for line in lines:
                    wrapped = textwrap.fill(line, width=125, subsequent_indent="  ")
                    fig.text(0.04, top, wrapped, fontsize=7.5, va="top")
                    top -= (wrapped.count("\n") + 1) * LINE_HEIGHT
                top -= LINE_HEIGHT
            cells = [list(PDF_HEADERS)]
            cells += [
                [
                    str(r.number),
                    f"{r.day:%Y-%m-%d}",
                    pesos_cents(r.opening),
                    pesos_cents(r.interest),
                    pesos_cents(r.capitalised),
                    pesos_cents(r.principal),
                    pesos_cents(r.instalment),
                    pesos_cents(r.closing),
                ]
                for r in rows
            ]
            last = index == total
            if last:
                cells.append(
                    [
                        "Total",
                        "",
                        "",
                        pesos_cents(schedule.interest_accrued),
                        pesos_cents(schedule.interest_capitalised),
                        pesos_cents(schedule.principal_paid),
                        pesos_cents(schedule.total_paid),
                        pesos_cents(schedule.closing),
                    ]
                )
            _table(fig, top, cells, total=last)
            fig.text(0.96, 0.03, f"Página {index} de {total}", fontsize=8, ha="right")
            pdf.savefig(fig)
    return out.getvalue()
