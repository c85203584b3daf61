"""``lote importar`` tells the rows it has done: read, evaluated piece by piece, stored.

A batch evaluated in pieces is decided exactly as in one piece (each acceptance is decided
alone), so watching the import changes nothing of what it decides.
"""

from __future__ import annotations

from datetime import datetime
from io import StringIO
from pathlib import Path

import pytest
import yaml
from rich.console import Console
from sqlalchemy import Engine

from democratiza.cli.progress import rows, rows_done
from democratiza.filing import batches
from democratiza.filing.batches import evaluate_in_pieces, import_batch
from democratiza.filing.compiled import compiled_program
from democratiza.offers.lifecycle import advance, create_offer, load_offer
from democratiza.tables.acceptances import ACCEPTANCES
from democratiza.tables.brokers import read_broker_file

SAMPLE = Path(__file__).parents[1] / "examples/primera-etapa"
PARAMS: dict[str, object] = yaml.safe_load((SAMPLE / "oferta.yaml").read_text(encoding="utf-8"))
CODE = "central-primera-fase"
BATCH = SAMPLE / "lote-1-casa-de-bolsa.csv"


def open_offer(engine: Engine) -> None:
    with engine.begin() as conn:
        stored = create_offer(conn, CODE, "central-seguros-vida", PARAMS, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "inicio del plazo")


def test_the_import_tells_each_step_with_its_rows(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_offer(engine)
    monkeypatch.setattr(batches, "PIECE_ROWS", 100)
    told: list[tuple[str, int, int]] = []
    result = import_batch(
        engine, CODE, BATCH, "Casa de Bolsa", "L1", "scb", progress=lambda *t: told.append(t)
    )
    n = result.rows
    assert n > 200  # three pieces at least
    assert told[0] == ("Leyendo el archivo", 0, 0)
    evaluated = [done for step, done, total in told if step == "Evaluando" and total == n]
    assert evaluated[:3] == [0, 100, 200] and evaluated[-1] == n and n not in evaluated[:-1]
    assert evaluated == sorted(evaluated)
    assert told[-2:] == [("Guardando", 0, n), ("Guardando", n, n)]


def test_a_batch_decided_in_pieces_is_decided_as_in_one(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_offer(engine)
    with engine.connect() as conn:
        compiled = compiled_program(load_offer(conn, CODE))
    frame = read_broker_file(BATCH, ACCEPTANCES, "Casa de Bolsa", datetime.now())
    whole = compiled.evaluate(frame)
    monkeypatch.setattr(batches, "PIECE_ROWS", 37)  # pieces that do not divide the batch
    told: list[int] = []
    pieces = evaluate_in_pieces(compiled, frame, lambda _step, done, _total: told.append(done))
    assert whole.height > 37 * 3 and pieces.equals(whole)
    assert told[:3] == [0, 37, 74] and told[-1] == whole.height


def test_on_a_terminal_the_rows_are_counted_in_spanish() -> None:
    screen = StringIO()
    with rows(Console(file=screen, force_terminal=True, width=100)) as tell:
        assert tell is not None  # a terminal: the bar is drawn
        tell("Leyendo el archivo", 0, 0)
        tell("Evaluando", 40_000, 200_000)
    shown = screen.getvalue()
    assert "Leyendo el archivo" in shown
    assert "Evaluando: 40.000 de 200.000 filas" in shown
    assert rows_done(1, 1) == "1 de 1 fila"


def test_into_a_pipe_nothing_is_drawn_and_nothing_is_split() -> None:
    written = StringIO()
    with rows(Console(file=written, force_terminal=False)) as tell:
        assert tell is None  # the import then evaluates the batch in one piece
    assert written.getvalue() == ""
