"""Which fine band a breach falls in, counted in calendar months from the reference date.

The decrees (GEB art. 11.1; Central de Seguros, inciso of fines) write the bands as
"dentro de los primeros seis (6) meses siguientes a la fecha de enajenación" (100 %), "entre
los seis (6) meses y un (1) día y los doce (12) meses siguientes" (75 %), and so on to 24
months. Read literally, a band from m to n months covers the days after ``reference + m
months`` up to and including ``reference + n months``; the first band starts on the
reference date itself (the shares can be sold again the very day they are received).
``reference + m months`` is ``calendar.add_months``: the same day number, or the month's last
day when the month has no such day (31 August + 6 months = 28 or 29 February). Every bound
is counted from the reference date, never chained from the previous bound.

The date to pass is the day the breach occurred or, if that is unknown, the day it was
identified ("ocurre o se identifica", GEB art. 11.1): the earlier date gives the band.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from democratiza.calendar import add_months
from democratiza.programs.schema import FineBand
from democratiza.words import word


class BandError(ValueError):
    """The program's bands cannot be applied (not contiguous from month 0)."""


@dataclass(frozen=True)
class BandWindow:
    """A band's days: from ``first_day`` to ``last_day``, both inclusive."""

    band: FineBand
    first_day: date
    last_day: date

    def describe(self, reference_label: str) -> str:
        band = self.band
        if band.from_months == 0:
            span = f"dentro de los primeros {band.to_months} meses siguientes"
        else:
            span = f"entre los {band.from_months} meses y un día y los {band.to_months} meses"
            span += " siguientes"
        return (
            f"{span} a la {reference_label} (del {self.first_day:%Y-%m-%d} "
            f"al {self.last_day:%Y-%m-%d}): {band.percent} %"
        )


@dataclass(frozen=True)
class BandMatch:
    """The band a breach falls in, or ``window`` None and the reason there is no fine."""

    breach: date
    reference: date
    window: BandWindow | None
    reason: str

    @property
    def percent(self) -> int | None:
        return None if self.window is None else self.window.band.percent


def check_bands(bands: Sequence[FineBand]) -> None:
    """Bands must start at month 0 and follow each other without gap or overlap."""
    expected = 0
    for i, band in enumerate(bands):
        if band.from_months != expected:
            raise BandError(
                f"tramo {i + 1} de la multa: empieza en el mes {band.from_months}, "
                f"se esperaba el mes {expected} (los tramos van seguidos desde el mes 0)"
            )
        if band.to_months <= band.from_months:
            raise BandError(
                f"tramo {i + 1} de la multa: termina en el mes {band.to_months}, "
                f"no después del mes {band.from_months} en que empieza"
            )
        expected = band.to_months
    if not bands:
        raise BandError("el programa no tiene tramos de multa")


def band_windows(reference: date, bands: Sequence[FineBand]) -> tuple[BandWindow, ...]:
    """Each band's first and last day for this reference date."""
    check_bands(bands)
    out = []
    for band in bands:
        first = (
            reference
            if band.from_months == 0
            else add_months(reference, band.from_months) + timedelta(days=1)
        )
        out.append(BandWindow(band, first, add_months(reference, band.to_months)))
    return tuple(out)


def band_for(
    reference: date,
    breach: date,
    bands: Sequence[FineBand],
    reference_label: str = word("fecha_referencia_multa", "enajenacion"),
) -> BandMatch:
    """The band of a breach on ``breach`` for shares received on ``reference``."""
    windows = band_windows(reference, bands)
    if breach < reference:
        reason = (
            f"El incumplimiento del {breach:%Y-%m-%d} es anterior a la {reference_label} "
            f"({reference:%Y-%m-%d}): no hay multa por un compromiso que aún no regía."
        )
        return BandMatch(breach, reference, None, reason)
    for window in windows:
        if window.first_day <= breach <= window.last_day:
            reason = (
                f"El incumplimiento del {breach:%Y-%m-%d} cae {window.describe(reference_label)}."
            )
            return BandMatch(breach, reference, window, reason)
    last = windows[-1]
    reason = (
        f"El incumplimiento del {breach:%Y-%m-%d} es posterior a los {last.band.to_months} meses "
        f"siguientes a la {reference_label} del {reference:%Y-%m-%d} (terminaron el "
        f"{last.last_day:%Y-%m-%d}): ningún tramo le asigna multa."
    )
    return BandMatch(breach, reference, None, reason)
