"""A fine's account in words: the statement as plain Spanish text, one step a paragraph."""

from __future__ import annotations

from democratiza.compliance.fines.account import Statement, StatementRow
from democratiza.money import decimal_percent, pesos


def _rate_text(row: StatementRow) -> str | None:
    """'26,39 % EA = 1,4216401087 % por 22 días' (the stretch's rate shown to 10 decimals)."""
    if row.rate_percent is None or row.period_rate is None or row.days is None:
        return None  # an adjustment by CPI says its rate in the concept
    stretch = decimal_percent(row.period_rate.scaleb(2), places=10)
    return f"{decimal_percent(row.rate_percent)} EA = {stretch} por {row.days} días"


def statement_text(statement: Statement) -> str:
    """The account in Spanish, one step per paragraph."""
    fine = statement.fine
    lines = [
        f"Estado de cuenta de la multa (programa {statement.program_id}) "
        f"al {statement.until:%Y-%m-%d}",
        fine.base.explain(),
        fine.band.reason,
        "",
    ]
    for row in statement.rows:
        lines.append(f"{row.day:%Y-%m-%d}  {row.concept}")
        details = []
        rate = _rate_text(row)
        if rate is not None:
            details.append(rate)
        if row.interest:
            details.append(f"intereses causados {pesos(row.interest)}")
        if row.adjustment:
            details.append(f"ajuste {pesos(row.adjustment)}")
        if row.payment:
            details += [
                f"pago {pesos(row.payment)}",
                f"a intereses {pesos(row.to_interest)}",
                f"a la multa {pesos(row.to_fine)}",
            ]
        if row.excess:
            details.append(f"excedente a devolver {pesos(row.excess)}")
        details += [
            f"saldo intereses {pesos(row.interest_balance)}",
            f"saldo multa {pesos(row.fine_balance)}",
            f"saldo total {pesos(row.balance)}",
        ]
        lines.append("            " + "; ".join(details))
    lines += ["", f"Saldo a pagar el {statement.until:%Y-%m-%d}: {pesos(statement.due)}", ""]
    lines.append("Lecturas aplicadas:")
    lines += [f"- {note}" for note in statement.notes]
    if statement.sources:
        lines += ["", "Fuentes de las series:"]
        lines += [f"- {source}" for source in statement.sources]
    return "\n".join(lines) + "\n"
