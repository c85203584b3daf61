"""Colombian business days: weekends and national holidays (Ley 51 de 1983, Ley Emiliani)."""

from __future__ import annotations

from datetime import date, timedelta
from functools import lru_cache

import holidays


@lru_cache(maxsize=64)
def _holidays(year: int) -> frozenset[date]:
    return frozenset(holidays.country_holidays("CO", years=[year], language="es").keys())


def is_business_day(day: date) -> bool:
    return day.weekday() < 5 and day not in _holidays(day.year)


def next_business_day(day: date) -> date:
    """The first business day strictly after ``day``."""
    candidate = day + timedelta(days=1)
    while not is_business_day(candidate):
        candidate += timedelta(days=1)
    return candidate


def previous_business_day(day: date) -> date:
    """The last business day strictly before ``day``."""
    candidate = day - timedelta(days=1)
    while not is_business_day(candidate):
        candidate -= timedelta(days=1)
    return candidate


def add_months(day: date, months: int) -> date:
    """The same day number ``months`` later; the month's last day when it has no such day."""
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    last = (date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)).day
    return date(year, month, min(day.day, last))
