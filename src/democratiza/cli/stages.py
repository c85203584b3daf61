"""``democratiza etapa …``: the Segunda Etapa and later stages from the command line."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from democratiza.cli.batch_files import not_written
from democratiza.cli.common import Separator, centavos_option, csv_separator, refuse, refuse_file
from democratiza.cli.offers import Db, Who, Why, engine_for
from democratiza.compliance.ledger import stage_ledger, stage_paid_shares
from democratiza.money import group, pesos
from democratiza.offers.lifecycle import OfferError
from democratiza.reports.exports import slug
from democratiza.stages.allocate import allocate_stage, current_orders, stored_allocation
from democratiza.stages.clearing import demand_curve
from democratiza.stages.lifecycle import (
    advance_stage,
    create_stage,
    declare_void,
    load_stage,
    stage_history,
)
from democratiza.stages.orders import import_orders, withdraw_order, withdrawn_orders
from democratiza.stages.terms import StageError, StageState, StageTerms
from democratiza.storage.receipts import StorageError
from democratiza.tables.cells import write_csv
from democratiza.tables.errors import InputRejected
from democratiza.validation_messages import validated_yaml
from democratiza.words import orders_filed, word

stage_app = typer.Typer(
    help="Segunda Etapa y etapas subsecuentes: crear, recibir órdenes, adjudicar, exportar.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
console = Console()
Code = Annotated[str, typer.Argument(help="Código de la etapa")]
Office = "oficina del programa"


def _terms(path: Path) -> StageTerms:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise refuse(f"{path}: no es texto UTF-8.") from None
    except OSError as exc:
        raise refuse(f"{path}: no se pudo leer ({exc.strerror}).") from None
    try:
        return validated_yaml(StageTerms, text, str(path), StageError)
    except StageError as exc:
        raise refuse(str(exc)) from None


@stage_app.command("crear")
def create_command(
    codigo: Code,
    oferta: Annotated[str, typer.Option("--oferta", help="Código de la oferta de Primera Etapa")],
    terminos: Annotated[Path, typer.Option("--terminos", help="YAML con los términos")],
    quien: Who = Office,
    motivo: Why = "publicación del aviso de la etapa",
    db: Db = None,
) -> None:
    """Crea la etapa siguiente con las acciones que quedaron sin vender."""
    terms = _terms(terminos)
    try:
        with engine_for(db).begin() as conn:
            stage = create_stage(conn, codigo, oferta, terms, quien, motivo)
    except (StageError, OfferError) as exc:
        raise refuse(str(exc)) from None
    console.print(f"{stage.name} '{stage.code}' creada en borrador.")
    _describe(stage.origin, stage.shares, stage.minimum_price)


def _describe(origin: dict[str, object], shares: int, minimum: int) -> None:
    console.print(f"  Viene de: {origin['de']}", highlight=False)
    for key in (
        "ofrecidas_primera_etapa",
        "pagadas",
        "resueltas_por_no_pago",
        "disponibles_etapa_anterior",
        "asignadas_etapa_anterior",
        "disponibles",
    ):
        if key in origin:
            console.print(f"  {word('origen_etapa', key)}: {group(int(str(origin[key])))}")
    if "tope" in origin:
        console.print(f"  {origin['tope']}", highlight=False)
    console.print(f"  Acciones ofrecidas en la etapa: {group(shares)}")
    for step in origin.get("precio_minimo_pasos", []):  # type: ignore[attr-defined]
        console.print(f"  {step}", highlight=False)
    console.print(f"  Precio mínimo: {pesos(minimum)}")


def _advance(codigo: str, target: StageState, quien: str, motivo: str, db: str | None) -> None:
    try:
        with engine_for(db).begin() as conn:
            advance_stage(conn, load_stage(conn, codigo), target, quien, motivo)
    except StageError as exc:
        raise refuse(str(exc)) from None
    console.print(f"Etapa '{codigo}': {target}.")


@stage_app.command("abrir")
def open_command(
    codigo: Code,
    quien: Who = Office,
    motivo: Why = "inicio del plazo de órdenes",
    db: Db = None,
) -> None:
    """Abre el plazo para recibir órdenes."""
    _advance(codigo, "abierta", quien, motivo, db)


@stage_app.command("cerrar")
def close_command(
    codigo: Code,
    quien: Who = Office,
    motivo: Why = "vencimiento del plazo de órdenes",
    db: Db = None,
) -> None:
    """Cierra el libro: no se reciben, corrigen ni retiran más órdenes."""
    _advance(codigo, "cerrada", quien, motivo, db)


@stage_app.command("ordenes")
def orders_command(
    codigo: Code,
    archivo: Annotated[Path, typer.Argument(help="Lote de órdenes en CSV, XLSX o JSON")],
    comisionista: Annotated[str, typer.Option(help="Sociedad comisionista que envía")],
    lote: Annotated[str, typer.Option(help="Identificador del lote en el comisionista")],
    quien: Who = "comisionista",
    salida: Annotated[Path, typer.Option("--salida", "-o", help="Carpeta del resultado")] = Path(
        "salidas"
    ),
    db: Db = None,
) -> None:
    """Recibe un lote de órdenes: todo o nada, una sola vez, revisado al recibirlo."""
    try:
        result = import_orders(engine_for(db), codigo, archivo, comisionista, lote, quien)
    except InputRejected as exc:
        raise refuse_file(exc) from None
    except (StageError, StorageError) as exc:
        raise refuse(str(exc)) from None
    console.print(result.message)
    for radicado, referencia, _, motivo in result.decisions.filter(
        result.decisions["decision"] == "rechazada"
    ).iter_rows():
        console.print(f"  rechazada {radicado} ({referencia}): {motivo}", highlight=False)
    folder = salida / codigo / "lotes"
    path = folder / f"{slug(comisionista)}-{slug(lote)}-radicados.csv"
    try:  # the orders are stored: a failing disk loses only this file, written again on resend
        folder.mkdir(parents=True, exist_ok=True)
        write_csv(result.decisions, path)
    except OSError as exc:
        raise not_written(lote, result.rows, folder, exc, orders_filed) from None
    console.print(f"Escrito: {path}", highlight=False)


@stage_app.command("retirar")
def withdraw_command(
    codigo: Code,
    radicado: Annotated[str, typer.Argument(help="Radicado de la orden")],
    motivo: Why,
    quien: Who = "comisionista",
    db: Db = None,
) -> None:
    """Retira una orden mientras la etapa está abierta (queda su historia)."""
    try:
        withdraw_order(engine_for(db), codigo, radicado, quien, motivo)
    except StageError as exc:
        raise refuse(str(exc)) from None
    console.print(f"Orden {radicado} retirada.")


@stage_app.command("libro")
def book_command(codigo: Code, db: Db = None) -> None:
    """Muestra el libro: la demanda acumulada a cada precio (para fijar el precio de corte)."""
    try:
        with engine_for(db).connect() as conn:
            stage = load_stage(conn, codigo)
            book = current_orders(conn, stage).filter(decision="valida")
    except StageError as exc:
        raise refuse(str(exc)) from None
    table = Table(title=f"Libro de {stage.name} '{codigo}' ({group(stage.shares)} ofrecidas)")
    table.add_column("Precio")
    table.add_column("Acciones a ese precio o más", justify="right")
    table.add_column("Cubre la oferta")
    for price, shares in demand_curve(book["precio"].to_numpy(), book["cantidad"].to_numpy()):
        table.add_row(pesos(price), group(shares), "sí" if shares >= stage.shares else "no")
    console.print(table)


@stage_app.command("adjudicar")
def allocate_command(
    codigo: Code,
    precio_corte: Annotated[
        str | None, typer.Option("--precio-corte", help="Construcción de libro: precio de corte")
    ] = None,
    quien: Who = "Bolsa de Valores de Colombia",
    motivo: Why = "adjudicación al cierre del libro",
    db: Db = None,
) -> None:
    """Fija el precio único y asigna las acciones; guarda el registro reproducible."""
    cutoff = None if precio_corte is None else centavos_option(precio_corte, "--precio-corte")
    try:
        done = allocate_stage(engine_for(db), codigo, quien, motivo, cutoff)
    except StageError as exc:
        raise refuse(str(exc)) from None
    h = done.header
    if h["desierta"]:
        console.print(f"Etapa '{codigo}' desierta: {h['causa']}.", highlight=False)
        return
    price = h["precio"]
    assert isinstance(price, int)
    console.print(
        f"Etapa '{codigo}' adjudicada a {pesos(price)} por acción: "
        f"{group(int(str(h['asignadas'])))} acciones.",
        highlight=False,
    )
    for note in h["notas"]:  # type: ignore[attr-defined]
        console.print(f"  {note}", highlight=False)


@stage_app.command("desierta")
def void_command(codigo: Code, motivo: Why, quien: Who = Office, db: Db = None) -> None:
    """Declara desierta la etapa, con su causal."""
    try:
        with engine_for(db).begin() as conn:
            declare_void(conn, load_stage(conn, codigo), quien, motivo)
    except StageError as exc:
        raise refuse(str(exc)) from None
    console.print(f"Etapa '{codigo}' declarada desierta.")


@stage_app.command("publicar")
def publish_command(
    codigo: Code, quien: Who = Office, motivo: Why = "publicación del resultado", db: Db = None
) -> None:
    """Publica el resultado de la etapa."""
    _advance(codigo, "publicada", quien, motivo, db)


@stage_app.command("exportar")
def export_command(
    codigo: Code,
    salida: Annotated[Path, typer.Option("--salida", "-o", help="Carpeta de salida")] = Path(
        "salidas"
    ),
    separador: Separator = ",",
    db: Db = None,
) -> None:
    """Escribe los archivos por comisionista, el registro y el informe de la etapa."""
    style = csv_separator(separador)
    engine = engine_for(db)
    try:
        done = stored_allocation(engine, codigo)
        with engine.connect() as conn:
            stage = load_stage(conn, codigo)
            paid = stage_paid_shares(conn, codigo)
            gone = withdrawn_orders(conn, stage)
    except StageError as exc:
        raise refuse(str(exc)) from None
    folder = salida / codigo
    # Imported here: the report draws with matplotlib, which every other command would pay
    # for at start (a third of a second).
    from democratiza.reports.stage_report import broker_files, registry_file, write_report

    paths = [
        *broker_files(done, folder, style, gone),
        registry_file(done, folder, paid, style),
        *write_report(stage, done, folder),
    ]
    for path in paths:
        console.print(f"Escrito: {path}", highlight=False)


@stage_app.command("ver")
def show_command(codigo: Code, db: Db = None) -> None:
    """Estado, origen de las acciones, precio mínimo e historia de la etapa."""
    try:
        with engine_for(db).connect() as conn:
            stage = load_stage(conn, codigo)
            history = stage_history(conn, stage)
            ledger = stage_ledger(conn, codigo)
            payments = None if ledger.waiting else ledger.summary(conn)
    except StageError as exc:
        raise refuse(str(exc)) from None
    console.print(f"{stage.name} '{stage.code}': {stage.state}")
    _describe(stage.origin, stage.shares, stage.minimum_price)
    if payments is not None and payments["liquidada"]:
        console.print(
            f"  Pagos liquidados: {group(int(payments['acciones_pagadas']))} acciones vendidas; "
            f"{group(int(payments['acciones_resueltas']))} resueltas por falta de pago."
        )
    elif payments is not None:
        console.print(f"  Pagos recibidos: {pesos(int(payments['pagado']))}; sin liquidar.")
    for event in history:
        console.print(
            f"  {event['cuando']:%Y-%m-%d %H:%M} {event['de_estado'] or '-'} → "
            f"{event['a_estado']} ({event['quien']}): {event['por_que']}",
            highlight=False,
        )
