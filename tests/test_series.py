"""Reference series for fines: the shipped points of fuentes.md §5 and official files."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from democratiza.compliance.series import (
    MaxLegalRate,
    MissingSeriesValue,
    SeriesFileError,
    certification_period,
    load_official_cpi,
    load_official_rates,
    parse_rates,
    shipped_cpi,
    shipped_max_rate,
    shipped_rates,
)

FUENTES_CPI = (
    "2000 8.75, 2001 7.65, 2002 6.99, 2003 6.49, 2004 5.50, 2005 4.85, 2006 4.48, 2007 5.69, "
    "2008 7.67, 2009 2.00, 2010 3.17, 2011 3.73, 2012 2.44, 2013 1.94, 2014 3.66, 2015 6.77, "
    "2016 5.75, 2017 4.09, 2018 3.18, 2019 3.80, 2020 1.61, 2021 5.62, 2022 13.12, 2023 9.28, "
    "2024 5.20, 2025 5.10"
)
HEADER = "desde,hasta,tasa_ea,fuente\n"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- shipped data --------------------------------------------------------------------


def test_fuentes_5_cpi_2000_to_2025_exactly_as_listed_each_with_its_source() -> None:
    cpi = shipped_cpi()
    expected = {int(y): Decimal(v) for y, v in (p.split() for p in FUENTES_CPI.split(", "))}
    assert {c.year: c.percent for c in cpi.years} == expected
    assert [c.year for c in cpi.years] == list(range(2000, 2026))
    assert all("DANE" in c.source for c in cpi.years)
    assert cpi.for_year(2018, "x").factor == Decimal("1.0318")


def test_fuentes_5_ibc_quarterly_until_2017_monthly_after() -> None:
    ibc = shipped_rates("interes_bancario_corriente")
    q1_2017 = ibc.find(date(2017, 2, 14))
    assert q1_2017 is not None
    assert (q1_2017.start, q1_2017.end, q1_2017.percent) == (
        date(2017, 1, 1),
        date(2017, 3, 31),
        Decimal("22.34"),
    )
    feb_2019 = ibc.find(date(2019, 2, 28))
    assert feb_2019 is not None
    assert (feb_2019.start, feb_2019.end, feb_2019.percent) == (
        date(2019, 2, 1),
        date(2019, 2, 28),
        Decimal("19.70"),
    )
    assert len(ibc.periods) == 20
    assert all("Superintendencia Financiera" in p.source for p in ibc.periods)
    # Only the listed points: the gaps stay gaps.
    assert ibc.find(date(2009, 6, 1)) is None
    assert (date(2008, 7, 1), date(2009, 12, 31)) in ibc.gaps()


def test_usura_certified_where_listed() -> None:
    rate = shipped_max_rate().on(date(2023, 3, 31), "x")
    assert (rate.percent, rate.origin) == (Decimal("46.26"), "tasa de usura certificada")
    assert rate.rate == Decimal("0.4626")


def test_c_co_884_usura_is_one_and_a_half_times_the_ibc_where_only_the_ibc_is_known() -> None:
    rate = shipped_max_rate().on(date(2018, 4, 10), "x")
    assert rate.percent == Decimal("30.72")  # 1,5 × 20,48 %
    assert (rate.start, rate.end) == (date(2018, 4, 1), date(2018, 4, 30))
    assert "Código de Comercio art. 884" in rate.origin
    assert "20,48 %" in rate.origin


def test_a_day_without_a_rate_names_its_monthly_period() -> None:
    with pytest.raises(MissingSeriesValue) as exc:
        shipped_max_rate().on(date(2021, 6, 15), "los intereses de mora del 2021-06-15")
    assert exc.value.period == "2021-06 (2021-06-01 a 2021-06-30)"
    assert "los intereses de mora del 2021-06-15" in str(exc.value)
    assert "No se interpola" in str(exc.value)


def test_a_day_without_a_rate_until_2017_names_its_quarter() -> None:
    with pytest.raises(MissingSeriesValue, match=r"2016-T2 \(2016-04-01 a 2016-06-30\)"):
        shipped_max_rate().on(date(2016, 5, 1), "x")
    assert certification_period(date(2017, 12, 31)) == (date(2017, 10, 1), date(2017, 12, 31))
    assert certification_period(date(2018, 2, 3)) == (date(2018, 2, 1), date(2018, 2, 28))


def test_a_year_without_cpi_is_named() -> None:
    with pytest.raises(MissingSeriesValue, match="del año 2026"):
        shipped_cpi().for_year(2026, "el ajuste del 1 de enero de 2027")


# --- official series loaded by the program office -------------------------------------


def test_an_official_series_loads_and_replaces_the_shipped_points(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "ibc.csv",
        HEADER + "2021-05-01,2021-05-31,17.22,SFC\n2021-06-01,2021-06-30,17.21,SFC\n",
    )
    ibc = load_official_rates(path, "interes_bancario_corriente")
    rate = MaxLegalRate(shipped_rates("usura"), ibc).on(date(2021, 6, 15), "x")
    assert rate.percent == Decimal("25.815")


def test_semicolons_and_decimal_commas_are_read_exactly(tmp_path: Path) -> None:
    path = write(
        tmp_path, "usura.csv", "desde;hasta;tasa_ea;fuente\n2021-06-01;2021-06-30;25,82;SFC\n"
    )
    assert load_official_rates(path, "usura").periods[0].percent == Decimal("25.82")


def test_an_overlap_is_refused_naming_file_row_and_column(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "ibc.csv",
        HEADER + "2021-05-01,2021-05-31,17.22,SFC\n" + "2021-05-15,2021-06-30,17.21,SFC\n",
    )
    with pytest.raises(SeriesFileError) as exc:
        load_official_rates(path, "interes_bancario_corriente")
    assert str(exc.value) == (
        f"{path}, fila 3, columna 'desde': se superpone con la fila 2 "
        "(2021-05 (2021-05-01 a 2021-05-31))"
    )


def test_a_gap_in_an_official_series_is_refused_naming_the_missing_period(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "ibc.csv",
        HEADER + "2021-05-01,2021-05-31,17.22,SFC\n" + "2021-07-01,2021-07-31,17.18,SFC\n",
    )
    with pytest.raises(SeriesFileError) as exc:
        load_official_rates(path, "interes_bancario_corriente")
    assert str(exc.value) == (
        f"{path}, fila 3, columna 'desde': hueco después de la fila 2: "
        "falta el periodo 2021-06 (2021-06-01 a 2021-06-30)"
    )


def test_rows_out_of_order_are_refused(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "ibc.csv",
        HEADER + "2021-06-01,2021-06-30,17.21,SFC\n2021-05-01,2021-05-31,17.22,SFC\n",
    )
    with pytest.raises(SeriesFileError, match="fila 3, columna 'desde': fuera de orden"):
        load_official_rates(path, "interes_bancario_corriente")


def test_every_bad_cell_is_reported_with_its_row_and_column(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "usura.csv",
        HEADER
        + "2021-05-01,2021-05-31,0.2722,SFC\n"
        + "2021-06-01,2021-06-31,25.8,SFC\n"
        + "2021-07-01,2021-07-31,veinte,\n"
        + "2021-08-01,2021-07-31,-1,SFC\n",
    )
    with pytest.raises(SeriesFileError) as exc:
        load_official_rates(path, "usura")
    assert [(p.row, p.column) for p in exc.value.problems] == [
        (3, "hasta"),
        (4, "tasa_ea"),
        (4, "fuente"),
        (5, "tasa_ea"),
        (5, "hasta"),
    ]
    assert "'2021-06-31' no es una fecha AAAA-MM-DD" in str(exc.value)


def test_missing_and_unknown_columns_are_refused_on_the_header(tmp_path: Path) -> None:
    path = write(tmp_path, "ibc.csv", "desde,hasta,tasa,fuente\n2021-05-01,2021-05-31,17,SFC\n")
    with pytest.raises(SeriesFileError) as exc:
        load_official_rates(path, "interes_bancario_corriente")
    assert str(exc.value) == (
        f"{path}, fila 1, columna 'tasa_ea': falta esta columna\n"
        f"{path}, fila 1, columna 'tasa': columna desconocida"
    )


def test_an_empty_series_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SeriesFileError, match="no tiene datos"):
        load_official_rates(write(tmp_path, "ibc.csv", HEADER), "interes_bancario_corriente")


def test_shipped_points_may_have_gaps_but_not_overlaps() -> None:
    text = HEADER + "2019-01-01,2019-01-31,19.16,SFC\n2019-11-01,2019-11-30,19.03,SFC\n"
    assert len(parse_rates(text, "x.csv", "usura", complete=False).gaps()) == 1
    with pytest.raises(SeriesFileError, match="hueco"):
        parse_rates(text, "x.csv", "usura", complete=True)


def test_an_official_cpi_with_a_missing_year_is_refused(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "ipc.csv",
        "anio,variacion_pct,fuente\n2018,3.18,DANE\n2019,3.80,DANE\n2021,5.62,DANE\n",
    )
    with pytest.raises(SeriesFileError) as exc:
        load_official_cpi(path)
    assert str(exc.value) == (
        f"{path}, fila 4, columna 'anio': hueco después de la fila 3: falta el año 2020"
    )


def test_an_official_cpi_with_a_repeated_year_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "ipc.csv", "anio,variacion_pct,fuente\n2018,3.18,DANE\n2018,3.8,DANE\n")
    with pytest.raises(SeriesFileError, match="fila 3, columna 'anio': año 2018 repetido"):
        load_official_cpi(path)
