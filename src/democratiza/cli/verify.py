"""``democratiza paquete`` (the public package of a published stage) and ``verificar``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from democratiza.cli.common import refuse
from democratiza.cli.offers import Db, engine_for

if TYPE_CHECKING:
    from democratiza.storage.audit import Anchor
    from democratiza.verification.chain_head import HeadCheck

package_app = typer.Typer(
    help="Paquetes públicos de las adjudicaciones publicadas, para que cualquiera las verifique.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
console = Console()
Folder = Annotated[Path, typer.Option("--salida", "-o", help="Carpeta del paquete")]
Who = Annotated[str, typer.Option("--quien", help="Quién lo arma")]


def _write(files: dict[str, bytes], folder: Path, manifest: str, head: Anchor | None) -> None:
    from democratiza.reports.render.files import atomic_write
    from democratiza.verification.verify import zipped

    folder.mkdir(parents=True, exist_ok=True)
    for name, data in sorted(files.items()):
        atomic_write(folder / name, data)
    atomic_write(folder.with_suffix(".zip"), zipped(files))
    console.print(f"Paquete escrito en {folder} y {folder.with_suffix('.zip')}.", highlight=False)
    console.print(f"Huella SHA-256 del manifiesto: {manifest}", highlight=False)
    if head is not None:
        console.print(f"Cabeza de la cadena de auditoría: {head.text()}", highlight=False)


@package_app.command("oferta")
def offer_command(
    codigo: Annotated[str, typer.Argument(help="Código de la oferta publicada")],
    salida: Folder = Path("salidas/paquete"),
    quien: Who = "oficina del programa",
    db: Db = None,
) -> None:
    """Arma el paquete público de la Primera Etapa de una oferta publicada."""
    from democratiza.offers.lifecycle import OfferError
    from democratiza.verification.publish import offer_package

    try:
        package = offer_package(engine_for(db), codigo, quien)
    except OfferError as exc:
        raise refuse(str(exc)) from None
    _write(package.files, salida, package.manifest_digest, package.head)


@package_app.command("etapa")
def stage_command(
    etapa: Annotated[str, typer.Argument(help="Código de la etapa publicada")],
    salida: Folder = Path("salidas/paquete-etapa"),
    quien: Who = "oficina del programa",
    db: Db = None,
) -> None:
    """Arma el paquete público de una etapa siguiente publicada."""
    from democratiza.stages.terms import StageError
    from democratiza.verification.publish import stage_package_of

    try:
        package = stage_package_of(engine_for(db), etapa, quien)
    except StageError as exc:
        raise refuse(str(exc)) from None
    _write(package.files, salida, package.manifest_digest, package.head)


def verify_command(
    paquete: Annotated[Path, typer.Argument(help="Carpeta o ZIP del paquete público")],
    cadena: Annotated[
        Path | None,
        typer.Option(
            "--cadena",
            help="Registro de auditoría exportado (`auditoria exportar`) contra el que "
            "comprobar la cabeza de la cadena que el paquete trae",
        ),
    ] = None,
    db: Db = None,
) -> None:
    """Recalcula la adjudicación desde el paquete y dice si coincide, byte por byte; con
    --cadena (o --db), comprueba además que esa cadena de auditoría esté íntegra y contenga
    la entrada que el paquete nombra como su cabeza al publicarse, con su huella."""
    from democratiza.verification.verify import verify

    if cadena is not None and db is not None:
        raise refuse("Indique la cadena con --cadena o con --db, no con ambas.")
    verdict = verify(paquete)
    if verdict.manifest_digest:
        console.print(f"Huella SHA-256 del manifiesto: {verdict.manifest_digest}", highlight=False)
    if verdict.head is not None:
        console.print(
            f"Cabeza de la cadena de auditoría al publicarse: {verdict.head.text()}",
            highlight=False,
        )
    if not verdict.matches:
        raise refuse(verdict.message)
    console.print(verdict.message, highlight=False)
    if cadena is None and db is None:
        return
    if verdict.head is None:
        raise refuse(
            "El paquete no trae la cabeza de la cadena de auditoría: no hay entrada que "
            "comprobar en la cadena dada."
        )
    checked = _head_checked(verdict.head, cadena, db)
    if not checked.ok:
        raise refuse(checked.message)
    console.print(checked.message, highlight=False)


def _head_checked(head: Anchor, cadena: Path | None, db: str | None) -> HeadCheck:
    from democratiza.cli.offers import refuse_damaged
    from democratiza.storage.audit import stored_chunks
    from democratiza.storage.audit_export import ExportError, export_chunks
    from democratiza.verification.chain_head import check_head

    if cadena is not None:
        try:
            return check_head(head, export_chunks(cadena), f"del archivo {cadena}")
        except ExportError as exc:
            raise refuse(f"No se puede leer la cadena de auditoría: {exc}.") from None
    engine = engine_for(db, reading=True)
    refuse_damaged(engine, full=True)
    with engine.connect() as conn:
        return check_head(head, stored_chunks(conn), "de la base de datos")
