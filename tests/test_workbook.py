"""What a person finds opening an exported XLSX in Excel: the header in words, bold and frozen;
shares and pesos as numbers to sum, with the thousands and decimal formats Excel draws with
the computer's separators (40.000.000 and 24.750.000,00 in Colombia); dates as dates; a name
filed as a formula still text; and columns as wide as what they hold."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import polars as pl
import pytest
from openpyxl import load_workbook

from democratiza.reports.columns import TITLES
from democratiza.reports.render.workbook import MissingTitle, number_format, write_workbook

LINK = '=HYPERLINK("http://x.example","clic")'
FRAME = pl.DataFrame(
    {
        "radicado": ["L1-000001", "L1-000002"],
        "nombre": ["Ana Pérez", LINK],
        "fecha_radicacion": [datetime(2018, 1, 15, 9, 30), datetime(2018, 2, 21, 16, 5, 7)],
        "cantidad": [40_000_000, 1_500],
        "adjudicada": [22_428, 0],
        "precio": pl.Series([Decimal("2018.00"), Decimal("0.010176")], dtype=pl.Decimal(38, 6)),
        "valor_a_pagar": pl.Series(
            [Decimal("24750000.00"), Decimal("0.00")], dtype=pl.Decimal(22, 2)
        ),
    }
)


def sheet_of(path: Path):  # type: ignore[no-untyped-def]
    sheet = load_workbook(path).active
    assert sheet is not None
    return sheet


def test_the_header_is_in_words_bold_and_frozen(tmp_path: Path) -> None:
    write_workbook(FRAME, tmp_path / "a.xlsx", "Adjudicación", TITLES)
    sheet = sheet_of(tmp_path / "a.xlsx")
    assert [c.value for c in sheet[1]] == [
        "Radicado",
        "Nombre",
        "Fecha de radicación",
        "Acciones pedidas",
        "Acciones adjudicadas",
        "Precio por acción (pesos)",
        "Valor a pagar (pesos)",
    ]
    assert all(c.font.bold for c in sheet[1])
    assert sheet.freeze_panes == "A2"  # the header stays while the rows scroll
    assert sheet.auto_filter.ref == "A1:G3"
    assert sheet.title == "Adjudicación"


def test_shares_and_pesos_are_numbers_with_colombian_formats(tmp_path: Path) -> None:
    write_workbook(FRAME, tmp_path / "a.xlsx", "Adjudicación", TITLES)
    sheet = sheet_of(tmp_path / "a.xlsx")
    shares, awarded, price, to_pay = sheet["D2"], sheet["E2"], sheet["F3"], sheet["G2"]
    assert (shares.value, shares.data_type, shares.number_format) == (40_000_000, "n", "#,##0")
    assert (awarded.value, awarded.number_format) == (22_428, "#,##0")
    # A price finer than a centavo keeps its six decimals; an amount shows its two.
    assert (price.value, price.number_format) == (0.010176, "#,##0.00####")
    assert (to_pay.value, to_pay.data_type, to_pay.number_format) == (24_750_000, "n", "#,##0.00")


def test_dates_are_dates(tmp_path: Path) -> None:
    frame = FRAME.select("radicado", "fecha_radicacion").with_columns(
        pl.Series("fecha_ingreso", [date(2018, 3, 1), None])
    )
    write_workbook(frame, tmp_path / "a.xlsx", "Fechas", TITLES)
    sheet = sheet_of(tmp_path / "a.xlsx")
    filed, day = sheet["B3"], sheet["C2"]
    assert filed.is_date and filed.value == datetime(2018, 2, 21, 16, 5, 7)
    assert filed.number_format == "yyyy-mm-dd hh:mm:ss"
    assert day.is_date and day.value == datetime(2018, 3, 1) and day.number_format == "yyyy-mm-dd"
    assert sheet["C3"].value is None  # an empty cell stays empty


def test_a_name_filed_as_a_formula_stays_text(tmp_path: Path) -> None:
    write_workbook(FRAME, tmp_path / "a.xlsx", "Adjudicación", TITLES)
    name = sheet_of(tmp_path / "a.xlsx")["B3"]
    assert (name.value, name.data_type) == ("'" + LINK, "s")


def test_columns_are_as_wide_as_their_title_or_widest_cell(tmp_path: Path) -> None:
    write_workbook(FRAME, tmp_path / "a.xlsx", "Adjudicación", TITLES)
    sheet = sheet_of(tmp_path / "a.xlsx")
    widths = {c: sheet.column_dimensions[c].width for c in "ABDG"}
    assert widths["A"] == len("L1-000001") + 2
    assert widths["B"] == len(LINK) + 2
    assert widths["D"] == len("Acciones pedidas") + 2  # wider than "40,000,000"
    assert widths["G"] == len("Valor a pagar (pesos)") + 2


def test_a_figure_excel_would_round_is_written_as_its_exact_text(tmp_path: Path) -> None:
    huge = pl.DataFrame(
        {"valor_a_pagar": pl.Series([Decimal("1234567890123456.78")], dtype=pl.Decimal(22, 2))}
    )
    write_workbook(huge, tmp_path / "a.xlsx", "Montos", TITLES)
    cell = sheet_of(tmp_path / "a.xlsx")["A2"]
    assert (cell.value, cell.data_type) == ("1234567890123456.78", "s")


def test_a_column_without_a_title_in_words_is_refused(tmp_path: Path) -> None:
    with pytest.raises(MissingTitle, match="cantidad_nueva"):
        write_workbook(pl.DataFrame({"cantidad_nueva": [1]}), tmp_path / "a.xlsx", "Hoja", TITLES)
    assert not (tmp_path / "a.xlsx").exists()


def test_each_kind_of_column_has_its_format() -> None:
    assert number_format(pl.Int64()) == "#,##0"
    assert number_format(pl.Decimal(22, 2)) == "#,##0.00"
    assert number_format(pl.String()) is None
