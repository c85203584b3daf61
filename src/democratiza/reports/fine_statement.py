"""A fine's statement as CSV (and PDF, ``reports.fine_statement_pdf``), each file written
atomically.

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

from pathlib import Path

from democratiza.compliance.fines.account import Statement
from democratiza.compliance.fines.terms import BASE_LABELS, FineTerms
from democratiza.compliance.fines.text import (
    base_result,
    payment_wording,
    rate_conversion,
    shown_period_rate,
    step_citation,
)
from democratiza.money import pesos_cell
from democratiza.reports.fine_statement_pdf import fine_statement_pdf
from democratiza.reports.render.files import atomic_write
from democratiza.tables.cells import csv_text

FINE_CSV = "estado-cuenta-multa.csv"
FINE_PDF = "estado-cuenta-multa.pdf"
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
                    f"{base_result(candidate, fine.base.chosen, terms.base_rule_citation)}"
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
            "concepto": payment_wording(row) if row.kind == "pago" else row.concept,
            "norma": step_citation(row, fine, terms),
            "dias": "" if row.days is None else str(row.days),
            "tasa_pct": "" if row.rate_percent is None else f"{row.rate_percent:f}",
            "conversion": rate_conversion(row),
            "tasa_periodo": (
                "" if row.period_rate is None else f"{shown_period_rate(row.period_rate):f}"
            ),
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
    numbered = (cells | {"paso": str(n)} for n, cells in enumerate(rows, start=1))
    return csv_text(FINE_CSV_COLUMNS, ([r.get(c, "") for c in FINE_CSV_COLUMNS] for r in numbered))


def write_fine_statement(statement: Statement, terms: FineTerms, folder: Path) -> list[Path]:
    """``estado-cuenta-multa.csv`` and ``.pdf`` in ``folder``, each written atomically."""
    return [
        atomic_write(folder / FINE_CSV, fine_statement_csv(statement, terms).encode("utf-8")),
        atomic_write(folder / FINE_PDF, fine_statement_pdf(statement, terms)),
    ]
