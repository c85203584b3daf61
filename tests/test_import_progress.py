"""``lote importar`` tells the rows it has done: read, evaluated piece by piece, stored.

A batch evaluated in pieces is decided exactly as in one piece (each acceptance is decided
alone), and one stored in pieces is stored exactly as in one, so watching the import changes
nothing of what it decides or stores.
"""

from __future__ import annotations

from datetime import datetime
from io import StringIO
from pathlib import Path

import polars as pl
import pytest
import yaml
from rich.console import Console
from sqlalchemy import Engine, select

from democratiza.cli.progress import rows, rows_done
from democratiza.filing import batches
from democratiza.filing.batches import evaluate_in_pieces, import_batch
from democratiza.filing.compiled import compiled_program
from democratiza.offers.lifecycle import advance, create_offer, load_offer
from democratiza.storage import bulk
from democratiza.storage.schema import acceptances
from democratiza.tables.acceptances import ACCEPTANCES
from democratiza.tables.brokers import read_broker_file

SAMPLE = Path(__file__).parents[1] / "examples/primera-etapa"
PARAMS: dict[str, object] = yaml.safe_load((SAMPLE / "oferta.yaml").read_text(encoding="utf-8"))
CODE = "central-primera-fase"
BATCH = SAMPLE / "lote-1-casa-de-bolsa.csv"


def open_offer(engine: Engine, code: str = CODE) -> None:
    with engine.begin() as conn:
        stored = create_offer(conn, code, "central-seguros-vida", PARAMS, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "inicio del plazo")


def large_batch(folder: Path, n: int) -> Path:
    """The sample batch's rows over and over up to ``n``, each with a reference of its own."""
    sample = pl.read_csv(BATCH, infer_schema=False)
    rows = pl.concat([sample] * -(-n // sample.height)).head(n)
    numbered = pl.format("AC-{}", pl.int_range(1, n + 1).cast(pl.String).str.zfill(7))
    path = folder / "lote-grande-casa-de-bolsa.csv"
    rows.with_columns(numbered.alias("referencia")).write_csv(path)
    return path


def stored_rows(engine: Engine, code: str) -> pl.DataFrame:
    """An offer's acceptances as a broker and the office read them: all but the database's
    own ids and order of receipt, which differ between two offers by construction."""
    drawn = {"id", "oferta_id", "lote_id", "recepcion"}
    columns = [c for c in acceptances.columns if c.name not in drawn]
    with engine.connect() as conn:
        stored = load_offer(conn, code)
        found = conn.execute(
            select(*columns)
            .where(acceptances.c.oferta_id == stored.id)
            .order_by(acceptances.c.radicado)
        )
        return pl.DataFrame(
            [tuple(r) for r in found],
            schema=[c.name for c in columns],
            orient="row",
            infer_schema_length=None,
        )


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


def test_a_large_batch_is_told_as_it_is_saved_and_stored_as_unwatched(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A batch written a piece at a time (20.000 rows each), each piece told as it goes, so
    # the bar moves while the longest step runs instead of waiting at 0 until it ends. The
    # pieces are made 2.000 rows here, so that 12.000 acceptances (past ``TRANSITION_ROWS``,
    # as a large batch is) go in six pieces: the same tellings, in a tenth of the rows.
    monkeypatch.setattr(bulk, "COPY_PIECE_ROWS", 2_000)  # PostgreSQL's binary COPY
    monkeypatch.setattr(bulk, "INSERT_CHUNK", 2_000)  # SQLite's INSERTs
    n = 12_000
    assert n > bulk.TRANSITION_ROWS and n > bulk.BINARY_ROWS
    path = large_batch(tmp_path, n)
    open_offer(engine)
    open_offer(engine, "central-segunda-oferta")
    told: list[tuple[str, int, int]] = []
    watched = import_batch(
        engine, CODE, path, "Casa de Bolsa", "L1", "scb", progress=lambda *t: told.append(t)
    )
    unwatched = import_batch(engine, "central-segunda-oferta", path, "Casa de Bolsa", "L1", "scb")
    assert watched.rows == unwatched.rows == n
    saving = [(done, total) for step, done, total in told if step == "Guardando"]
    assert {total for _, total in saving} == {n}
    saved = [done for done, _ in saving]
    # From nothing to every row, told at each piece's end, each further than the one before.
    assert saved == list(range(0, n + 1, 2_000))
    assert told[-1] == ("Guardando", n, n)  # nothing told after the rows are all stored
    # Watching changed nothing of what was stored.
    assert stored_rows(engine, CODE).equals(stored_rows(engine, "central-segunda-oferta"))


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
