"""``democratiza respaldo crear`` and ``restaurar``: copies of the whole database that restore.

Why commands and not a script: the copy must be taken at one instant with the audit chain
verified and the tables counted in that same instant (``storage.backup``), and a restore
must check the same; an operator's ``cp`` of a SQLite file being written, or a ``pg_dump``
never restored, gives neither.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from democratiza.cli.common import refuse
from democratiza.cli.offers import Db
from democratiza.money import group
from democratiza.storage.backup import BackupError, Snapshot, create, manifest_path, restore
from democratiza.storage.database import database_url, make_engine
from democratiza.words import count

console = Console()
backup_app = typer.Typer(
    help="Copias de seguridad de la base de datos, verificadas al crearlas y al restaurarlas.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


def _said(found: Snapshot) -> str:
    rows = sum(found.counts.values())
    shown = ", ".join(
        f"{name} {group(found.counts.get(name, 0))}"
        for name in ("ofertas", "lotes", "aceptaciones", "adjudicados", "etapas", "ordenes")
    )
    return (
        f"{found.chain.message()}\nAncla: {found.anchor.text()}\n"
        f"Filas: {group(rows)} en {count(len(found.counts), 'tabla', 'tablas')} ({shown}); "
        f"esquema {found.schema}."
    )


@backup_app.command("crear")
def create_command(
    destino: Annotated[Path, typer.Argument(help="Archivo de la copia (no debe existir)")],
    db: Db = None,
) -> None:
    """Copia la base entera en un instante (SQLite: respaldo en línea; PostgreSQL: pg_dump)."""
    engine = make_engine(database_url(db))
    try:
        found = create(engine, destino)
    except BackupError as exc:
        raise refuse(str(exc)) from None
    finally:
        engine.dispose()
    console.print(f"Copia en {destino} (manifiesto: {manifest_path(destino)}).", highlight=False)
    console.print(_said(found), highlight=False)


@backup_app.command("restaurar")
def restore_command(
    origen: Annotated[Path, typer.Argument(help="Archivo de una copia hecha con «crear»")],
    sobrescribir: Annotated[
        bool,
        typer.Option("--sobrescribir", help="Reemplazar una base que ya tiene datos"),
    ] = False,
    db: Db = None,
) -> None:
    """Restaura una copia en la base (--db) y verifica su cadena de auditoría y sus conteos."""
    engine = make_engine(database_url(db))
    try:
        found = restore(origen, engine, overwrite=sobrescribir)
    except BackupError as exc:
        raise refuse(str(exc)) from None
    finally:
        engine.dispose()
    if manifest_path(origen).is_file():
        console.print("Restaurada; conteos y ancla iguales a los de la copia.", highlight=False)
    else:
        console.print(
            f"Restaurada, sin manifiesto ({manifest_path(origen)}): la cadena se verificó, los "
            "conteos no se pudieron comparar con los de la copia.",
            highlight=False,
        )
    console.print(_said(found), highlight=False)
    console.print(
        "Si el programa es más nuevo que la copia, el próximo comando (o democratiza servir) "
        "corre las migraciones que falten.",
        highlight=False,
    )
