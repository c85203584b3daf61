"""One fine, from the facts to its account: the band, the base, the amount and the statement.

The command line (``democratiza multa calcular``) and the web service (``/api/multas``) ask
the same question with the same facts; this is where it is answered, once. The reference
series are the shipped ones unless the program office gives the official full series.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from democratiza.compliance.bands import BandMatch
from democratiza.compliance.fines import (
    FineTerms,
    Payment,
    Statement,
    fine_for,
    fine_statement,
)
from democratiza.compliance.series import CpiSeries, MaxLegalRate, shipped_cpi, shipped_max_rate
from democratiza.programs.schema import FineBaseKey, Program


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
