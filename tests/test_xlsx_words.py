"""Every XLSX for people reads its codes in words, whatever the column's type (text, an Enum,
a Categorical), and a row its broker withdrew reads "retirada por su comisionista" there,
never "rechazada": it is stored as rejected with nothing permitted, but nobody refused it.
The CSV beside it keeps the codes."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from openpyxl import load_workbook
from sqlalchemy import Engine
from typer.testing import CliRunner

from democratiza.adjudication.record import adjudicate
from democratiza.cli.main import app
from democratiza.filing.batches import import_batch, withdraw
from democratiza.labels import frame_in_words
from democratiza.stages.allocate import allocate_stage
from democratiza.stages.orders import import_orders, withdraw_order
from tests.test_receipt_order import one_row
from tests.test_stages import book, close, new_stage, order, settled
from tests.test_web_support import BROKER_A, CODE, move, open_offer

__all__ = ["settled"]  # the fixture: the Primera Fase adjudicated and its payments settled
WITHDRAWN_READ = "retirada por su comisionista"


def cells(path: Path) -> dict[str, list[object]]:
    """The workbook's columns by their title in words."""
    sheet = load_workbook(path).active
    assert sheet is not None
    header, *rows = (list(r) for r in sheet.iter_rows(values_only=True))
    return {str(title): [row[i] for row in rows] for i, title in enumerate(header)}


def export(*args: str, engine: Engine) -> None:
    url = engine.url.render_as_string(hide_password=False)
    result = CliRunner().invoke(app, [*args, "--db", url])
    assert result.exit_code == 0, result.output


def test_an_enum_or_categorical_column_of_codes_reads_in_words() -> None:
    frame = pl.DataFrame(
        {
            "decision": pl.Series(
                ["valida", "rechazada", None], dtype=pl.Enum(["valida", "rechazada"])
            ),
            "categoria": pl.Series(["trabajador_activo", "pensionado", None], dtype=pl.Categorical),
        }
    )
    shown = frame_in_words(frame, {"decision": "decision_orden", "categoria": "categoria"})
    assert shown["decision"].to_list() == ["válida", "rechazada", None]
    assert shown["categoria"].to_list() == ["Trabajador activo", "Pensionado", None]


def test_the_broker_workbook_reads_a_withdrawn_acceptance_as_withdrawn(
    engine: Engine, tmp_path: Path
) -> None:
    open_offer(engine)
    kept = one_row(tmp_path, "a.csv", cantidad="1000")
    gone = one_row(tmp_path, "b.csv", cantidad="2000", referencia="OTRA-1")
    import_batch(engine, CODE, kept, BROKER_A, "A1", "scb")
    radicado = import_batch(engine, CODE, gone, BROKER_A, "A2", "scb").decisions["radicado"][0]
    withdraw(engine, CODE, radicado, "scb", "el aceptante desistió")
    move(engine, "cerrada")
    adjudicate(engine, CODE, "oficina", "adjudicación")
    export("oferta", "exportar", CODE, "--salida", str(tmp_path / "out"), engine=engine)
    stem = tmp_path / "out" / CODE / "comisionistas" / "adjudicacion-casa-de-bolsa"
    shown = cells(stem.with_suffix(".xlsx"))
    decisions = dict(zip(shown["Radicado"], shown["Decisión"], strict=True))
    assert decisions[radicado] == WITHDRAWN_READ
    assert set(decisions.values()) == {WITHDRAWN_READ, "aceptada"}
    # The CSV keeps the stored code, as the adjudication's record has it.
    plain = pl.read_csv(stem.with_suffix(".csv"), infer_schema=False)
    assert plain.filter(pl.col("radicado") == radicado)["decision"].to_list() == ["rechazada"]


def test_the_stage_workbook_reads_decisions_in_words_and_a_withdrawn_order_as_withdrawn(
    engine: Engine, settled: int, tmp_path: Path
) -> None:
    new_stage(engine)
    rows = [order("O1", "1250", "5000"), order("O2", "1100", "7000")]
    filed = import_orders(engine, "segunda", book(tmp_path / "o.csv", rows), BROKER_A, "B1", "s")
    radicado = filed.decisions["radicado"][1]
    withdraw_order(engine, "segunda", radicado, "scb", "el inversionista desistió")
    close(engine)
    allocate_stage(engine, "segunda", "bolsa", "cierre del libro")
    export("etapa", "exportar", "segunda", "--salida", str(tmp_path / "out"), engine=engine)
    stem = tmp_path / "out" / "segunda" / "segunda-casa-de-bolsa"
    shown = cells(stem.with_suffix(".xlsx"))
    decisions = dict(zip(shown["Radicado"], shown["Decisión"], strict=True))
    assert decisions[radicado] == WITHDRAWN_READ
    assert list(decisions.values()) == ["válida", WITHDRAWN_READ]  # not "valida", a code
    plain = pl.read_csv(stem.with_suffix(".csv"), infer_schema=False)
    assert plain["decision"].to_list() == ["valida", "rechazada"]
