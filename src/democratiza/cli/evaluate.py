"""``democratiza evaluar``: a whole acceptance file decided, explained, written, summarised."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated

import polars as pl
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from democratiza.cli.common import Separator, csv_separator, fail
from democratiza.cli.offer_options import OfferFileOpt, ParamOpt, ProgramOpt, offer_from
from democratiza.labels import label
from democratiza.money import group
from democratiza.programs.parameters import Offer, OfferParameterError
from democratiza.programs.schema import unchecked_sections
from democratiza.reports.decisions import CHUNK, DecisionFiles, Outputs, summarize
from democratiza.rules.engine import CompiledProgram
from democratiza.rules.explain import cite
from democratiza.tables.ahead import Ahead
from democratiza.tables.errors import InputError, InputRejected
from democratiza.tables.parse import parse
from democratiza.tables.readers import RawTable, TableChunks, read_table_chunks
from democratiza.words import count

console = Console()
err = Console(stderr=True)


def evaluate_command(
    archivo: Annotated[Path, typer.Argument(help="Aceptaciones en CSV, XLSX o JSON")],
    programa: ProgramOpt,
    salida: Annotated[Path, typer.Option("--salida", "-o", help="Carpeta de salida")] = Path(
        "salidas"
    ),
    parametro: ParamOpt = None,
    oferta: OfferFileOpt = None,
    detalle: Annotated[
        bool, typer.Option("--detalle", help="Añade al CSV la frase de cada límite y los códigos")
    ] = False,
    en_json: Annotated[
        bool, typer.Option("--json", help="Escribe también las decisiones en JSON")
    ] = False,
    parquet: Annotated[
        bool, typer.Option("--parquet", help="Escribe también un Parquet con todas las columnas")
    ] = False,
    separador: Separator = ",",
) -> None:
    """Evalúa un archivo de aceptaciones y escribe las decisiones en un CSV (y, si se pide,
    con el detalle de cada límite, en JSON o en Parquet).

    Cada fila se evalúa sola: las filas de una misma persona no se suman aquí (la
    adjudicación sí las suma).
    """
    csv_separator(separador)  # refused in Spanish before anything is read
    offer = offer_from(programa, parametro, oferta)
    outputs = Outputs(detail=detalle, json=en_json, parquet=parquet, separator=separador.strip())
    compiled = CompiledProgram(offer)
    columns = [
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    ]
    try:
        chunks = read_table_chunks(archivo, CHUNK)
        with (
            Progress(*columns, console=err, transient=True) as progress,
            DecisionFiles(compiled, salida, f"decisiones-{archivo.stem}", outputs) as files,
        ):
            task = progress.add_task("Evaluando, explicando y escribiendo", total=chunks.rows)
            results = _evaluate(chunks, compiled, files, lambda n: progress.advance(task, n))
    except InputRejected as exc:
        raise _refused(exc.errors, len(exc.errors)) from None
    except _FileRefused as exc:
        raise _refused(exc.shown, exc.total) from None
    except OfferParameterError as exc:
        raise fail(exc.messages, "No se puede evaluar con esta oferta:") from None
    console.print(INDIVIDUAL, highlight=False)  # the first line: what these decisions are
    print_summary(results, offer)
    for line in unchecked_sections(offer.program):
        console.print(line, highlight=False, markup=False)
    for path in files.paths:
        console.print(f"Decisiones escritas en: {path}", highlight=False)


SHOWN = 200  # errors listed; the rest are counted
INDIVIDUAL = (
    "Cada fila se evalúa sola, contra los límites de esa aceptación: las filas de una misma "
    "persona no se suman aquí. La adjudicación sí las suma (en el orden de recepción), y "
    "puede reducir las posteriores de esa persona."
)
SUMMARY_COLUMNS = ["decision", "categoria", "cantidad", "cantidad_permitida", "regla_limitante"]


class _FileRefused(Exception):
    def __init__(self, shown: list[InputError], total: int) -> None:
        self.shown, self.total = shown, total


def _evaluate(
    chunks: TableChunks,
    compiled: CompiledProgram,
    files: DecisionFiles,
    advance: Callable[[int], None],
) -> pl.DataFrame:
    """Each piece typed, evaluated, explained and written as it is read; what the summary
    needs is kept. A file with errors is refused whole, with its errors from every piece
    (the decision files are then never renamed into place)."""
    kept: list[pl.DataFrame] = []
    shown: list[InputError] = []
    total = 0
    with Ahead(_typed(chunks.pieces)) as pieces:
        for raw, frame in pieces:
            if isinstance(frame, InputRejected):
                total += len(frame.errors)
                shown += frame.errors[: max(0, SHOWN - len(shown))]
                if any(e.row is None for e in frame.errors):
                    break  # the file's columns are wrong: every piece would say the same
                advance(raw.frame.height)
                continue
            if total == 0:  # after an error, the pieces are only read for their own errors
                results = compiled.evaluate(frame)  # refuses a parameter the rows need, unset
                files.add(results, frame)
                kept.append(results.select(SUMMARY_COLUMNS))
            advance(frame.height)
    if total:
        raise _FileRefused(shown, total)
    return pl.concat(kept)


def _typed(
    pieces: Iterator[RawTable],
) -> Iterator[tuple[RawTable, pl.DataFrame | InputRejected]]:
    """Each piece with its typed rows, or with the errors that refuse them."""
    for raw in pieces:
        try:
            yield raw, parse(raw)
        except InputRejected as exc:
            yield raw, exc


def _refused(shown: list[InputError], total: int) -> typer.Exit:
    lines = [str(e) for e in shown[:SHOWN]]
    if total > len(lines):
        lines.append(f"… y {count(total - len(lines), 'error', 'errores')} más")
    return fail(lines, f"El archivo tiene {count(total, 'error', 'errores')}; no se escribió nada:")


def print_summary(results: pl.DataFrame, offer: Offer) -> None:
    summary = summarize(results)
    program = offer.program
    asked = count(results.height, "aceptación", "aceptaciones")
    table = Table(title=f"Resumen: {program.name} ({asked})")
    for col in ("Decisión", "Aceptaciones", "Acciones solicitadas", "Acciones permitidas"):
        table.add_column(col, justify="right" if col != "Decisión" else "left")
    for row in summary.by_decision.iter_rows():
        table.add_row(label("decision", row[0]), group(row[1]), group(row[2]), group(row[3]))
    console.print(table)
    cat = Table(title="Por categoría")
    for col in ("Categoría", "Aceptadas", "Reducidas", "Rechazadas"):
        cat.add_column(col, justify="right" if col != "Categoría" else "left")
    for row in summary.by_category.iter_rows():
        cat.add_row(label("categoria", row[0]), *(group(v) for v in row[1:]))
    console.print(cat)
    lim = Table(title="Límite que determinó la cantidad (reducidas y permitidas en cero)")
    lim.add_column("Límite")
    lim.add_column("Cita")
    lim.add_column("Aceptaciones", justify="right")
    for rule_id, times in summary.by_binding_limit.iter_rows():
        rule = program.limit(rule_id)
        lim.add_row(rule.name, cite(program, rule.citation), group(times))
    console.print(lim)
    if offer.day("fecha_aviso") is None or offer.day("fecha_cierre") is None:
        console.print(
            "Nota: la oferta no tiene fecha_aviso y fecha_cierre; no se verificó el "
            "plazo de radicación.",
            style="yellow",
        )
