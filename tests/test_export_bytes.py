"""The same data gives the same workbook, byte for byte: a broker's XLSX written twice, a
few seconds apart, is one file (openpyxl alone would stamp each save's time into it)."""

from __future__ import annotations

import time
from pathlib import Path
from zipfile import ZipFile

import polars as pl

from democratiza.reports.columns import TITLES
from democratiza.reports.render.workbook import write_workbook

FRAME = pl.DataFrame({"radicado": ["L1-000001", "L1-000002"], "adjudicada": [10, 0]})


def test_a_workbook_written_twice_is_the_same_bytes(tmp_path: Path) -> None:
    write_workbook(FRAME, tmp_path / "a.xlsx", "Adjudicación", TITLES)
    time.sleep(2.1)  # past the zip format's two-second resolution
    write_workbook(FRAME, tmp_path / "b.xlsx", "Adjudicación", TITLES)
    assert (tmp_path / "a.xlsx").read_bytes() == (tmp_path / "b.xlsx").read_bytes()


def test_the_workbook_still_opens_with_its_rows(tmp_path: Path) -> None:
    from openpyxl import load_workbook

    write_workbook(FRAME, tmp_path / "a.xlsx", "Adjudicación", TITLES)
    with ZipFile(tmp_path / "a.xlsx") as archive:
        assert archive.testzip() is None
    sheet = load_workbook(tmp_path / "a.xlsx", read_only=True).worksheets[0]
    assert [list(r) for r in sheet.iter_rows(values_only=True)] == [
        ["Radicado", "Acciones adjudicadas"],
        ["L1-000001", 10],
        ["L1-000002", 0],
    ]
