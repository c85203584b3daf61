"""``democratiza evaluar``: a whole acceptance file decided, explained, written, summarised."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import polars as pl
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from democratiza.cli.common import fail
from democratiza.cli.offer_options import OfferFileOpt, ParamOpt, ProgramOpt, offer_from
from democratiza.labels import label
from democratiza.money import group
from democratiza.programs.parameters import Offer, OfferParameterError
from democratiza.reports.decisions import iter_chunks, summarize, write_decisions
from democratiza.rules.engine import CompiledProgram
from democratiza.rules.explain import cite
from democratiza.tables.errors import InputRejected
from democratiza.tables.parse import parse
from democratiza.tables.readers import read_table
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
) -> None:
    """Evalúa un archivo de aceptaciones y escribe las decisiones (CSV y JSON)."""
    offer = offer_from(programa, parametro, oferta)
    compiled = CompiledProgram(offer)
    try:
        frame = parse(read_table(archivo))
    except InputRejected as exc:
        shown = [str(e) for e in exc.errors[:200]]
        if len(exc.errors) > 200:
            shown.append(f"… y {count(len(exc.errors) - 200, 'error', 'errores')} más")
        raise fail(
            shown,
            f"El archivo tiene {count(len(exc.errors), 'error', 'errores')}; no se escribió nada:",
        ) from None
    try:
        compiled.required_parameters(frame)
    except OfferParameterError as exc:
        raise fail(exc.messages, "No se puede evaluar con esta oferta:") from None
    columns = [
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    ]
    with Progress(*columns, console=err, transient=True) as progress:
        task = progress.add_task("Evaluando", total=frame.height)
        parts = []
        for chunk in iter_chunks(frame):
            parts.append(compiled.evaluate(chunk))
            progress.advance(task, chunk.height)
        results = pl.concat(parts)
        task = progress.add_task("Explicando y escribiendo", total=frame.height)
        paths = write_decisions(
            compiled,
            results,
            frame,
            salida,
            f"decisiones-{archivo.stem}",
            lambda n: progress.advance(task, n),
        )
    print_summary(results, offer)
    for path in paths:
        console.print(f"Decisiones escritas en: {path}", highlight=False)


def print_summary(results: pl.DataFrame, offer: Offer) -> None:
    summary = summarize(results)
    program = offer.program
    asked = count(results.height, "aceptación", "aceptaciones")
    table = Table(title=f"Resumen: {program.id} ({asked})")
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
