"""A fine's account: its steps (``StatementRow``) and the statement they make up.

Rounding: every interest accrual is rounded to centavos half-up when it is booked (it is
computed with 50 significant digits); the fine's balance is carried exactly (the CPI
factors and payments are finite decimals) and rounded half-up only when it is collected or
shown as the total due. A payment that covers the fine's rounded balance settles it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Literal

from democratiza.compliance.exact import round_centavos
from democratiza.compliance.fines.amount import FineAmount
from democratiza.compliance.fines.terms import FineError
from democratiza.compliance.series import AppliedRate
from democratiza.money import decimal_percent


@dataclass(frozen=True)
class Payment:
    """A payment towards the fine: its day and its amount in centavos."""

    day: date
    centavos: int


# What a step of the account is: the fine imposed, default interest of a rate period, the
# 1 January CPI adjustment, the adjustment at the payment day's rate, or a payment.
StepKind = Literal["multa", "intereses", "ajuste_ipc", "ajuste_tasa", "pago"]


@dataclass(frozen=True)
class StatementRow:
    """One step of a fine's account. Money in centavos; the fine's balance is exact."""

    kind: StepKind
    day: date
    concept: str
    days: int | None = None
    rate_percent: Decimal | None = None  # % EA (interest), or the CPI % (adjustment)
    period_rate: Decimal | None = None  # the stretch's rate as a fraction, 50 digits
    interest: int = 0  # default interest booked
    adjustment: Decimal = Decimal(0)  # change in the fine's value (CPI or payment-day rate)
    payment: int = 0
    to_interest: int = 0
    to_fine: int = 0
    excess: int = 0  # paid above everything due
    interest_balance: int = 0
    fine_balance: Decimal = Decimal(0)

    @property
    def balance(self) -> int:
        """Everything due after this step, in centavos (the fine rounded half-up)."""
        return self.interest_balance + round_centavos(self.fine_balance)


@dataclass(frozen=True)
class Statement:
    """A fine's account up to ``until``: its steps, the readings applied and the sources."""

    program_name: str  # as its file names it
    fine: FineAmount
    until: date
    rows: tuple[StatementRow, ...]
    notes: tuple[str, ...]  # the readings applied, in Spanish
    sources: tuple[str, ...]  # every series value's ``fuente`` used, first use first

    @property
    def due(self) -> int:
        """What settles the fine on ``until`` (after that day's payments)."""
        return self.rows[-1].balance


def check_payments(breach: date, until: date, payments: Sequence[Payment]) -> None:
    """Positive payments, in date order, between the breach and the statement's date."""
    if until < breach:
        raise FineError(
            f"La fecha del estado de cuenta ({until:%Y-%m-%d}) es anterior al incumplimiento "
            f"({breach:%Y-%m-%d})."
        )
    previous = breach
    for p in payments:
        if p.centavos <= 0:
            raise FineError(f"El pago del {p.day:%Y-%m-%d} debe ser positivo.")
        if not breach <= p.day <= until:
            raise FineError(
                f"El pago del {p.day:%Y-%m-%d} está fuera del periodo del estado de cuenta "
                f"({breach:%Y-%m-%d} a {until:%Y-%m-%d})."
            )
        if p.day < previous:
            raise FineError("Los pagos deben venir en orden de fecha.")
        previous = p.day


def opening(fine: FineAmount, reference_label: str) -> StatementRow:
    """The account's first step, by either method: the fine imposed on the breach day."""
    window = fine.band.window
    assert window is not None
    return StatementRow(
        kind="multa",
        day=fine.band.breach,
        concept=(
            f"Multa por incumplimiento: {fine.explain()} "
            f"(tramo del {window.band.percent} %, {reference_label} "
            f"{fine.band.reference:%Y-%m-%d})"
        ),
        fine_balance=fine.exact,
    )


def rate_step(
    kind: StepKind,
    day: date,
    what: str,
    rate: AppliedRate,
    days: int,
    stretch: Decimal,
    *,
    fine_balance: Decimal,
    interest: int = 0,
    interest_balance: int = 0,
    adjustment: Decimal = Decimal(0),
) -> StatementRow:
    """A step at the maximum legal rate, by either method: ``what`` it is, then the rate it
    applied ('usura del periodo 2019-01 (…): 28,74 % EA, 1,5 × interés bancario corriente
    …'), its days and the stretch's rate."""
    return StatementRow(
        kind=kind,
        day=day,
        concept=(
            f"{what}; usura del periodo {rate.label}: {decimal_percent(rate.percent)} EA, "
            f"{rate.origin}"
        ),
        days=days,
        rate_percent=rate.percent,
        period_rate=stretch,
        interest=interest,
        adjustment=adjustment,
        interest_balance=interest_balance,
        fine_balance=fine_balance,
    )
