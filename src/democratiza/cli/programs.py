"""``democratiza programa …``: show a program, check a program file, compare an offer's kept
program with the file as it is now.

``democratiza programa ID`` is ``democratiza programa ver ID``: the group reads a first word
that is none of its commands as a program to show.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from typer.core import TyperGroup

from democratiza.cli.common import fail, refuse
from democratiza.cli.offers import Code, Db, engine_for
from democratiza.cli.program_view import show_program
from democratiza.money import group
from democratiza.offers.lifecycle import OfferError, kept_program, load_offer
from democratiza.offers.readiness import later_needs
from democratiza.programs.compare import changes, shown, text_changes
from democratiza.programs.coverage import Covered, Status, program_coverage, uncovered_lines
from democratiza.programs.loader import (
    ProgramFileError,
    ProgramText,
    bundled_program_ids,
    digest,
    load_program,
    problems,
    program_data,
    read_program,
    read_program_file,
)
from democratiza.words import count

console = Console()


class _ShowByDefault(TyperGroup):
    # Typed Any: Typer's context and command types are those of its private copy of Click.
    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["ver", *args]
        return super().resolve_command(ctx, args)


program_app = typer.Typer(
    cls=_ShowByDefault,
    help="Un programa: verlo (programa ID), validar un archivo, comparar el de una oferta.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


def _refuse_file(exc: ProgramFileError) -> typer.Exit:
    return fail([str(e) for e in exc.errors], "Archivo de programa no válido:")


@program_app.command("ver")
def show_command(
    programa: Annotated[str, typer.Argument(help="Id del programa o ruta a un archivo .yaml")],
) -> None:
    """Muestra cada sección del programa, cada valor con su cita."""
    try:
        show_program(console, load_program(programa))
    except ProgramFileError as exc:
        raise _refuse_file(exc) from None


@program_app.command("validar")
def validate_command(
    archivo: Annotated[Path, typer.Argument(help="Archivo de programa .yaml")],
) -> None:
    """Revisa un archivo de programa y dice todos sus problemas a la vez, cada uno con la
    ruta de su clave."""
    try:
        found = read_program_file(archivo)
        data = program_data(found.text, found.source)
    except ProgramFileError as exc:
        raise _refuse_file(exc) from None
    program, errors = problems(data, found.source, found.texts, found.where)
    if program is None:
        lines = [f"{e.path}: {e.message}" for e in errors]
        raise fail(
            lines,
            f"{archivo}: {count(len(errors), 'problema', 'problemas')}; el programa no se carga:",
        )
    console.print(
        f"{archivo}: el programa {program.id} (versión {program.version}) es válido; "
        f"huella SHA-256 {found.sha256}.",
        highlight=False,
    )
    for need in later_needs(program):
        console.print(f"  • {need}", highlight=False, markup=False)
    for line in uncovered_lines(program_coverage(program, data, found.beside)):
        console.print(f"  • Aviso: {line}", highlight=False, markup=False)


def _opening(covered: Covered) -> str:
    named = covered.provision.label.startswith("inc. «")
    return "" if named else f" «{covered.provision.opening}»"


def _refs(covered: Covered, shown: int = 3) -> str:
    """The first citations that cover a provision, as the file writes them."""
    refs = list(dict.fromkeys(covered.refs))
    if not refs:
        return ""
    more = f" y {len(refs) - shown} más" if len(refs) > shown else ""
    return f" ({'; '.join(refs[:shown])}{more})"


@program_app.command("cobertura")
def coverage_command(
    programa: Annotated[str, typer.Argument(help="Id del programa o ruta a un archivo .yaml")],
) -> None:
    """Recorre el texto de cada decreto que el programa cita, artículo por artículo, y dice
    de cada disposición si un valor del archivo la cita, si está declarada en no_modelado o
    ninguna de las dos."""
    try:
        found = read_program(programa)
        program = found.program()
        data = program_data(found.text, found.source)
    except ProgramFileError as exc:
        raise _refuse_file(exc) from None
    texts = program_coverage(program, data, found.beside)
    if not texts:
        console.print(f"El programa {program.id} no cita el texto de ningún decreto.")
        return
    for text in texts:
        counts = {s: sum(1 for c in text.provisions if c.status is s) for s in Status}
        provisions = count(len(text.provisions), "disposición", "disposiciones")
        cited = count(counts[Status.CITED], "citada", "citadas")
        unmodelled = count(
            counts[Status.NOT_MODELLED], "declarada no modelada", "declaradas no modeladas"
        )
        console.print(
            f"{text.short} ({text.text}): {provisions}; {cited} por un valor, {unmodelled}, "
            f"{group(counts[Status.NEITHER])} ni lo uno ni lo otro.",
            highlight=False,
            markup=False,
        )
        for c in text.provisions:
            console.print(
                f"  {c.provision.label}{_opening(c)}: {c.status.value}{_refs(c)}",
                highlight=False,
                markup=False,
            )


def _current(program_id: str, path: Path | None) -> ProgramText:
    if path is None and program_id not in bundled_program_ids():
        raise refuse(
            f"El programa {program_id} no está en el paquete: dé el archivo actual con "
            "--archivo RUTA."
        )
    try:
        return read_program_file(path) if path is not None else read_program(program_id)
    except ProgramFileError as exc:
        raise _refuse_file(exc) from None


def _data(text: ProgramText) -> Any:
    try:
        return program_data(text.text, text.source)
    except ProgramFileError as exc:
        raise _refuse_file(exc) from None


@program_app.command("comparar")
def compare_command(
    codigo: Code,
    archivo: Annotated[
        Path | None,
        typer.Option(
            "--archivo", help="Archivo actual (por defecto, el del paquete con el id del programa)"
        ),
    ] = None,
    db: Db = None,
) -> None:
    """Compara el programa guardado con la oferta y el archivo actual, valor por valor."""
    try:
        with engine_for(db).connect() as conn:
            stored = load_offer(conn, codigo)
            kept = kept_program(conn, stored)
    except OfferError as exc:
        raise refuse(str(exc)) from None
    program = stored.program
    current = _current(program.id, archivo)
    console.print(
        f"Oferta '{codigo}': programa {program.id}, versión {program.version}, huella "
        f"{stored.program_sha256}.\nArchivo actual ({current.source}): huella {current.sha256}.",
        highlight=False,
    )
    texts = text_changes(kept.texts, current.texts)
    for line in texts:
        console.print(line, highlight=False, markup=False)
    if digest(kept.text) == current.sha256:
        console.print("El archivo actual es idéntico al guardado con la oferta.")
        return
    found = changes(_data(kept), _data(current))
    if not found:
        console.print("Los valores son los mismos: el texto cambia solo en comentarios o formato.")
        return
    changed = count(len(found), "valor cambia", "valores cambian")
    console.print(f"{changed} (guardado → actual):")
    for change in found:
        console.print(
            f"  {change.path}: {shown(change.before)} → {shown(change.after)}",
            highlight=False,
            markup=False,
        )
