"""A batch's files after a full disk: the batch is stored, the broker is told so, and the
same file sent again writes the files without storing anything twice."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from sqlalchemy import func, select
from typer.testing import CliRunner

from democratiza.cli import batch_files
from democratiza.cli.main import app
from democratiza.storage.database import make_engine
from democratiza.storage.schema import acceptances, batches
from tests.helpers import CENTRAL_CREDIT_LINE

SAMPLE = Path(__file__).parents[1] / "examples/primera-etapa"
BATCH = SAMPLE / "lote-1-casa-de-bolsa.csv"
runner = CliRunner()


def run(*args: str, db: str) -> tuple[int, str]:
    result = runner.invoke(app, [*args, "--db", db], env={"COLUMNS": "200"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, " ".join(result.output.split())


def send(db: str, out: Path) -> tuple[int, str]:
    return run(
        "lote", "importar", "central", str(BATCH), "--comisionista", "Casa de Bolsa",
        "--lote", "L1", "--salida", str(out), db=db,
    )  # fmt: skip


def test_a_full_disk_after_the_commit_is_told_as_it_is_and_a_resend_writes_the_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = f"sqlite:///{tmp_path / 'oferta.db'}"
    offer = SAMPLE / "oferta.yaml"
    run("oferta", "crear", "central", "-p", "central-seguros-vida", "--oferta", str(offer), db=db)
    run("credito", "registrar", "central", *CENTRAL_CREDIT_LINE, db=db)  # to open it
    assert run("oferta", "abrir", "central", db=db)[0] == 0
    out = tmp_path / "salidas"
    rows = pl.read_csv(BATCH, infer_schema=False).height

    def full_disk(*_: Any) -> list[Path]:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(out / "x.csv"))

    with monkeypatch.context() as patch:
        patch.setattr(batch_files, "write_decisions", full_disk)
        code, said = send(db, out)
    assert code == 1
    assert said.startswith(f"Lote 'L1' recibido: {rows} aceptaciones radicadas.")
    assert said.endswith(
        f"El lote 'L1' quedó guardado ({rows} aceptaciones radicadas), pero sus archivos no se "
        f"pudieron escribir en {out / 'central' / 'lotes'} (no queda espacio en el disco). "
        "Libere espacio o indique otra carpeta con --salida, y envíe de nuevo el mismo archivo "
        "con el mismo lote: se escriben los archivos y no se guarda nada dos veces."
    )

    code, said = send(db, out)
    assert code == 0, said
    assert said.startswith("El lote 'L1' ya se había recibido; no se creó nada nuevo.")
    folder = out / "central" / "lotes"
    decisions = pl.read_csv(folder / "casa-de-bolsa-l1-decisiones.csv", infer_schema=False)
    radicados = pl.read_csv(folder / "casa-de-bolsa-l1-radicados.csv", infer_schema=False)
    assert decisions.height == radicados.height == rows
    assert sorted(decisions["referencia"]) == sorted(radicados["referencia"])
    engine = make_engine(db)
    with engine.connect() as conn:
        stored = [
            conn.execute(select(func.count()).select_from(t)).scalar_one()
            for t in (batches, acceptances)
        ]
    engine.dispose()
    assert stored == [1, rows]  # stored once, by the first send


def test_a_batch_sent_again_after_an_adjusted_price_gets_the_files_of_its_own_price(
    tmp_path: Path,
) -> None:
    # Filed at $ 1.000, then the office adjusts the price to $ 990 and keeps the earlier
    # filings at theirs (Ley 226 art. 11 num. 2): the resent batch's files say what was
    # decided at $ 1.000, the price its acceptances keep, not what $ 990 would decide.
    db = f"sqlite:///{tmp_path / 'oferta.db'}"
    offer = SAMPLE / "oferta.yaml"
    run("oferta", "crear", "central", "-p", "central-seguros-vida", "--oferta", str(offer), db=db)
    run("credito", "registrar", "central", *CENTRAL_CREDIT_LINE, db=db)
    assert run("oferta", "abrir", "central", db=db)[0] == 0
    first, second = tmp_path / "primera", tmp_path / "segunda"
    assert send(db, first)[0] == 0
    code, said = run(
        "oferta", "interrumpir", "central", "--motivo", "interrupción anunciada",
        "--precio-nuevo", "990", "--vigente-desde", "2018-02-20",
        "--fundamento", "Ley 226 de 1995 art. 11 num. 2",
        "--aceptaciones-anteriores", "conservan",
        "--fundamento-anteriores", "se respondieron al precio del aviso", db=db,
    )  # fmt: skip
    assert code == 0, said
    code, said = send(db, second)
    assert code == 0, said
    assert said.startswith("El lote 'L1' ya se había recibido; no se creó nada nuevo.")
    name = "central/lotes/casa-de-bolsa-l1-decisiones.csv"
    assert (second / name).read_bytes() == (first / name).read_bytes()
