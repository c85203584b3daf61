"""A batch sent again is answered with each row's reason, as its first answer was, whichever
way it comes: a single acceptance sent again, ``lote importar`` of the same file again, or
the answer after the lane's process died (the web's batches: ``test_stored_reasons``).

The worked example: the Central offer and broker Casa de Bolsa's sample batch (750 rows,
accepted, reduced and rejected ones among them).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
from sqlalchemy import Engine
from typer.testing import CliRunner

from democratiza.cli.main import app
from democratiza.filing.batches import import_batch
from democratiza.filing.reasons import EXPLAINED_ROWS, reason_text
from democratiza.filing.singles import process_group
from democratiza.filing.store import BatchResult
from democratiza.rules.explain import Explanation, explainer_for
from democratiza.web.server.filing_answers import batch_answer
from tests.helpers import CENTRAL_CREDIT_LINE
from tests.test_single_filings import SAMPLE, filing, open_offer, varied_rows

BATCH = SAMPLE / "lote-1-casa-de-bolsa.csv"
BROKER = "Casa de Bolsa"


def reasons(answer: BatchResult) -> dict[str, str | None]:
    """radicado → the reason the web's answer gives for it (None for an accepted row)."""
    return {r["radicado"]: r["explicacion"] for r in batch_answer(answer)["resultado"]}


def test_a_single_acceptance_sent_again_answers_with_its_reason(engine: Engine) -> None:
    open_offer(engine, "central")
    rows = varied_rows(engine, 2)  # two accepted, two reduced, two rejected
    filings = [filing(row) for row in rows]
    first = process_group(engine, filings)
    again = process_group(engine, filings)
    for before, now in zip(first, again, strict=True):
        assert isinstance(before, BatchResult) and before.created
        assert isinstance(now, BatchResult) and not now.created
        assert reasons(now) == reasons(before)
    explained = [why for answer in again for why in reasons(answer).values()]  # type: ignore[arg-type]
    # The four reduced or rejected ones are told why; an accepted one, as at first, is not.
    assert sum(1 for why in explained if why) == 4
    assert any(why and "rechaz" in why.lower() for why in explained)


def test_a_batch_imported_again_returns_the_reasons_of_its_first_answer(engine: Engine) -> None:
    open_offer(engine, "central")
    first = import_batch(engine, "central", BATCH, BROKER, "L1", "scb")
    assert first.evaluated is not None
    compiled, results, frame = first.evaluated
    told = explainer_for(compiled).explain_not_accepted(results, frame, EXPLAINED_ROWS)

    def by_radicado(
        result: BatchResult, said: tuple[Explanation | None, ...] | list[Explanation | None]
    ) -> dict[str, str]:
        radicados = result.decisions["radicado"].to_list()
        return {r: reason_text(e) for r, e in zip(radicados, said, strict=True) if e}

    again = import_batch(engine, "central", BATCH, BROKER, "L1", "scb")
    assert not again.created and again.explanations is not None
    assert by_radicado(again, again.explanations) == by_radicado(first, told)
    assert by_radicado(again, again.explanations)  # the sample has rows not accepted
    # The command line, which never shows them, asks for none; the answer is otherwise the same.
    unexplained = import_batch(engine, "central", BATCH, BROKER, "L1", "scb", explain=False)
    assert unexplained.explanations is None
    assert unexplained.decisions.equals(again.decisions) and unexplained.created is False


def test_lote_importar_of_the_same_file_again_tells_what_the_first_import_told(
    db_url: str, tmp_path: Path
) -> None:
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(app, [*args, "--db", db_url], env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
        return result.output

    run("oferta", "crear", "central", "-p", "central-seguros-vida", "--oferta",
        str(SAMPLE / "oferta.yaml"))  # fmt: skip
    run("credito", "registrar", "central", *CENTRAL_CREDIT_LINE)  # to open it
    run("oferta", "abrir", "central")
    out = tmp_path / "salidas"
    send = ("lote", "importar", "central", str(BATCH), "--comisionista", BROKER,
            "--lote", "L1", "--salida", str(out))  # fmt: skip
    said_first = run(*send)
    decisions = out / "central" / "lotes" / "casa-de-bolsa-l1-decisiones.csv"
    written_first = decisions.read_bytes()
    decisions.unlink()

    said_again = run(*send)
    assert said_again.splitlines()[0] == "El lote 'L1' ya se había recibido; no se creó nada nuevo."
    # The counts by decision, and the files written, are those of the first import.
    assert said_again.splitlines()[1:] == said_first.splitlines()[1:]
    assert decisions.read_bytes() == written_first
    why = pl.read_csv(decisions, infer_schema=False)
    assert why.filter(pl.col("decision") != "aceptada").height > 0
    assert why.columns.count("explicacion") == 1
