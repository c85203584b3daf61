"""``democratiza pago …`` and ``democratiza tenencia …``: payments, the sale, and events."""

from __future__ import annotations

from datetime import date
from typing import Annotated

import typer
from rich.console import Console

from democratiza.cli.common import centavos_option, refuse
from democratiza.cli.offers import Code, Db, Who, engine_for
from democratiza.compliance.fines import FineError
from democratiza.compliance.holdings import EVENT_KINDS, record_event, record_payment, settle
from democratiza.money import group
from democratiza.offers.lifecycle import OfferError

payment_app = typer.Typer(
    help="Pagos de lo adjudicado y liquidación del periodo de pago.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
holding_app = typer.Typer(
    help="Eventos sobre las acciones vendidas (compromisos de dos años).",
    no_args_is_help=True,
    rich_markup_mode=None,
)
console = Console()


def _day(text: str, option: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise refuse(f"{option}: '{text}' debe ser una fecha AAAA-MM-DD.") from None


@payment_app.command("registrar")
def pay_command(
    codigo: Code,
    radicado: Annotated[str, typer.Argument(help="Radicado de la aceptación adjudicada")],
    monto: Annotated[str, typer.Option(help="Pesos pagados")],
    fecha: Annotated[str, typer.Option(help="AAAA-MM-DD")],
    forma: Annotated[str, typer.Option(help="contado, credito o cesantias")] = "contado",
    quien: Who = "comisionista",
    db: Db = None,
) -> None:
    """Registra un pago de una adjudicación."""
    try:
        record_payment(
            engine_for(db),
            codigo,
            radicado,
            _day(fecha, "--fecha"),
            centavos_option(monto, "--monto"),
            forma,
            quien,
        )
    except OfferError as exc:
        raise refuse(str(exc)) from None
    console.print(f"Pago registrado para {radicado}.")


@payment_app.command("liquidar")
def settle_command(
    codigo: Code,
    fecha_enajenacion: Annotated[str, typer.Option(help="Fecha de la venta, AAAA-MM-DD")],
    quien: Who = "oficina del programa",
    db: Db = None,
) -> None:
    """Cierra el periodo de pago: lo pagado se vende; lo no pagado se resuelve (GEB art. 5)."""
    try:
        done = settle(engine_for(db), codigo, _day(fecha_enajenacion, "--fecha-enajenacion"), quien)
    except OfferError as exc:
        raise refuse(str(exc)) from None
    console.print(
        f"Vendidas (pagadas): {group(done.paid_shares)} acciones; resueltas por falta "
        f"de pago, de vuelta para la etapa siguiente: {group(done.resolved_shares)}."
    )


@holding_app.command("evento")
def event_command(
    codigo: Code,
    radicado: Annotated[str, typer.Argument(help="Radicado de la aceptación")],
    tipo: Annotated[str, typer.Option(help=", ".join(EVENT_KINDS))],
    fecha: Annotated[str, typer.Option(help="Día en que ocurrió o se identificó")],
    acciones: Annotated[int, typer.Option(help="Acciones afectadas")],
    detalle: Annotated[str, typer.Option(help="Qué se informó y quién lo informó")],
    contraprestacion: Annotated[
        str | None,
        typer.Option(help="Precio u otra contraprestación obtenida por acción, en pesos"),
    ] = None,
    quien: Who = "oficina del programa",
    db: Db = None,
) -> None:
    """Registra un evento sobre acciones vendidas y, si cae en un tramo, calcula la multa."""
    try:
        case = record_event(
            engine_for(db),
            codigo,
            radicado,
            tipo,
            _day(fecha, "--fecha"),
            acciones,
            centavos_option(contraprestacion, "--contraprestacion") if contraprestacion else None,
            detalle,
            quien,
        )
    except (OfferError, FineError) as exc:
        raise refuse(str(exc)) from None
    console.print(case.band.reason, highlight=False)
    if case.fine is not None:
        console.print(case.fine.explain(), highlight=False)
        console.print(
            "El estado de cuenta con ajuste, intereses y pagos: democratiza multa calcular.",
            highlight=False,
        )
