"""The ``democratiza`` command: programs, batch evaluation and the calculator, in Spanish."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import polars as pl
import typer
import yaml
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from democratiza.cli.after_sale import holding_app, payment_app
from democratiza.cli.calculator import calculator_command
from democratiza.cli.credit import credit_app
from democratiza.cli.fines import fines_app
from democratiza.cli.offers import batch_app, offer_app
from democratiza.cli.program_view import show_program, show_programs
from democratiza.cli.stages import stage_app
from democratiza.cli.web import audit_app, serve_command, token_app, user_app
from democratiza.money import group
from democratiza.programs.loader import ProgramFileError, load_program
from democratiza.programs.parameters import Offer, OfferParameterError, make_offer
from democratiza.reports.decisions import iter_chunks, summarize, write_decisions
from democratiza.rules.engine import CompiledProgram
from democratiza.tables.acceptances import format_markdown
from democratiza.tables.errors import InputRejected
from democratiza.tables.parse import parse
from democratiza.tables.readers import read_table

app = typer.Typer(
    help="Programas de democratización accionaria (Ley 226 de 1995).",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
console = Console()
err = Console(stderr=True)

ProgramOpt = Annotated[
    str,
    typer.Option("--programa", "-p", help="Id del programa o ruta a un archivo de programa .yaml"),
]
ParamOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--parametro",
        help="Parámetro de la oferta NOMBRE=VALOR (p. ej. precio=2500.00, "
        "trm=2984.00, fecha_aviso=2018-01-02); repetible",
    ),
]


def fail(lines: list[str], title: str) -> typer.Exit:
    err.print(f"[bold red]{title}[/]")
    for line in lines:
        err.print(f"  • {line}", highlight=False, markup=False)
    return typer.Exit(code=1)


OfferFileOpt = Annotated[
    Path | None,
    typer.Option("--oferta", help="Archivo YAML con los parámetros de la oferta (nombre: valor)"),
]


def offer_from(program_id: str, params: list[str] | None, offer_file: Path | None = None) -> Offer:
    try:
        program = load_program(program_id)
    except ProgramFileError as exc:
        raise fail([str(e) for e in exc.errors], "Archivo de programa no válido:") from None
    overrides: dict[str, object] = {}
    if offer_file is not None:
        try:
            loaded = yaml.safe_load(offer_file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            raise fail([f"{offer_file}: {exc}"], "Archivo de oferta no legible:") from None
        if not isinstance(loaded, dict):
            raise fail([f"{offer_file}: se espera nombre: valor"], "Archivo de oferta no válido:")
        overrides.update({str(k): v for k, v in loaded.items()})
    for item in params or []:
        name, sep, value = item.partition("=")
        if not sep:
            raise fail([f"'{item}' debe tener la forma NOMBRE=VALOR"], "Parámetro no válido:")
        overrides[name.strip()] = value.strip()
    try:
        return make_offer(program, overrides)
    except OfferParameterError as exc:
        raise fail(exc.messages, "No se puede evaluar con esta oferta:") from None


@app.command("programas")
def programs_command() -> None:
    """Lista los programas disponibles."""
    show_programs(console)


@app.command("programa")
def program_command(program_id: Annotated[str, typer.Argument(help="Id del programa")]) -> None:
    """Muestra cada parámetro y regla de un programa con su cita."""
    try:
        show_program(console, load_program(program_id))
    except ProgramFileError as exc:
        raise fail([str(e) for e in exc.errors], "Archivo de programa no válido:") from None


@app.command("formato")
def format_command() -> None:
    """Imprime la especificación del archivo de aceptaciones (Markdown)."""
    typer.echo(format_markdown())


@app.command("evaluar")
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
            shown.append(f"… y {len(exc.errors) - 200} error(es) más")
        raise fail(
            shown, f"El archivo tiene {len(exc.errors)} error(es); no se escribió nada:"
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
    table = Table(
        title=f"Resumen: {program.id} ({results.height:,} aceptaciones)".replace(",", ".")
    )
    for col in ("Decisión", "Aceptaciones", "Acciones solicitadas", "Acciones permitidas"):
        table.add_column(col, justify="right" if col != "Decisión" else "left")
    for row in summary.by_decision.iter_rows():
        table.add_row(str(row[0]), group(row[1]), group(row[2]), group(row[3]))
    console.print(table)
    cat = Table(title="Por categoría")
    for col in ("Categoría", "Aceptadas", "Reducidas", "Rechazadas"):
        cat.add_column(col, justify="right" if col != "Categoría" else "left")
    for row in summary.by_category.iter_rows():
        cat.add_row(row[0], *(group(v) for v in row[1:]))
    console.print(cat)
    lim = Table(title="Límite que determinó la cantidad (reducidas y permitidas en cero)")
    lim.add_column("Regla")
    lim.add_column("Cita")
    lim.add_column("Aceptaciones", justify="right")
    for rule_id, count in summary.by_binding_limit.iter_rows():
        rule = program.limit(rule_id)
        where = f"{program.norms[rule.citation.norm].short} {rule.citation.ref}"
        lim.add_row(f"{rule_id}: {rule.name}", where, group(count))
    console.print(lim)
    if offer.day("fecha_aviso") is None or offer.day("fecha_cierre") is None:
        console.print(
            "Nota: la oferta no tiene fecha_aviso y fecha_cierre; no se verificó el "
            "plazo de radicación.",
            style="yellow",
        )


app.command("calcular")(calculator_command)
app.add_typer(offer_app, name="oferta")
app.add_typer(batch_app, name="lote")
app.add_typer(fines_app, name="multa")
app.add_typer(credit_app, name="credito")
app.add_typer(payment_app, name="pago")
app.add_typer(holding_app, name="tenencia")
app.command("servir")(serve_command)
app.add_typer(user_app, name="usuario")
app.add_typer(token_app, name="token")
app.add_typer(audit_app, name="auditoria")
app.add_typer(stage_app, name="etapa")


def main() -> None:
    app()
