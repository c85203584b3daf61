"""A fine's statement as CSV and PDF, in Spanish, each file written atomically.

Every step of the computation, each with the article it applies: the base per share chosen
among the values the program lists (the greatest; GEB art. 11(a)–(c)), the band and its
percentage (GEB art. 11.1(a)–(d)), the fine (shares × base × percentage), the 1 January CPI
adjustments (GEB art. 11), the default interest of each rate period with the conversion of
its effective annual rate to the period, (1 + i)^(días/365) − 1 (GEB art. 11.1), or the
adjustment at the payment day's rate (Central de Seguros), and each payment applied first to
the interest accrued and then to the fine (GEB art. 11.1). The figures come from the exact
computation in ``compliance.fines``; nothing is recomputed here.

CSV amounts are pesos with a dot and the exact decimals (machine-readable, as every CSV of
the project); the PDF writes them the Colombian way ($ 18.750.000, $ 2.075,31), through
``democratiza.money``.
"""

from __future__ import annotations

import csv
import io
import textwrap
from pathlib import Path

import matplotlib
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure

from democratiza.compliance.fines.account import Statement, StatementRow
from democratiza.compliance.fines.terms import BASE_LABELS, BaseCandidate, FineTerms
from democratiza.money import decimal_percent, pesos, pesos_cell
from democratiza.reports.render.files import atomic_write
from democratiza.reports.render.pdf import (
    A4_LANDSCAPE,
    AMOUNTS_STYLE,
    column_widths,
    draw_table,
    metadata,
    row_height,
)
from democratiza.reports.render.text import wrap

FINE_CSV = "estado-cuenta-multa.csv"
FINE_PDF = "estado-cuenta-multa.pdf"


# --- the fine statement: the steps ------------------------------------------------------


def _candidate_result(candidate: BaseCandidate, chosen: BaseCandidate, rule: str) -> str:
    """How the candidate fared; ``rule`` is where the program says the greatest is taken."""
    if candidate.centavos is None:
        return "sin valor conocido, no se compara"
    if candidate == chosen:
        return f"elegida: la mayor ({rule})"
    if candidate.centavos == chosen.centavos:
        return "igual a la elegida; se toma la primera de la lista"
    return "menor que la elegida"


def _conversion(row: StatementRow) -> str:
    """'(1 + 28,74 %)^(17/365) − 1' for a stretch at an effective annual rate."""
    if row.rate_percent is None or row.days is None or row.period_rate is None:
        return ""
    return f"(1 + {decimal_percent(row.rate_percent)})^({row.days}/365) − 1"


def _payment_text(row: StatementRow) -> str:
    text = (
        f"Pago de {pesos(row.payment)}: primero {pesos(row.to_interest)} a los intereses "
        f"causados, luego {pesos(row.to_fine)} a la multa"
    )
    if row.excess:
        text += f"; excedente a devolver {pesos(row.excess)}"
    return text


def _row_citation(row: StatementRow, terms: FineTerms) -> str:
    if row.kind == "intereses":
        return terms.interest_citation or ""
    if row.kind in ("ajuste_ipc", "ajuste_tasa"):
        return terms.adjustment_citation
    if row.kind == "pago":
        return terms.payments_citation or terms.adjustment_citation
    return ""


def _fine_citation(statement: Statement, terms: FineTerms) -> str:
    fine = statement.fine
    window = fine.band.window
    assert window is not None, "a fine always has its band"
    chosen = terms.base_keys.index(fine.base.chosen.key)
    return f"{terms.base_citations[chosen]}; {terms.band_citation(window.band)}"


FINE_CSV_COLUMNS = (
    "paso",
    "tipo",
    "fecha",
    "concepto",
    "norma",
    "valor_por_accion",
    "porcentaje",
    "dias",
    "tasa_pct",
    "conversion",
    "tasa_periodo",
    "intereses",
    "ajuste",
    "pago",
    "aplicado_intereses",
    "aplicado_multa",
    "excedente",
    "saldo_intereses",
    "saldo_multa",
    "saldo_total",
)


