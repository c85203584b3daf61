"""The fine: shares × base per share × the band's percentage (GEB art. 11.1; Central de
Seguros, inciso of fines).

It is exact (centavos × a whole percentage) and is rounded to centavos half-up only when it
is collected.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from democratiza.compliance.exact import EXACT, round_centavos
from democratiza.compliance.fines.bands import BandMatch, band_for
from democratiza.compliance.fines.terms import (
    BASE_LABELS,
    FineBase,
    FineError,
    FineTerms,
    fine_base,
)
from democratiza.money import group, pesos
from democratiza.programs.schema import FineBaseKey


@dataclass(frozen=True)
class FineAmount:
    """shares × base × percentage, exact in centavos."""

    shares: int
    base: FineBase
    band: BandMatch

    @property
    def percent(self) -> int:
        assert self.band.percent is not None
        return self.band.percent

    @property
    def exact(self) -> Decimal:
        return Decimal(self.shares * self.base.centavos * self.percent).scaleb(-2, EXACT)

    @property
    def centavos(self) -> int:
        return round_centavos(self.exact)

    def explain(self) -> str:
        return (
            f"{group(self.shares)} acciones × {pesos(self.base.centavos)} "
            f"({BASE_LABELS[self.base.chosen.key]}) × {self.percent} % = "
            f"{pesos(self.exact)}"
        )


def fine_amount(shares: int, base: FineBase, band: BandMatch) -> FineAmount:
    if shares <= 0:
        raise FineError("El número de acciones del incumplimiento debe ser positivo.")
    if band.window is None:
        raise FineError(f"No hay multa: {band.reason}")
    return FineAmount(shares, base, band)


def fine_for(
    terms: FineTerms,
    reference: date,
    breach: date,
    shares: int,
    values: Mapping[FineBaseKey, int | None],
) -> tuple[BandMatch, FineAmount | None]:
    """The band a breach falls in and, if it falls in one, the fine (base × shares × %).

    ``reference`` is the date the bands count from (the sale or the adjudication).
    """
    band = band_for(reference, breach, terms.bands, terms.reference_label)
    if band.percent is None:
        return band, None
    return band, fine_amount(shares, fine_base(terms, values), band)
