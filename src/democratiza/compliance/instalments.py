"""Payment in instalments of an award: the down payment and the instalments, in centavos.

The program file's plan (``formas_de_pago[].cuotas``) gives the down payment as a percentage
of the price of the shares awarded, and the number of equal instalments of the rest. In
whole centavos: the down payment is the percentage rounded up to the centavo (never less
than the decree asks); the rest is split in equal instalments, the first ones a centavo
more when it does not divide exactly, so that everything adds up to the price. The
maximum financed amount is already a limit of the acceptance (``tope_financiado``), so what
is awarded never finances more.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import ceil

from sqlalchemy import Connection, select

from democratiza.money import decimal_percent, pesos
from democratiza.offers.lifecycle import StoredOffer
from democratiza.programs.schema import InstalmentPlan, Program
from democratiza.storage.schema import acceptances
from democratiza.words import count


@dataclass(frozen=True)
class InstalmentSchedule:
    total: int  # the price of the shares awarded
    down_payment: int
    instalments: tuple[int, ...]

    @property
    def financed(self) -> int:
        return self.total - self.down_payment


def instalment_schedule(shares: int, price: int, plan: InstalmentPlan) -> InstalmentSchedule:
    """``shares`` awarded at ``price`` centavos each, paid as ``plan`` says."""
    total = shares * price
    down = ceil(Fraction(total) * Fraction(plan.down_payment.value) / 100)
    each, extra = divmod(total - down, plan.instalments.value)
    instalments = tuple(each + 1 if i < extra else each for i in range(plan.instalments.value))
    return InstalmentSchedule(total, down, instalments)


def schedule_lines(program: Program, schedule: InstalmentSchedule) -> list[str]:
    """The schedule in Spanish, with the articles of the plan."""
    plan = program.instalment_plan
    assert plan is not None, "a schedule is only made under a plan"

    first = (
        f"Cuota inicial: {decimal_percent(plan.down_payment.value)} de "
        f"{pesos(schedule.total)} = {pesos(schedule.down_payment)} "
        f"({program.cite(plan.down_payment.citation)})."
    )
    sizes = sorted(set(schedule.instalments), reverse=True)
    parts = [
        f"{count(schedule.instalments.count(size), 'cuota', 'cuotas')} de {pesos(size)}"
        for size in sizes
    ]
    rest = (
        f"Saldo: {pesos(schedule.financed)} en "
        f"{count(len(schedule.instalments), 'cuota', 'cuotas')}: {' y '.join(parts)} "
        f"({program.cite(plan.instalments.citation)})."
    )
    return [first, rest]


def instalment_payers(conn: Connection, stored: StoredOffer) -> frozenset[str]:
    """The radicados of the offer's current acceptances that chose to pay in instalments."""
    chosen = select(acceptances.c.radicado).where(
        acceptances.c.oferta_id == stored.id,
        acceptances.c.vigente,
        acceptances.c.forma_pago == "cuotas",
    )
    return frozenset(conn.execute(chosen).scalars())
