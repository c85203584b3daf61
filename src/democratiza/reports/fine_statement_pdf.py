"""A fine's statement as a landscape A4 PDF: page 1 the base, band, fine, total due and the
readings applied; then the account step by step, with the total due at the end.

Amounts are written the Colombian way ($ 18.750.000, $ 2.075,31) and a fine's exact balance
marks a fraction of a centavo ('…'); the figures are those of ``compliance.fines``, nothing
is recomputed here.
"""

from __future__ import annotations

import io
import textwrap

import matplotlib
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure

from democratiza.compliance.fines.account import Statement, StatementRow
from democratiza.compliance.fines.terms import BASE_LABELS, FineTerms
from democratiza.compliance.fines.text import (
    RATE_PLACES,
    base_result,
    fine_citation,
    rate_conversion,
    step_citation,
)
from democratiza.money import decimal_percent, pesos
from democratiza.reports.render.pdf import (
    A4_LANDSCAPE,
    AMOUNTS_STYLE,
    column_widths,
    draw_table,
    metadata,
    pages_of_rows,
    row_height,
)
from democratiza.reports.render.text import wrap

PAGE_MARGIN = 0.5  # inches, every side
TITLE = "Estado de cuenta de la multa"
ACCOUNT_HEADER = (
    "Fecha",
    "Concepto",
    "Norma",
    "Tasa y conversión",
    "Intereses",
    "Ajuste",
    "Pago y aplicación",
    "Saldo\nintereses",
    "Saldo multa",
    "Saldo total",
)
ACCOUNT_NUMERIC = (False, False, False, False, True, True, False, True, True, True)
ACCOUNT_FONT = 6.2
SUMMARY_FONT = 8.0


def _rate_cell(row: StatementRow) -> str:
    if row.kind == "ajuste_ipc" and row.rate_percent is not None:
        rate = decimal_percent(row.rate_percent)
        return f"IPC {rate}:\n× (1 + {rate})"
    conversion = rate_conversion(row)
    if not conversion or row.period_rate is None:
        return ""
    return f"{conversion}\n= {decimal_percent(row.period_rate.scaleb(2), places=RATE_PLACES)}"


def _payment_cell(row: StatementRow) -> str:
    if not row.payment:
        return ""
    lines = [
        pesos(row.payment),
        f"a intereses: {pesos(row.to_interest)}",
        f"a la multa: {pesos(row.to_fine)}",
    ]
    if row.excess:
        lines.append(f"excedente: {pesos(row.excess)}")
    return "\n".join(lines)


def _account_cells(statement: Statement, terms: FineTerms) -> list[list[str]]:
    cells = []
    for row in statement.rows:
        citation = step_citation(row, statement.fine, terms)
        cells.append(
            [
                f"{row.day:%Y-%m-%d}",
                wrap(row.concept, 44),
                wrap(citation, 18),
                _rate_cell(row),
                pesos(row.interest) if row.interest else "",
                pesos(row.adjustment) if row.adjustment else "",
                _payment_cell(row),
                pesos(row.interest_balance),
                pesos(row.fine_balance),
                pesos(row.balance),
            ]
        )
    return cells


def _text_block(
    fig: Figure,
    top_in: float,
    text: str,
    size: float = SUMMARY_FONT,
    bold: bool = False,
    color: str = "#1a1a1a",
) -> float:
    """Wrapped text from ``top_in`` inches below the page top; returns where it ends."""
    wrapped = textwrap.fill(text, width=int(190 * SUMMARY_FONT / size), subsequent_indent="  ")
    fig.text(
        PAGE_MARGIN / A4_LANDSCAPE[0],
        1 - top_in / A4_LANDSCAPE[1],
        wrapped,
        fontsize=size,
        fontweight="bold" if bold else "normal",
        color=color,
        va="top",
    )
    return top_in + (wrapped.count("\n") + 1) * size * 1.35 / 72


def _table_at(
    fig: Figure,
    top_in: float,
    cells: list[list[str]],
    numeric: tuple[bool, ...],
    fontsize: float,
    total: bool,
    widths: list[float] | None = None,
) -> float:
    """A ``draw_table`` table from ``top_in`` inches below the page top; returns its bottom."""
    width_in, height_in = A4_LANDSCAPE
    table_h = sum(row_height(row, fontsize) for row in cells)
    ax = fig.add_axes(
        (
            PAGE_MARGIN / width_in,
            1 - (top_in + table_h) / height_in,
            1 - 2 * PAGE_MARGIN / width_in,
            table_h / height_in,
        )
    )
    widths = widths or column_widths(cells)
    draw_table(ax, cells, widths, numeric, fontsize, table_h, header=True, total=total)
    return top_in + table_h


