"""A loan's amortisation schedule: the capital grace, then equal (French) instalments.

Monthly periods; the n-th falls on the start date + n calendar months
(``calendar.add_months``: 31 January + 1 month = 28/29 February, + 2 months = 31 March),
not moved to a business day. The monthly rate is (1 + EA)^(1/12) − 1 with 50 significant
digits, never EA / 12, and every month carries that rate whatever its number of days.

During the capital grace each month's interest is either paid (the instalment is the
interest) or capitalised (added to the balance; the instalment is zero). After the grace
the balance is repaid in equal (French) instalments over the remaining months:
A = B · m / (1 − (1 + m)^−n), or B / n at a zero rate.

Rounding: each month's interest is balance × m rounded half-up to the centavo; the
instalment A is rounded half-up to the centavo once; each month's capital is the rounded
instalment minus that month's interest. The last instalment pays the remaining balance
exactly plus its interest, so it absorbs every rounding residue: the capital paid is the
principal (plus the capitalised interest) to the centavo and the final balance is zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal, localcontext

from democratiza.calendar import add_months
from democratiza.compliance.credit.lines import CreditError, rate_problems
from democratiza.compliance.exact import PRECISE, period_rate, round_centavos
from democratiza.money import decimal_percent, pesos_cents


def monthly_rate(rate_ea: Decimal) -> Decimal:
    """(1 + EA)^(1/12) − 1 with 50 significant digits; never EA / 12."""
    problems = rate_problems(rate_ea)
    if problems:
        raise CreditError(problems[0])
    if rate_ea == 0:
        return Decimal(0)
    return period_rate(rate_ea, 1, 12)


@dataclass(frozen=True)
class ScheduleRow:
    """One month. Centavos; instalment = interest − capitalised + principal."""

    number: int
    day: date
    opening: int
    interest: int  # accrued this month, rounded half-up
    capitalised: int  # the part of ``interest`` added to the balance (grace, if capitalised)
    principal: int  # capital repaid
    instalment: int  # what the borrower pays
    closing: int  # opening + capitalised − principal

    @property
    def interest_paid(self) -> int:
        return self.interest - self.capitalised


@dataclass(frozen=True)
class Schedule:
    principal: int
    rate_ea: Decimal
    monthly_rate: Decimal
    term_months: int
    grace_months: int
    capitalise_grace_interest: bool
    start: date
    instalment: int  # the French instalment after the grace, rounded (the last one differs)
    rows: tuple[ScheduleRow, ...]

    @property
    def interest_accrued(self) -> int:
        return sum(r.interest for r in self.rows)

    @property
    def interest_capitalised(self) -> int:
        return sum(r.capitalised for r in self.rows)

    @property
    def interest_paid(self) -> int:
        """Interest paid as interest (the capitalised part is paid as capital)."""
        return sum(r.interest_paid for r in self.rows)

    @property
    def principal_paid(self) -> int:
        """The principal plus the capitalised interest, to the centavo."""
        return sum(r.principal for r in self.rows)

    @property
    def total_paid(self) -> int:
        return sum(r.instalment for r in self.rows)

    @property
    def closing(self) -> int:
        return self.rows[-1].closing

    def notes(self) -> tuple[str, ...]:
        grace = (
            "capitalizados: se suman al saldo y se pagan con las cuotas de capital"
            if self.capitalise_grace_interest
            else "pagados mes a mes"
        )
        return (
            f"Tasa mensual = (1 + {decimal_percent(self.rate_ea.scaleb(2))})^(1/12) − 1 = "
            f"{decimal_percent(self.monthly_rate.scaleb(2), places=10)} (nunca la tasa anual "
            "dividida por 12).",
            f"Gracia a capital de {self.grace_months} meses; intereses de la gracia {grace}.",
            f"Cuota fija (sistema francés) de {pesos_cents(self.instalment)} durante "
            f"{self.term_months - self.grace_months} meses.",
            "Cada interés mensual y la cuota se redondean al centavo (mitad hacia arriba); el "
            "abono a capital es la cuota menos el interés; la última cuota paga el saldo exacto "
            "y absorbe los residuos del redondeo.",
            "Las fechas son el mismo día de cada mes desde el desembolso (o el último día del "
            "mes si no lo tiene), sin correr a día hábil.",
            f"Totales: abono a capital {pesos_cents(self.principal_paid)} = monto "
            f"{pesos_cents(self.principal)} + intereses capitalizados "
            f"{pesos_cents(self.interest_capitalised)}; cuotas {pesos_cents(self.total_paid)} = "
            f"intereses pagados {pesos_cents(self.interest_paid)} + abono a capital "
            f"{pesos_cents(self.principal_paid)}; saldo final {pesos_cents(self.closing)}.",
        )


def amortization_schedule(
    principal_centavos: int,
    rate_ea: Decimal,
    term_months: int,
    grace_months: int,
    capitalise_grace_interest: bool,
    start: date,
) -> Schedule:
    """Monthly schedule: capital grace, then equal instalments; see the module's notes."""
    if principal_centavos <= 0:
        raise CreditError("El monto del crédito debe ser positivo.")
    if grace_months < 0 or term_months <= grace_months:
        raise CreditError(
            f"El plazo ({term_months} meses) debe ser mayor que la gracia ({grace_months} "
            "meses), y la gracia no negativa."
        )
    m = monthly_rate(rate_ea)
    rows: list[ScheduleRow] = []
    balance = principal_centavos

    def accrue(amount: int) -> int:
        with localcontext(PRECISE):
            return round_centavos(amount * m)

    def book(n: int, interest: int, capitalised: int, principal: int) -> None:
        """Month ``n``: its interest, the part of it capitalised and the capital repaid; the
        borrower pays the rest of the interest and the capital."""
        nonlocal balance
        rows.append(
            ScheduleRow(
                number=n,
                day=add_months(start, n),
                opening=balance,
                interest=interest,
                capitalised=capitalised,
                principal=principal,
                instalment=interest - capitalised + principal,
                closing=balance + capitalised - principal,
            )
        )
        balance += capitalised - principal

    for n in range(1, grace_months + 1):
        interest = accrue(balance)
        book(n, interest, interest if capitalise_grace_interest else 0, 0)

    remaining = term_months - grace_months
    with localcontext(PRECISE) as ctx:
        if m == 0:
            exact = Decimal(balance) / remaining
        else:
            exact = balance * m / (1 - ctx.power(1 + m, -remaining))
    instalment = round_centavos(exact)

    for n in range(grace_months + 1, term_months + 1):
        interest = accrue(balance)
        # The last month repays the balance exactly; the others the instalment less interest.
        due = balance if n == term_months else instalment - interest
        book(n, interest, 0, min(max(due, 0), balance))

    assert balance == 0
    return Schedule(
        principal=principal_centavos,
        rate_ea=rate_ea,
        monthly_rate=m,
        term_months=term_months,
        grace_months=grace_months,
        capitalise_grace_interest=capitalise_grace_interest,
        start=start,
        instalment=instalment,
        rows=tuple(rows),
    )
