"""Central de Seguros (``tasa_moratoria_dia_pago``): the fine adjusted at the maximum legal
default rate certified for the day it is paid.

One rate, the one certified for the day of payment, applied from the breach to that day.
The text says nothing of partial payments, so they are refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from decimal import localcontext

from democratiza.compliance.exact import PRECISE, period_rate, round_centavos
from democratiza.compliance.fines.account import (
    Payment,
    Statement,
    StatementRow,
    check_payments,
    opening,
    rate_step,
)
from democratiza.compliance.fines.amount import FineAmount
from democratiza.compliance.fines.terms import FineError, FineTerms
from democratiza.compliance.series import MaxLegalRate
from democratiza.money import pesos

CENTRAL_NOTES = (
    "Lectura del texto («Estos valores serán ajustados a la tasa máxima moratoria legal que "
    "certifique la Superintendencia Bancaria para el día en que se efectúe el pago de la "
    "multa»): una sola tasa, la certificada para el día del pago, aplicada desde el día del "
    "incumplimiento (incluido) hasta el día del pago (excluido) como "
    "(1 + i)^(días/365) − 1; no hay intereses de mora aparte.",
    "La tasa máxima moratoria legal es la de usura; donde no hay tasa certificada se usa "
    "1,5 × el interés bancario corriente (Código de Comercio art. 884).",
    "El texto no dice cómo se imputan pagos parciales: no se modelan.",
    "El valor ajustado se redondea al centavo (mitad hacia arriba) al cobrarlo.",
)


def payment_day_statement(
    terms: FineTerms,
    fine: FineAmount,
    until: date,
    payments: Sequence[Payment],
    rates: MaxLegalRate,
) -> Statement:
    """Central de Seguros: the value adjusted at the maximum default rate of the payment day.

    Reading (the text is ambiguous on the span and on how the rate is applied): the fine,
    computed on the base per share, is adjusted from the day of the breach to the day of
    payment (``until`` when nothing is paid: what would be due that day) with the single
    effective annual rate certified for the payment day, ``(1 + i)^(days/365)``. The
    alternatives (counting from the adjudication, the rate of each period, or a one-off
    ``× (1 + i)``) are not modelled. Partial payments are refused: the text has no rule for
    them. The maximum legal default rate is the usura rate (1,5 × IBC where no usura
    certification is loaded).
    """
    breach = fine.band.breach
    check_payments(breach, until, payments)
    if len(payments) > 1:
        raise FineError(
            f"{terms.program_called} no dice cómo se imputan pagos parciales; "
            "solo se liquida un pago total."
        )
    day = payments[0].day if payments else until
    rate = rates.on(day, f"el ajuste de la multa pagada el {day:%Y-%m-%d}")
    days = (day - breach).days
    stretch = period_rate(rate.rate, days)
    with localcontext(PRECISE):
        adjustment = fine.exact * stretch
        adjusted = fine.exact + adjustment
    rows = [
        opening(fine, terms.reference_label),
        rate_step(
            "ajuste_tasa",
            day,
            f"Ajuste a la tasa máxima moratoria del día del pago, por {days} días desde "
            "el incumplimiento",
            rate,
            days,
            stretch,
            adjustment=adjustment,
            fine_balance=adjusted,
        ),
    ]
    if payments:
        paid = payments[0]
        owed = round_centavos(adjusted)
        if paid.centavos < owed:
            raise FineError(
                f"El pago de {pesos(paid.centavos)} del {paid.day:%Y-%m-%d} no cubre la multa "
                f"ajustada de {pesos(owed)}. {terms.program_called} no dice cómo se imputan "
                "pagos parciales."
            )
        rows.append(
            StatementRow(
                kind="pago",
                day=paid.day,
                concept="Pago",
                payment=paid.centavos,
                to_fine=owed,
                excess=paid.centavos - owed,
            )
        )
    return Statement(terms.program_name, fine, until, tuple(rows), CENTRAL_NOTES, (rate.source,))
