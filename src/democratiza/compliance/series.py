"""Reference series for fines: DANE's CPI and the Superfinanciera's certified rates.

Shipped as versioned CSV files in ``compliance/data/`` (UTF-8, one row per value, a
``fuente`` for every row):

- ``ipc.csv``: ``anio, variacion_pct, fuente``: CPI variation December to December, in %.
- ``interes_bancario_corriente.csv``: ``desde, hasta, tasa_ea, fuente``: the interés bancario
  corriente (consumo y ordinario) in % efectivo anual, for its validity period (both dates
  inclusive). Certified quarterly until 2017, monthly after.
- ``usura.csv``: the same columns, for the usura rate (the maximum legal rate) where it is
  known as such. Elsewhere it is 1,5 × the interés bancario corriente (Código de Comercio
  art. 884), computed here, never stored.

The shipped files hold only the points the sources document lists (``programs/normas/fuentes.md``
§5, each with its public source); the gaps stay gaps. The
program office loads the official full series from its own CSV (same columns), which is
validated the same way plus one rule: no gap between its first and last period.
A lookup for a date or year without a value raises ``MissingSeriesValue`` naming the
period; nothing is ever interpolated.

Values are read as ``Decimal`` exactly as written (``21.26`` or, with ``;`` as separator,
``21,26``); a percentage becomes a rate by the exact division by 100.
"""

from __future__ import annotations

import bisect
import csv
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import Literal, TypeVar

from democratiza.money import decimal_percent
from democratiza.tables.csv_layout import header_separator

DATA_PACKAGE = "democratiza.compliance.data"
CPI_FILE = "ipc.csv"
IBC_FILE = "interes_bancario_corriente.csv"
USURA_FILE = "usura.csv"
CPI_COLUMNS = ("anio", "variacion_pct", "fuente")
RATE_COLUMNS = ("desde", "hasta", "tasa_ea", "fuente")
LAST_QUARTERLY_YEAR = 2017  # the IBC is certified quarterly until 2017, monthly after
USURA_FACTOR = Decimal("1.5")  # Código de Comercio art. 884
USURA_RULE = "1,5 × interés bancario corriente (Código de Comercio art. 884)"

RateKind = Literal["interes_bancario_corriente", "usura"]
RATE_NAMES: dict[RateKind, str] = {
    "interes_bancario_corriente": "interés bancario corriente",
    "usura": "tasa de usura",
}

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_NUMBER = re.compile(r"^-?\d+(?:[.,]\d+)?$")
_YEAR = re.compile(r"^\d{4}$")
T = TypeVar("T")


# --- errors ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeriesProblem:
    """One problem in a series file; ``row`` is the file's line (the header is line 1)."""

    file: str
    row: int | None
    column: str | None
    message: str

    def __str__(self) -> str:
        where = self.file
        if self.row is not None:
            where += f", fila {self.row}"
        if self.column is not None:
            where += f", columna '{self.column}'"
        return f"{where}: {self.message}"


