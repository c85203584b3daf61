"""The files a received batch leaves for its broker: decisions explained, and radicados.

Written after the batch is stored, so a disk that fails then cannot undo the batch: the
broker is told it is stored and how to get its files (the same file sent again writes them,
and stores nothing twice).
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from pathlib import Path

import polars as pl
import typer

from democratiza.cli.common import refuse
from democratiza.filing.store import BatchResult
from democratiza.reports.decisions import write_decisions
from democratiza.reports.exports import slug
from democratiza.rules.engine import CompiledProgram
from democratiza.tables.cells import write_csv
from democratiza.words import filed


def write_batch_files(
    result: BatchResult,
    evaluated: tuple[CompiledProgram, pl.DataFrame, pl.DataFrame],
    folder: Path,
    broker: str,
    batch: str,
) -> list[Path]:
    """The decision files (CSV, JSON) and the radicados of a stored batch, in ``folder``."""
    compiled, results, frame = evaluated
    stem = f"{slug(broker)}-{slug(batch)}"
    try:
        paths = write_decisions(compiled, results, frame, folder, f"{stem}-decisiones")
        radicados = folder / f"{stem}-radicados.csv"
        write_csv(result.decisions, radicados)
    except OSError as exc:
        raise not_written(batch, result.rows, folder, exc) from None
    return [*paths, radicados]


def not_written(
    batch: str, rows: int, folder: Path, exc: OSError, stored: Callable[[int], str] = filed
) -> typer.Exit:
    """What is true when the files fail after the commit: stored, and how to get the files."""
    why = (
        "no queda espacio en el disco"
        if exc.errno == errno.ENOSPC
        else f"el sistema no lo permitió: {errno.errorcode.get(exc.errno or 0, 'error')}"
    )
    return refuse(
        f"El lote '{batch}' quedó guardado ({stored(rows)}), pero sus archivos "
        f"no se pudieron escribir en {folder} ({why}). Libere espacio o indique otra carpeta "
        "con --salida, y envíe de nuevo el mismo archivo con el mismo lote: se escriben los "
        "archivos y no se guarda nada dos veces."
    )
