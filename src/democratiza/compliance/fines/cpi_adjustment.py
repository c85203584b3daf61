"""GEB (``ipc_1_enero``, Decreto 706/2017 art. 11 and 11.1): the CPI every 1 January,
default interest at usura on top, payments to the interest first.

Every 1 January after the breach, up to and including the statement's date, the unpaid fine
is multiplied by (1 + the previous year's CPI), exactly. On top, default interest at the
highest legal rate (usura) from the breach until payment, each day at the rate in force that
day: for a stretch of ``d`` days at an effective annual rate ``i`` the rate of the stretch is
(1 + i)^(d/365) − 1 (50 significant digits; the annual rate is never divided). Interest
accrues on the fine's balance only, never on unpaid interest (no anatocismo). Days count
from the breach day (included) to the payment day (excluded). A payment goes first to the
interest accrued up to its date, the rest to the fine (art. 11.1); anything above both is
reported as excess. On a 1 January that is also a payment day the adjustment comes first.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta
from decimal import Decimal, localcontext

from democratiza.compliance.exact import EXACT, PRECISE, period_rate, round_centavos
from democratiza.compliance.fines.account import (
    Payment,
    Statement,
    StatementRow,
    check_payments,
    opening,
    rate_step,
)
from democratiza.compliance.fines.amount import FineAmount
from democratiza.compliance.fines.terms import FineTerms
from democratiza.compliance.series import CpiSeries, MaxLegalRate
from democratiza.money import decimal_percent, pesos

GEB_NOTES = (
    "Intereses de mora a la tasa de usura vigente cada día, desde el día del incumplimiento "
    "(incluido) hasta el día del pago (excluido); la tasa efectiva anual i se convierte a "
    "los días del periodo como (1 + i)^(días/365) − 1.",
    "Los intereses se causan sobre el saldo de la multa, nunca sobre intereses.",
    "Donde no hay tasa de usura certificada se usa 1,5 × el interés bancario corriente "
    "(Código de Comercio art. 884).",
    "Cada 1 de enero el saldo de la multa se multiplica por 1 + el IPC del año anterior "
    "(DANE), antes de aplicar un pago de ese día.",
    "Los pagos se aplican primero a los intereses causados hasta su fecha y luego a la multa.",
    "Cada partida de intereses se redondea al centavo (mitad hacia arriba); el saldo de la "
    "multa se lleva exacto y se redondea al centavo al cobrarlo.",
)


def cpi_rate_statement(
    terms: FineTerms,
    fine: FineAmount,
    until: date,
    payments: Sequence[Payment],
    cpi: CpiSeries,
    rates: MaxLegalRate,
) -> Statement:
    """GEB art. 11 and 11.1: CPI every 1 January, default interest at usura, interest first."""
    breach = fine.band.breach
    check_payments(breach, until, payments)
    fine_balance = fine.exact
    interest_balance = 0
    rows = [opening(fine, terms.reference_label)]
    sources: dict[str, None] = {}
    januaries = [date(y, 1, 1) for y in range(breach.year + 1, until.year + 1)]
    pending = list(payments)
    cursor = breach  # the first day not yet accrued

    while True:
        stops = [until] + januaries[:1] + [p.day for p in pending[:1]]
        stop = min(stops)
        # Default interest from cursor to the day before stop, stretch by stretch of rate.
        while cursor < stop and fine_balance > 0:
            rate = rates.on(cursor, f"los intereses de mora del {cursor:%Y-%m-%d}")
            end = min(stop, rate.end + timedelta(days=1))
            days = (end - cursor).days
            sources[rate.source] = None
            stretch = period_rate(rate.rate, days)
            with localcontext(PRECISE):
                interest = round_centavos(fine_balance * stretch)
            interest_balance += interest
            last = end - timedelta(days=1)
            rows.append(
                rate_step(
                    "intereses",
                    last,
                    f"Intereses de mora del {cursor:%Y-%m-%d} al {last:%Y-%m-%d}",
                    rate,
                    days,
                    stretch,
                    interest=interest,
                    interest_balance=interest_balance,
                    fine_balance=fine_balance,
                )
            )
            cursor = end
        cursor = stop
        if januaries and januaries[0] == stop:
            januaries.pop(0)
            if fine_balance > 0:
                year = stop.year - 1
                item = cpi.for_year(year, f"el ajuste del 1 de enero de {stop.year}")
                sources[item.source] = None
                adjusted = EXACT.multiply(fine_balance, item.factor)
                rows.append(
                    StatementRow(
                        kind="ajuste_ipc",
                        day=stop,
                        concept=(
                            f"Ajuste del 1 de enero de {stop.year} por el IPC de {year}: "
                            f"{pesos(fine_balance)} × (1 + {decimal_percent(item.percent)})"
                            f" = {pesos(adjusted)}"
                        ),
                        rate_percent=item.percent,
                        adjustment=EXACT.subtract(adjusted, fine_balance),
                        interest_balance=interest_balance,
                        fine_balance=adjusted,
                    )
                )
                fine_balance = adjusted
        while pending and pending[0].day == stop:
            paid = pending.pop(0)
            to_interest = min(paid.centavos, interest_balance)
            owed_fine = round_centavos(fine_balance)
            to_fine = min(paid.centavos - to_interest, owed_fine)
            interest_balance -= to_interest
            settled = to_fine == owed_fine
            fine_balance = Decimal(0) if settled else EXACT.subtract(fine_balance, to_fine)
            rows.append(
                StatementRow(
                    kind="pago",
                    day=stop,
                    concept="Pago",
                    payment=paid.centavos,
                    to_interest=to_interest,
                    to_fine=to_fine,
                    excess=paid.centavos - to_interest - to_fine,
                    interest_balance=interest_balance,
                    fine_balance=fine_balance,
                )
            )
        if stop == until:
            break
    return Statement(terms.program_name, fine, until, tuple(rows), GEB_NOTES, tuple(sources))
