"""A loan's schedule as CSV and PDF, each file written atomically.

``compliance.credit`` computes the schedule; this writes it. One row per month and a last
row of totals that reconcile to the centavo: the capital repaid equals the amount lent plus
the capitalised interest, and the instalments equal the interest paid plus the capital
repaid (Ley 226 art. 11; GEB art. 7). The CSV's amounts are pesos with a dot and two
decimals (machine-readable); the PDF writes them the Colombian way, centavos always shown
($ 18.750.000,00), parameters and notes first and the totals at the end.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Sequence
from pathlib import Path

import matplotlib
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure
from matplotlib.table import Table
from matplotlib.transforms import Bbox

from democratiza.compliance.credit.schedule import Schedule, ScheduleRow
from democratiza.money import decimal_percent, pesos_cell, pesos_cents
from democratiza.reports.render.files import atomic_write
from democratiza.reports.render.pdf import A4, AMOUNTS_STYLE, metadata
from democratiza.tables.cells import csv_text

SCHEDULE_CSV = "cuadro-amortizacion.csv"
SCHEDULE_PDF = "cuadro-amortizacion.pdf"
CSV_COLUMNS = (
    "cuota",
    "fecha",
    "saldo_inicial",
    "intereses",
    "intereses_capitalizados",
    "abono_capital",
    "valor_cuota",
    "saldo_final",
)
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


def _amounts(row: ScheduleRow) -> tuple[int, ...]:
    """A month's amounts, in the order of the columns after the number and the date."""
    return (row.opening, row.interest, row.capitalised, row.principal, row.instalment, row.closing)


def _totals(schedule: Schedule) -> tuple[int, ...]:
    """The totals under the same columns; under the opening balance, the amount lent."""
    return (
        schedule.principal,
        schedule.interest_accrued,
        schedule.interest_capitalised,
        schedule.principal_paid,
        schedule.total_paid,
        schedule.closing,
    )


# --- CSV ----------------------------------------------------------------------------------


def _csv(rows: list[list[object]]) -> str:
    return csv_text(CSV_COLUMNS, rows)


def _month_cells(schedule: Schedule) -> list[list[object]]:
    return [[r.number, f"{r.day:%Y-%m-%d}", *map(pesos_cell, _amounts(r))] for r in schedule.rows]


def schedule_csv(schedule: Schedule) -> str:
    """One row per month; amounts in pesos with two decimals."""
    return _csv(_month_cells(schedule))


def schedule_csv_with_totals(schedule: Schedule) -> str:
    """The monthly schedule and a last row ``Total``: saldo_inicial is the amount lent, the
    other columns the sums; abono_capital = amount lent + intereses_capitalizados, and
    valor_cuota = intereses − intereses_capitalizados + abono_capital, to the centavo."""
    totals: list[object] = ["Total", "", *map(pesos_cell, _totals(schedule))]
    return _csv([*_month_cells(schedule), totals])


# --- PDF ----------------------------------------------------------------------------------


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
                [str(r.number), f"{r.day:%Y-%m-%d}", *map(pesos_cents, _amounts(r))] for r in rows
            ]
            last = index == total
            if last:  # the amount lent is in the parameters above, not under the balances
                cells.append(["Total", "", "", *map(pesos_cents, _totals(schedule)[1:])])
            _table(fig, top, cells, total=last)
            fig.text(0.96, 0.03, f"Página {index} de {total}", fontsize=8, ha="right")
            pdf.savefig(fig)
    return out.getvalue()


def write_schedule(schedule: Schedule, folder: Path, subtitle: str | None = None) -> list[Path]:
    """``cuadro-amortizacion.csv`` and ``.pdf`` in ``folder``, each written atomically."""
    return [
        atomic_write(folder / SCHEDULE_CSV, schedule_csv_with_totals(schedule).encode("utf-8")),
        atomic_write(folder / SCHEDULE_PDF, schedule_pdf(schedule, subtitle)),
    ]
