"""``democratiza etapa pago …``: a later stage's payments and their settlement.

The same commands as ``democratiza pago …`` for the Primera Etapa, over the stage's ledger
(``compliance.ledger.stage_ledger``): payments per allocated order, at the stage's price and
in cash; settling sells what was paid and resolves the rest, whose shares go back for the
next stage; the stage's registry then carries only the shares paid for.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from democratiza.cli.after_sale import close_payments, receive_payments, register_payment
from democratiza.cli.offers import Db, Who
from democratiza.compliance.ledger import stage_ledger

stage_payment_app = typer.Typer(
    help="Pagos de lo asignado en una etapa y liquidación de su periodo de pago.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
Stage = Annotated[str, typer.Argument(help="Código de la etapa")]


@stage_payment_app.command("registrar")
def pay_command(
    codigo: Stage,
    radicado: Annotated[str, typer.Argument(help="Radicado de la orden con acciones asignadas")],
    monto: Annotated[str, typer.Option(help="Pesos pagados")],
    fecha: Annotated[str, typer.Option(help="AAAA-MM-DD")],
    forma: Annotated[
        str, typer.Option(help="Forma de pago: las que el programa admite en la etapa")
    ] = "contado",
    quien: Who = "comisionista",
    db: Db = None,
) -> None:
    """Registra un pago de una orden con acciones asignadas; otra forma que las que el
    programa admite en las etapas siguientes se rechaza con su artículo."""
    register_payment(codigo, radicado, monto, fecha, forma, quien, db, stage_ledger)


@stage_payment_app.command("importar")
def import_command(
    codigo: Stage,
    archivo: Annotated[Path, typer.Argument(help="Pagos en CSV, XLSX o JSON")],
    lote: Annotated[str, typer.Option(help="Identificador del lote de pagos")],
    quien: Who = "comisionista",
    db: Db = None,
) -> None:
    """Registra un archivo de pagos (radicado, fecha, monto, forma): todo o nada, una vez."""
    receive_payments(codigo, archivo, lote, quien, db, stage_ledger)


@stage_payment_app.command("liquidar")
def settle_command(
    codigo: Stage,
    fecha_enajenacion: Annotated[str, typer.Option(help="Fecha de la venta, AAAA-MM-DD")],
    quien: Who = "oficina del programa",
    db: Db = None,
) -> None:
    """Cierra el periodo de pago de la etapa: lo pagado se vende; lo no pagado se resuelve y
    vuelve para la etapa siguiente."""
    close_payments(codigo, fecha_enajenacion, quien, db, stage_ledger)
