"""A name filed as a formula comes out of every export as text, never as a live formula.

OWASP's CSV injection: a cell starting with = + - @, a tab or a carriage return is run by
a spreadsheet. Every text cell of every export gets a single quote in front; amounts,
negative ones too, stay as they were, and XLSX cells are written as strings.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import polars as pl
import pytest
from fastapi.testclient import TestClient
from openpyxl import load_workbook
from sqlalchemy import Engine

from democratiza.design.designs import load_designs
from democratiza.design.simulate import simulate
from democratiza.design.sources import from_spec
from democratiza.filing.batches import import_batch
from democratiza.reports import stage_report
from democratiza.reports.design_comparison import comparison_csv, design_figures
from democratiza.reports.exports import broker_files
from democratiza.stages.allocate import allocate_stage
from democratiza.stages.orders import import_orders
from democratiza.storage.database import make_engine, migrate
from democratiza.tables.cells import safe_frame, safe_text
from democratiza.web.api.downloads import adjudication
from democratiza.web.app import create_app
from tests.test_design import POPULATION, designs_file
from tests.test_stages import book, close, new_stage, order, settle_sample
from tests.test_web_support import (
    BROKER_A,
    CODE,
    SAMPLE,
    add_people,
    bearer,
    log_in,
    open_offer,
)

LINK = '=HYPERLINK("http://malo.example/x","clic")'
SUM = "@SUM(1+1)*cmd|' /C calc'!A0"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (LINK, "'" + LINK),
        (SUM, "'" + SUM),
        ("+57 300 cmd", "'+57 300 cmd"),
        ("-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"),
        ("\t=1+1", "'\t=1+1"),
        ("\r=1+1", "'\r=1+1"),
        ("Diana Salazar", "Diana Salazar"),  # nothing to neutralise
        ("-1234.50", "-1234.50"),  # an amount: only a number, it runs nothing
        ("-3,2 %", "-3,2 %"),
    ],
)
def test_a_text_cell_that_a_spreadsheet_would_run_gets_a_quote(text: str, shown: str) -> None:
    assert safe_text(text) == shown


def test_only_text_columns_change_and_negative_amounts_stay_numbers() -> None:
    frame = pl.DataFrame({"nombre": [LINK, "Ana"], "saldo": [-5, 7], "=x": ["a", "b"]})
    safe = safe_frame(frame)
    assert safe["nombre"].to_list() == ["'" + LINK, "Ana"]
    assert safe["saldo"].to_list() == [-5, 7] and safe.schema["saldo"] == pl.Int64
    assert safe.columns == ["nombre", "saldo", "'=x"]


def test_the_column_wise_form_quotes_the_same_cells_as_the_cell_by_cell_form() -> None:
    """Only the columns with a cell starting like a formula are rewritten; the others,
    Categorical ones and empty ones come out as they went in, and every cell as
    ``safe_text`` says."""
    texts = [LINK, "Ana", None, "-1234.50", "\r=1", "Reducida de 10 a 5"]
    frame = pl.DataFrame(
        {
            "riesgo": texts,
            "frases": ["Aceptada por 1 acción", "x", None, "y", "z", "w"],
            "categoria": pl.Series(["=a", "b", "c", "d", "e", "f"], dtype=pl.Categorical),
        }
    )
    safe = safe_frame(frame)
    assert safe["riesgo"].to_list() == [None if t is None else safe_text(t) for t in texts]
    assert safe["frases"].to_list() == frame["frases"].to_list()
    assert safe["categoria"].to_list() == ["'=a", "b", "c", "d", "e", "f"]
    assert safe_frame(frame.clear()).columns == frame.columns


@pytest.fixture
def lite(tmp_path: Path) -> Engine:
    engine = make_engine(f"sqlite:///{tmp_path / 'exportes.db'}")
    migrate(engine)
    return engine


def poisoned_batch(tmp_path: Path) -> Path:
    """The sample batch with its first two acceptants named as formulas."""
    lines = (SAMPLE / "lote-1-casa-de-bolsa.csv").read_text(encoding="utf-8").splitlines()
    for i, name in ((1, LINK), (2, SUM)):
        cells = next(csv.reader([lines[i]]))
        cells[5] = name
        out = io.StringIO()
        csv.writer(out, lineterminator="").writerow(cells)
        lines[i] = out.getvalue()
    path = tmp_path / "lote.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def names_in(text: str) -> set[str]:
    return {row["nombre"] for row in csv.DictReader(io.StringIO(text))}


def test_every_export_of_an_offer_shows_a_formula_name_as_text(
    lite: Engine, tmp_path: Path
) -> None:
    add_people(lite)
    open_offer(lite)
    import_batch(lite, CODE, poisoned_batch(tmp_path), BROKER_A, "L1", "scb")
    app = create_app(lite)
    office = TestClient(app)
    office.headers["X-CSRF-Token"] = log_in(office, "oficina")
    broker = TestClient(app, headers=bearer(lite, BROKER_A))
    safe = {"'" + LINK, "'" + SUM}

    filed = broker.get(f"/api/ofertas/{CODE}/aceptaciones.csv").text
    assert safe <= names_in(filed) and not {LINK, SUM} & names_in(filed)
    for step in ("cerrar", "adjudicar"):
        assert office.post(f"/api/ofertas/{CODE}/{step}", json={"motivo": step}).status_code == 200
    for client in (broker, office):
        assert safe <= names_in(client.get(f"/api/ofertas/{CODE}/adjudicacion.csv").text)
    registry = office.get(f"/api/ofertas/{CODE}/registro-adjudicatarios.csv").text
    assert safe <= names_in(registry) and not {LINK, SUM} & names_in(registry)

    files = broker_files(adjudication(lite, CODE), tmp_path / "salida")
    [workbook] = [p for p in files if p.suffix == ".xlsx"]
    sheet = load_workbook(workbook).active
    assert sheet is not None
    header = [c.value for c in sheet[1]]
    names = [row[header.index("Nombre")] for row in sheet.iter_rows(min_row=2)]
    assert {c.value for c in names} >= safe
    assert all(c.data_type == "s" for c in names)
    amounts = [row[header.index("Acciones adjudicadas")] for row in sheet.iter_rows(min_row=2)]
    assert all(c.data_type == "n" for c in amounts)  # numbers stay numbers


def test_a_design_named_as_a_formula_is_text_in_the_comparison(tmp_path: Path) -> None:
    offer = {"trm": "2984.00", "fecha_aviso": "2017-12-22", "fecha_cierre": "2018-02-26"}
    path = designs_file(tmp_path, "geb-2017", offer, {"nombre": LINK})
    designs = load_designs(path)
    figures = [design_figures(o) for o in simulate(from_spec(POPULATION, designs[0]), designs)]
    header = comparison_csv(figures).decode().splitlines()[0]
    assert next(csv.reader([header])) == ["cifra", "'" + LINK]


def test_a_stage_order_named_as_a_formula_is_text_in_the_stage_files(
    engine: Engine, tmp_path: Path
) -> None:
    settle_sample(engine, "central-seguros-vida")  # a Primera Fase sold and paid
    new_stage(engine)
    orders = book(
        tmp_path / "ordenes.csv",
        [order("O1", "1250", "5000", nombre=LINK), order("O2", "1100", "7000", nombre=SUM)],
    )
    import_orders(engine, "segunda", orders, "Casa de Bolsa", "B1", "scb")
    close(engine)
    done = allocate_stage(engine, "segunda", "oficina", "adjudicación")
    safe = {"'" + LINK, "'" + SUM}
    registry = stage_report.registry_file(done, tmp_path / "etapa")
    assert names_in(registry.read_text(encoding="utf-8")) == safe
    files = stage_report.broker_files(done, tmp_path / "etapa")
    [allocation] = [p for p in files if p.suffix == ".csv"]
    assert names_in(allocation.read_text(encoding="utf-8")) == safe
    client = TestClient(create_app(engine), headers=bearer(engine, "Casa de Bolsa"))
    served = client.get("/api/etapas/segunda/asignacion.csv")
    assert served.status_code == 200 and names_in(served.text) == safe
