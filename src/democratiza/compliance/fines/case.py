"""One fine, from the facts to its account: the band, the base, the amount and the statement.

The command line (``democratiza multa calcular``) and the web service (``/api/multas``) ask
the same question with the same facts; this is where it is answered, once. The reference
series are the shipped ones unless the program office gives the official full series.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from democratiza.compliance.fines.account import Payment, Statement
from democratiza.compliance.fines.amount import FineAmount, fine_for
from democratiza.compliance.fines.bands import BandMatch
from democratiza.compliance.fines.cpi_adjustment import cpi_rate_statement
from democratiza.compliance.fines.payment_day_rate import payment_day_statement
from democratiza.compliance.fines.terms import FineError, FineTerms
from democratiza.compliance.series import CpiSeries, MaxLegalRate, shipped_cpi, shipped_max_rate
from democratiza.programs.schema import FineBaseKey, Program


def fine_statement(
    terms: FineTerms,
    fine: FineAmount,
    until: date,
    payments: Sequence[Payment] = (),
    *,
    cpi: CpiSeries | None = None,
    rates: MaxLegalRate,
) -> Statement:
    """The fine's account up to ``until`` by the program's adjustment method."""
    if terms.adjustment == "ipc_1_enero":
        if cpi is None:
            raise FineError("El ajuste por IPC necesita la serie del IPC del DANE.")
        return cpi_rate_statement(terms, fine, until, payments, cpi, rates)
    return payment_day_statement(terms, fine, until, payments, rates)


@dataclass(frozen=True)
class FineComputation:
    terms: FineTerms
    band: BandMatch
    statement: Statement | None  # None when the breach falls in no band (band.reason says why)


def compute_fine(
    program: Program,
    reference: date,
    breach: date,
    shares: int,
    until: date,
    values: Mapping[FineBaseKey, int | None],
    payments: Sequence[Payment] = (),
    *,
    cpi: CpiSeries | None = None,
    rates: MaxLegalRate | None = None,
) -> FineComputation:
    """The fine for ``shares`` breached on ``breach``, and its account up to ``until``.

    ``reference`` is the date the bands count from (the sale or the adjudication, as the
    program says); ``values`` are the candidate bases in centavos per share (unknown: None).
    Raises ``FineError``, ``MissingSeriesValue`` with the reason in Spanish.
    """
    terms = FineTerms.from_program(program)
    band, fine = fine_for(terms, reference, breach, shares, values)
    if fine is None:
        return FineComputation(terms, band, None)
    statement = fine_statement(
        terms,
        fine,
        until,
        payments,
        cpi=cpi or shipped_cpi(),
        rates=rates or shipped_max_rate(),
    )
    return FineComputation(terms, band, statement)