class SeriesFileError(ValueError):
    """A series file refused; every problem found is listed, each with file, row and column."""

    def __init__(self, problems: list[SeriesProblem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


class MissingSeriesValue(LookupError):
    """A computation needs a value the loaded series do not have: it stops, naming the period."""

    def __init__(self, series: str, period: str, needed_for: str) -> None:
        self.series = series
        self.period = period
        super().__init__(
            f"Falta {series} del periodo {period}, necesario para {needed_for}. "
            "No se interpola: cargue la serie oficial que incluya ese periodo."
        )


# --- periods -----------------------------------------------------------------------------


def month_end(day: date) -> date:
    following = date(day.year + day.month // 12, day.month % 12 + 1, 1)
    return following - timedelta(days=1)


def certification_period(day: date) -> tuple[date, date]:
    """The period the Superfinanciera certifies a rate for: a quarter until 2017, then a month."""
    if day.year <= LAST_QUARTERLY_YEAR:
        first_month = 3 * ((day.month - 1) // 3) + 1
        return date(day.year, first_month, 1), month_end(date(day.year, first_month + 2, 1))
    return date(day.year, day.month, 1), month_end(day)


def period_label(start: date, end: date) -> str:
    """'2018-04' for a whole month, '2017-T1' for a whole quarter, else both dates."""
    whole_months = start.day == 1 and end == month_end(end)
    if whole_months and (start.year, start.month) == (end.year, end.month):
        return f"{start:%Y-%m} ({start:%Y-%m-%d} a {end:%Y-%m-%d})"
    if (
        whole_months
        and start.year == end.year
        and start.month % 3 == 1
        and end.month == start.month + 2
    ):
        return f"{start.year}-T{start.month // 3 + 1} ({start:%Y-%m-%d} a {end:%Y-%m-%d})"
    return f"{start:%Y-%m-%d} a {end:%Y-%m-%d}"


@dataclass(frozen=True)
class RatePeriod:
    """A certified rate, in % efectivo anual, in force from ``start`` to ``end`` inclusive."""

    start: date
    end: date
    percent: Decimal
    source: str

    @property
    def rate(self) -> Decimal:
        """As a fraction (21.26 % → 0.2126): an exact shift of the decimal point."""
        return self.percent.scaleb(-2)

    @property
    def label(self) -> str:
        return period_label(self.start, self.end)


@dataclass(frozen=True)
class RateSeries:
    """Non-overlapping periods in date order; gaps are allowed only in the shipped points."""

    kind: RateKind
    file: str
    periods: tuple[RatePeriod, ...]

    @property
    def name(self) -> str:
        return RATE_NAMES[self.kind]

    def find(self, day: date) -> RatePeriod | None:
        starts = [p.start for p in self.periods]
        i = bisect.bisect_right(starts, day) - 1
        if i >= 0 and self.periods[i].end >= day:
            return self.periods[i]
        return None

    def gaps(self) -> tuple[tuple[date, date], ...]:
        """Stretches without a value between the first and the last period (both inclusive)."""
        out = []
        for before, after in zip(self.periods, self.periods[1:], strict=False):
            if after.start > before.end + timedelta(days=1):
                out.append((before.end + timedelta(days=1), after.start - timedelta(days=1)))
        return tuple(out)


@dataclass(frozen=True)
class AppliedRate(RatePeriod):
    """The maximum legal rate (usura) in force on a day, and how it was obtained."""

    origin: str  # Spanish: "tasa de usura certificada" or "1,5 × interés bancario corriente …"


@dataclass(frozen=True)
class MaxLegalRate:
    """The highest legal rate (usura): certified where known, else 1,5 × the IBC in force."""

    usura: RateSeries
    ibc: RateSeries

    def on(self, day: date, needed_for: str) -> AppliedRate:
        certified = self.usura.find(day)
        if certified is not None:
            return AppliedRate(
                certified.start,
                certified.end,
                certified.percent,
                certified.source,
                "tasa de usura certificada",
            )
        ibc = self.ibc.find(day)
        if ibc is not None:
            return AppliedRate(
                ibc.start,
                ibc.end,
                ibc.percent * USURA_FACTOR,
                ibc.source,
                f"{USURA_RULE}, con interés bancario corriente de {decimal_percent(ibc.percent)}",
            )
        start, end = certification_period(day)
        raise MissingSeriesValue(
            "la tasa de usura (o el interés bancario corriente del que se deriva)",
            period_label(start, end),
            needed_for,
        )


@dataclass(frozen=True)
class CpiYear:
    year: int
    percent: Decimal  # variation December to December, in %
    source: str

    @property
    def factor(self) -> Decimal:
        """1 + CPI, exactly (3.18 % → 1.0318)."""
        return 1 + self.percent.scaleb(-2)


@dataclass(frozen=True)
class CpiSeries:
    file: str
    years: tuple[CpiYear, ...]

    def for_year(self, year: int, needed_for: str) -> CpiYear:
        for item in self.years:
            if item.year == year:
                return item
        raise MissingSeriesValue(
            "el IPC del DANE (variación diciembre a diciembre)", f"del año {year}", needed_for
        )


# --- reading -----------------------------------------------------------------------------


def _rows(text: str, file: str, columns: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    """Data rows with their file line; the header must have exactly ``columns``."""
    lines = text.splitlines()
    header = lines[0] if lines else ""
    delimiter = header_separator(header)
    reader = csv.DictReader(lines, delimiter=delimiter)
    found = [c.strip() for c in reader.fieldnames or []]
    problems = [
        SeriesProblem(file, 1, c, "falta esta columna") for c in columns if c not in found
    ] + [SeriesProblem(file, 1, c, "columna desconocida") for c in found if c not in columns]
    if problems:
        raise SeriesFileError(problems)
    rows = []
    for record in reader:
        clean = {(k or "").strip(): (v or "").strip() for k, v in record.items() if k is not None}
        if None in record:  # more cells than the header has columns
            problems.append(SeriesProblem(file, reader.line_num, None, "sobran celdas en la fila"))
            continue
        rows.append((reader.line_num, clean))
    if problems:
        raise SeriesFileError(problems)
    if not rows:
        raise SeriesFileError([SeriesProblem(file, None, None, "el archivo no tiene datos")])
    return rows


def _decimal(raw: str) -> Decimal | None:
    return Decimal(raw.replace(",", ".")) if _NUMBER.match(raw) else None


def _date(raw: str) -> date | None:
    if not _DATE.match(raw):
        return None
    try:
        return date.fromisoformat(raw)
    except ValueError:
        return None


# A problem of the row being read: the column (None: the whole row) and what is wrong.
Problem = Callable[[str | None, str], None]


def _parse(
    text: str,
    file: str,
    columns: tuple[str, ...],
    read: Callable[[dict[str, str], Problem], T | None],
    follows: Callable[[int, T, T, Problem], bool],
) -> tuple[T, ...]:
    """Every data row read into an item (``read`` says each problem of the row, or returns
    the item), and each item checked against the one accepted before it (``follows``: the
    previous row's line and item, then this one). All the problems are refused together."""
    problems: list[SeriesProblem] = []
    items: list[tuple[int, T]] = []
    for line, cells in _rows(text, file, columns):

        def err(column: str | None, message: str, line: int = line) -> None:
            problems.append(SeriesProblem(file, line, column, message))

        bad = len(problems)
        item = read(cells, err)
        if len(problems) > bad:
            continue
        assert item is not None
        if items and not follows(*items[-1], item, err):
            continue
        items.append((line, item))
    if problems:
        raise SeriesFileError(problems)
    return tuple(item for _, item in items)


def _rate_period(cells: dict[str, str], err: Problem) -> RatePeriod | None:
    start, end = _date(cells["desde"]), _date(cells["hasta"])
    percent = _decimal(cells["tasa_ea"])
    if start is None:
        err("desde", f"'{cells['desde']}' no es una fecha AAAA-MM-DD")
    if end is None:
        err("hasta", f"'{cells['hasta']}' no es una fecha AAAA-MM-DD")
    if percent is None:
        err("tasa_ea", f"'{cells['tasa_ea']}' no es un porcentaje (p. ej. 21.26)")
    elif percent <= 0:
        err("tasa_ea", "la tasa debe ser positiva")
    if not cells["fuente"]:
        err("fuente", "falta la fuente del dato")
    if start is not None and end is not None and end < start:
        err("hasta", f"el periodo termina ({end}) antes de empezar ({start})")
    if start is None or end is None or percent is None:
        return None
    return RatePeriod(start, end, percent, cells["fuente"])


def parse_rates(text: str, file: str, kind: RateKind, *, complete: bool) -> RateSeries:
    """A rate series from CSV text; ``complete`` refuses gaps (an official full series)."""

    def follows(prev_line: int, prev: RatePeriod, period: RatePeriod, err: Problem) -> bool:
        start = period.start
        if start <= prev.start:
            err("desde", f"fuera de orden: empieza el {start}, no después de la fila {prev_line}")
            return False
        if start <= prev.end:
            err("desde", f"se superpone con la fila {prev_line} ({prev.label})")
            return False
        if complete and start > prev.end + timedelta(days=1):
            missing = period_label(prev.end + timedelta(days=1), start - timedelta(days=1))
            err("desde", f"hueco después de la fila {prev_line}: falta el periodo {missing}")
            return False
        return True

    return RateSeries(kind, file, _parse(text, file, RATE_COLUMNS, _rate_period, follows))


def _cpi_year(cells: dict[str, str], err: Problem) -> CpiYear | None:
    percent = _decimal(cells["variacion_pct"])
    if not _YEAR.match(cells["anio"]):
        err("anio", f"'{cells['anio']}' no es un año de cuatro cifras")
    if percent is None:
        err("variacion_pct", f"'{cells['variacion_pct']}' no es un porcentaje (p. ej. 3.18)")
    elif percent <= -100:
        err("variacion_pct", "una variación de -100 % o menos no es posible")
    if not cells["fuente"]:
        err("fuente", "falta la fuente del dato")
    if percent is None or not _YEAR.match(cells["anio"]):
        return None
    return CpiYear(int(cells["anio"]), percent, cells["fuente"])


def _next_year(prev_line: int, prev: CpiYear, item: CpiYear, err: Problem) -> bool:
    if item.year <= prev.year:
        err("anio", f"año {item.year} repetido o fuera de orden (fila {prev_line})")
        return False
    if item.year != prev.year + 1:
        gap = f"{prev.year + 1}" + (f" a {item.year - 1}" if item.year - 1 > prev.year + 1 else "")
        err("anio", f"hueco después de la fila {prev_line}: falta el año {gap}")
        return False
    return True


def parse_cpi(text: str, file: str) -> CpiSeries:
    """The CPI by year, in increasing and consecutive years (a missing year is refused)."""
    return CpiSeries(file, _parse(text, file, CPI_COLUMNS, _cpi_year, _next_year))


def series_text(path: Path) -> str:
    """A series file's text; one that cannot be read is a ``SeriesFileError``."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise SeriesFileError([SeriesProblem(str(path), None, None, str(exc))]) from None


def _shipped(name: str) -> tuple[str, str]:
    ref = resources.files(DATA_PACKAGE).joinpath(name)
    return ref.read_text(encoding="utf-8-sig"), f"{DATA_PACKAGE}/{name}"


def shipped_cpi() -> CpiSeries:
    return parse_cpi(*_shipped(CPI_FILE))


def shipped_rates(kind: RateKind) -> RateSeries:
    """The points ``fuentes.md`` §5 lists, gaps included."""
    name = IBC_FILE if kind == "interes_bancario_corriente" else USURA_FILE
    return parse_rates(*_shipped(name), kind, complete=False)


def shipped_max_rate() -> MaxLegalRate:
    return MaxLegalRate(shipped_rates("usura"), shipped_rates("interes_bancario_corriente"))


def load_official_rates(path: Path, kind: RateKind) -> RateSeries:
    """The program office's official series (e.g. Superfinanciera's open data), gap-free."""
    return parse_rates(series_text(path), str(path), kind, complete=True)


def load_official_cpi(path: Path) -> CpiSeries:
    return parse_cpi(series_text(path), str(path))