def fine_statement_csv(statement: Statement, terms: FineTerms) -> str:
    """The statement as CSV: the bases, the band, then every step of the account, the total
    due, the readings applied and the sources of the series, one row each."""
    fine = statement.fine
    window = fine.band.window
    assert window is not None, "a fine always has its band"
    empty = dict.fromkeys(FINE_CSV_COLUMNS, "")
    rows: list[dict[str, str]] = []
    for candidate, citation in zip(fine.base.candidates, terms.base_citations, strict=True):
        rows.append(
            empty
            | {
                "tipo": "base",
                "concepto": (
                    f"{BASE_LABELS[candidate.key]} ({candidate.text}): "
                    f"{_candidate_result(candidate, fine.base.chosen, terms.base_rule_citation)}"
                ),
                "norma": citation,
                "valor_por_accion": (
                    "" if candidate.centavos is None else pesos_cell(candidate.centavos)
                ),
            }
        )
    rows.append(
        empty
        | {
            "tipo": "tramo",
            "fecha": f"{fine.band.breach:%Y-%m-%d}",
            "concepto": fine.band.reason,
            "norma": terms.band_citation(window.band),
            "porcentaje": str(fine.percent),
        }
    )
    for row in statement.rows:
        cells = empty | {
            "tipo": row.kind,
            "fecha": f"{row.day:%Y-%m-%d}",
            "concepto": _payment_text(row) if row.kind == "pago" else row.concept,
            "norma": _row_citation(row, terms),
            "dias": "" if row.days is None else str(row.days),
            "tasa_pct": "" if row.rate_percent is None else f"{row.rate_percent:f}",
            "conversion": _conversion(row),
            "tasa_periodo": "" if row.period_rate is None else f"{row.period_rate:f}",
            "intereses": pesos_cell(row.interest),
            "ajuste": pesos_cell(row.adjustment),
            "pago": pesos_cell(row.payment),
            "aplicado_intereses": pesos_cell(row.to_interest),
            "aplicado_multa": pesos_cell(row.to_fine),
            "excedente": pesos_cell(row.excess),
            "saldo_intereses": pesos_cell(row.interest_balance),
            "saldo_multa": pesos_cell(row.fine_balance),
            "saldo_total": pesos_cell(row.balance),
        }
        if row.kind == "multa":
            cells |= {
                "norma": _fine_citation(statement, terms),
                "valor_por_accion": pesos_cell(fine.base.centavos),
                "porcentaje": str(fine.percent),
            }
        rows.append(cells)
    last = statement.rows[-1]
    rows.append(
        empty
        | {
            "tipo": "saldo",
            "fecha": f"{statement.until:%Y-%m-%d}",
            "concepto": f"Saldo a pagar el {statement.until:%Y-%m-%d}",
            "saldo_intereses": pesos_cell(last.interest_balance),
            "saldo_multa": pesos_cell(last.fine_balance),
            "saldo_total": pesos_cell(statement.due),
        }
    )
    rows += [empty | {"tipo": "lectura", "concepto": note} for note in statement.notes]
    rows += [empty | {"tipo": "fuente", "concepto": source} for source in statement.sources]
    out = io.StringIO()
    writer = csv.DictWriter(out, FINE_CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for number, row_cells in enumerate(rows, start=1):
        writer.writerow(row_cells | {"paso": str(number)})
    return out.getvalue()


# --- the fine statement: the PDF ---------------------------------------------------------

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
    conversion = _conversion(row)
    if not conversion or row.period_rate is None:
        return ""
    return f"{conversion}\n= {decimal_percent(row.period_rate.scaleb(2), places=10)}"


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
        citation = (
            _fine_citation(statement, terms) if row.kind == "multa" else _row_citation(row, terms)
        )
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


def _account_pages(cells: list[list[str]], room: float) -> list[list[int]]:
    """Which account rows go on each page: as many as fit under the header, in order."""
    header = row_height(ACCOUNT_HEADER, ACCOUNT_FONT)
    pages: list[list[int]] = [[]]
    used = header
    for index, row in enumerate(cells):
        height = row_height(row, ACCOUNT_FONT)
        if pages[-1] and used + height > room:
            pages.append([])
            used = header
        pages[-1].append(index)
        used += height
    return pages


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
        f"Programa {statement.program_id} · al {statement.until:%Y-%m-%d}",
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
                _candidate_result(candidate, fine.base.chosen, terms.base_rule_citation),
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
        fig, top + 0.05, f"Multa: {fine.explain()} ({_fine_citation(statement, terms)})"
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
    pages = _account_pages(everything, room)
    total = len(pages) + 1
    out = io.BytesIO()
    info = metadata(TITLE, f"Multa del programa {statement.program_id}")
    with matplotlib.rc_context(AMOUNTS_STYLE), PdfPages(out, metadata=info) as pdf:
        fig = Figure(figsize=A4_LANDSCAPE)
        _summary(fig, _page_frame(fig, statement, 1, total), statement, terms)
        pdf.savefig(fig)
        for number, indexes in enumerate(pages, start=2):
            fig = Figure(figsize=A4_LANDSCAPE)
            top = _page_frame(fig, statement, number, total)
            top = _text_block(fig, top, "3. Cuenta paso a paso", size=11, bold=True)
            _table_at(
                fig,
                top + 0.05,
                [list(ACCOUNT_HEADER), *(everything[i] for i in indexes)],
                ACCOUNT_NUMERIC,
                ACCOUNT_FONT,
                total=number == total,
                widths=widths,
            )
            pdf.savefig(fig)
    return out.getvalue()


def write_fine_statement(statement: Statement, terms: FineTerms, folder: Path) -> list[Path]:
    """``estado-cuenta-multa.csv`` and ``.pdf`` in ``folder``, each written atomically."""
    return [
        atomic_write(folder / FINE_CSV, fine_statement_csv(statement, terms).encode("utf-8")),
        atomic_write(folder / FINE_PDF, fine_statement_pdf(statement, terms)),
    ]