def _page_frame(fig: Figure, statement: Statement, page: int, pages: int) -> float:
    """Title, program and page number; returns where the page's content starts (inches)."""
    top = _text_block(fig, PAGE_MARGIN, TITLE, size=15, bold=True)
    top = _text_block(
        fig,
        top + 0.05,
        f"{statement.program_name} · al {statement.until:%Y-%m-%d}",
        color="#555555",
    )
    fig.text(
        1 - PAGE_MARGIN / A4_LANDSCAPE[0],
        0.3 / A4_LANDSCAPE[1],
        f"Página {page} de {pages}",
        fontsize=8,
        ha="right",
        color="#777777",
    )
    return top + 0.2


def _summary(fig: Figure, top: float, statement: Statement, terms: FineTerms) -> None:
    fine = statement.fine
    window = fine.band.window
    assert window is not None, "a fine always has its band"
    top = _text_block(fig, top, "1. Base por acción", size=11, bold=True) + 0.05
    bases = [["Valor", "Texto del programa", "Norma", "Por acción", "Resultado"]]
    for candidate, citation in zip(fine.base.candidates, terms.base_citations, strict=True):
        bases.append(
            [
                wrap(BASE_LABELS[candidate.key], 34),
                wrap(candidate.text, 60),
                wrap(citation, 40),
                "sin valor" if candidate.centavos is None else pesos(candidate.centavos),
                base_result(candidate, fine.base.chosen, terms.base_rule_citation),
            ]
        )
    top = _table_at(
        fig,
        top,
        bases,
        (False, False, False, True, False),
        SUMMARY_FONT,
        total=False,
    )
    top = _text_block(fig, top + 0.2, "2. Tramo y multa", size=11, bold=True)
    top = _text_block(fig, top + 0.05, f"{fine.band.reason} ({terms.band_citation(window.band)})")
    top = _text_block(
        fig, top + 0.05, f"Multa: {fine.explain()} ({fine_citation(statement.fine, terms)})"
    )
    top = _text_block(
        fig,
        top + 0.2,
        f"Saldo a pagar el {statement.until:%Y-%m-%d}: {pesos(statement.due)}",
        size=11,
        bold=True,
    )
    top = _text_block(fig, top + 0.2, "Lecturas aplicadas", size=9, bold=True)
    for note in statement.notes:
        top = _text_block(fig, top + 0.02, f"• {note}")
    if statement.sources:
        top = _text_block(fig, top + 0.15, "Fuentes de las series", size=9, bold=True)
        for source in statement.sources:
            top = _text_block(fig, top + 0.02, f"• {source}")


def fine_statement_pdf(statement: Statement, terms: FineTerms) -> bytes:
    """The statement as a landscape A4 PDF: page 1 the base, band, fine, total due and the
    readings applied; then the account step by step, with the total due at the end.

    Deterministic: the same statement gives the same bytes (no creation date).
    """
    cells = _account_cells(statement, terms)
    last = statement.rows[-1]
    closing = [
        "",
        f"Saldo a pagar el {statement.until:%Y-%m-%d}",
        "",
        "",
        "",
        "",
        "",
        pesos(last.interest_balance),
        pesos(last.fine_balance),
        pesos(statement.due),
    ]
    everything = [*cells, closing]
    widths = column_widths([list(ACCOUNT_HEADER), *everything])  # the same on every page
    content_top = 1.5  # inches: below the title, the program line and the section title
    room = A4_LANDSCAPE[1] - content_top - 0.55  # down to the page number
    header = row_height(ACCOUNT_HEADER, ACCOUNT_FONT)
    pages = pages_of_rows(everything, ACCOUNT_FONT, room, header)
    total = len(pages) + 1
    out = io.BytesIO()
    info = metadata(TITLE, f"Multa: {statement.program_name}")
    with matplotlib.rc_context(AMOUNTS_STYLE), PdfPages(out, metadata=info) as pdf:
        fig = Figure(figsize=A4_LANDSCAPE)
        _summary(fig, _page_frame(fig, statement, 1, total), statement, terms)
        pdf.savefig(fig)
        for number, rows in enumerate(pages, start=2):
            fig = Figure(figsize=A4_LANDSCAPE)
            top = _page_frame(fig, statement, number, total)
            top = _text_block(fig, top, "3. Cuenta paso a paso", size=11, bold=True)
            _table_at(
                fig,
                top + 0.05,
                [list(ACCOUNT_HEADER), *rows],
                ACCOUNT_NUMERIC,
                ACCOUNT_FONT,
                total=number == total,
                widths=widths,
            )
            pdf.savefig(fig)
    return out.getvalue()
