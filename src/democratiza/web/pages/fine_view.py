"""A fine's statement as the page shows it, and the partial payments typed in its form.

Why a page and not the text: the clerk asks first what is owed today; the balance opens the
page, then how the fine was reached (base, band), then the account step by step as a table
(each step's interest, payment and balances), then the readings and the sources. The
payments are typed one a line, "2019-03-01 1.000.000" (a date, then the amount as people
write it, ``money.parse_pesos``); a line that cannot be read is named by its number.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from democratiza.compliance.exact import round_centavos
from democratiza.compliance.fines.account import Payment, Statement
from democratiza.compliance.fines.text import payment_wording
from democratiza.money import MoneyError, parse_pesos, pesos
from democratiza.web.errors import ErrorItem

MAX_PAYMENTS = 200


def read_payments(text: str) -> tuple[list[Payment], list[ErrorItem]]:
    """The payments typed, one a line: its date (AAAA-MM-DD) and its amount in pesos."""
    payments, problems = [], []
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), start=1)]
    typed = [(n, line) for n, line in lines if line]
    if len(typed) > MAX_PAYMENTS:
        message = f"a lo sumo {MAX_PAYMENTS} pagos en un estado de cuenta"
        return [], [ErrorItem(columna="pagos", mensaje=message)]
    for number, line in typed:
        day_text, _, amount = line.replace(";", " ").partition(" ")
        try:
            day = date.fromisoformat(day_text.strip())
        except ValueError:
            message = f"línea {number}: empiece con la fecha del pago, AAAA-MM-DD ('{line}')"
            problems.append(ErrorItem(columna="pagos", mensaje=message))
            continue
        try:
            cents = parse_pesos(amount.strip())
        except MoneyError as exc:
            problems.append(ErrorItem(columna="pagos", mensaje=f"línea {number}: {exc}"))
            continue
        payments.append(Payment(day, cents))
    return payments, problems


def statement_view(statement: Statement) -> dict[str, Any]:
    """The statement for the page: the balance first, the fine, the steps, the readings."""
    fine = statement.fine
    return {
        "saldo": pesos(statement.due),
        "al": f"{statement.until:%Y-%m-%d}",
        "programa": statement.program_name,
        "multa": pesos(fine.centavos),
        "calculo": fine.explain(),
        "base": fine.base.explain(),
        "tramo": fine.band.reason,
        "pagado": pesos(sum(r.payment for r in statement.rows)),
        "pasos": [
            {
                "fecha": f"{row.day:%Y-%m-%d}",
                "concepto": payment_wording(row) if row.kind == "pago" else row.concept,
                "intereses": pesos(row.interest) if row.interest else "",
                "pago": pesos(row.payment) if row.payment else "",
                "saldo_intereses": pesos(row.interest_balance),
                "saldo_multa": pesos(round_centavos(row.fine_balance)),
                "saldo": pesos(row.balance),
            }
            for row in statement.rows
        ],
        "lecturas": list(statement.notes),
        "fuentes": list(statement.sources),
    }
