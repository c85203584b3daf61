"""``democratiza pago …`` and ``democratiza tenencia …``: payments, the sale, and events.

``tenencia ineficaz`` flags an acquisition contrary to the real-beneficiary rules (Ley 226
art. 14 inciso 2) and ``tenencia ver`` shows an award's sale, events and ineffectiveness.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from democratiza.cli.common import centavos_option, day_option, refuse, refuse_file, share_count
from democratiza.cli.offers import Code, Db, Who, engine_for
from democratiza.compliance.fines.terms import FineError
from democratiza.compliance.holdings import (
    EVENT_KINDS,
    flag_ineffective,
    holding_view,
    record_event,
    settle,
)
from democratiza.compliance.ledger import offer_ledger
from democratiza.compliance.payment_batches import LedgerOf, import_payments, record_payment
from democratiza.money import group, pesos
from democratiza.offers.lifecycle import OfferError
from democratiza.tables.errors import InputRejected

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


def register_payment(
    code: str,
    radicado: str,
    amount: str,
    day: str,
    method: str,
    who: str,
    db: str | None,
    ledger_of: LedgerOf = offer_ledger,
) -> None:
    """``pago registrar`` and ``etapa pago registrar``: one payment of an award."""
    try:
        record_payment(
            engine_for(db),
            code,
            radicado,
            day_option(day, "--fecha"),
            centavos_option(amount, "--monto"),
            method,
            who,
            ledger_of,
        )
    except OfferError as exc:
        raise refuse(str(exc)) from None
    console.print(f"Pago registrado para {radicado}.")


def receive_payments(
    code: str, path: Path, batch: str, who: str, db: str | None, ledger_of: LedgerOf = offer_ledger
) -> None:
    """``pago importar`` and ``etapa pago importar``: a payment file, all or nothing, once."""
    try:
        result = import_payments(engine_for(db), code, path, batch, who, ledger_of)
    except InputRejected as exc:
        raise refuse_file(exc, "El archivo") from None
    except OfferError as exc:
        raise refuse(str(exc)) from None
    console.print(result.message, highlight=False)


def close_payments(
    code: str, sale_day: str, who: str, db: str | None, ledger_of: LedgerOf = offer_ledger
) -> None:
    """``pago liquidar`` and ``etapa pago liquidar``: the sale of what was paid."""
    try:
        done = settle(
            engine_for(db), code, day_option(sale_day, "--fecha-enajenacion"), who, ledger_of
        )
    except OfferError as exc:
        raise refuse(str(exc)) from None
    console.print(
        f"Vendidas (pagadas): {group(done.paid_shares)} acciones; resueltas por falta "
        f"de pago, de vuelta para la etapa siguiente: {group(done.resolved_shares)}."
    )


@payment_app.command("registrar")
def pay_command(
    codigo: Code,
    radicado: Annotated[str, typer.Argument(help="Radicado de la aceptación adjudicada")],
    monto: Annotated[str, typer.Option(help="Pesos pagados")],
    fecha: Annotated[str, typer.Option(help="AAAA-MM-DD")],
    forma: Annotated[str, typer.Option(help="contado, credito, cesantias o cuotas")] = "contado",
    quien: Who = "comisionista",
    db: Db = None,
) -> None:
    """Registra un pago de una adjudicación."""
    register_payment(codigo, radicado, monto, fecha, forma, quien, db)


@payment_app.command("importar")
def import_command(
    codigo: Code,
    archivo: Annotated[Path, typer.Argument(help="Pagos en CSV, XLSX o JSON")],
    lote: Annotated[str, typer.Option(help="Identificador del lote de pagos")],
    quien: Who = "comisionista",
    db: Db = None,
) -> None:
    """Registra un archivo de pagos (radicado, fecha, monto, forma): todo o nada, una vez."""
    receive_payments(codigo, archivo, lote, quien, db)


@payment_app.command("liquidar")
def settle_command(
    codigo: Code,
    fecha_enajenacion: Annotated[str, typer.Option(help="Fecha de la venta, AAAA-MM-DD")],
    quien: Who = "oficina del programa",
    db: Db = None,
) -> None:
    """Cierra el periodo de pago: lo pagado se vende; lo no pagado se resuelve (GEB art. 5)."""
    close_payments(codigo, fecha_enajenacion, quien, db)


@holding_app.command("evento")
def event_command(
    codigo: Code,
    radicado: Annotated[str, typer.Argument(help="Radicado de la aceptación")],
    tipo: Annotated[str, typer.Option(help=", ".join(EVENT_KINDS))],
    fecha: Annotated[str, typer.Option(help="Día en que ocurrió o se identificó")],
    acciones: Annotated[int, typer.Option(parser=share_count, help="Acciones afectadas")],
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
            day_option(fecha, "--fecha"),
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


@holding_app.command("ineficaz")
def ineffective_command(
    codigo: Code,
    radicado: Annotated[str, typer.Argument(help="Radicado de la aceptación adjudicada")],
    fecha: Annotated[str, typer.Option(help="Día en que se determinó la contravención")],
    motivo: Annotated[
        str, typer.Option(help="Por qué contraviene las reglas de beneficiario real")
    ],
    quien: Who = "oficina del programa",
    db: Db = None,
) -> None:
    """Declara ineficaz una adquisición contraria a las reglas de beneficiario real (con las
    normas que cita el programa de la oferta)."""
    try:
        done = flag_ineffective(
            engine_for(db), codigo, radicado, day_option(fecha, "--fecha"), motivo, quien
        )
    except OfferError as exc:
        raise refuse(str(exc)) from None
    console.print(done.explain(), highlight=False, markup=False)


@holding_app.command("ver")
def show_command(
    codigo: Code,
    radicado: Annotated[str, typer.Argument(help="Radicado de la aceptación adjudicada")],
    db: Db = None,
) -> None:
    """Muestra la venta de una adjudicación, sus eventos y si su adquisición es ineficaz."""
    try:
        view = holding_view(engine_for(db), codigo, radicado)
    except OfferError as exc:
        raise refuse(str(exc)) from None
    lines = [f"Radicado {view.radicado}: {group(view.awarded)} acciones adjudicadas."]
    if view.sale_date is None:
        lines.append("El periodo de pago no se ha liquidado.")
    else:
        lines.append(
            f"Vendidas (pagadas) el {view.sale_date:%Y-%m-%d}: {group(view.paid)} acciones; "
            f"resueltas por falta de pago: {group(view.resolved)}."
        )
    if not view.events:
        lines.append("Sin eventos registrados.")
    for event in view.events:
        price = (
            ""
            if event.consideration is None
            else f"; contraprestación {pesos(event.consideration)} por acción"
        )
        lines.append(
            f"{event.day:%Y-%m-%d}  {event.label}: {group(event.shares)} acciones{price}; "
            f"{event.detail} (registró: {event.who})"
        )
    flagged = view.ineffective
    if flagged is not None:
        lines.append(
            f"ADQUISICIÓN INEFICAZ desde el {flagged.day:%Y-%m-%d} ({view.citation}): "
            "sus acciones no figuran en el registro para el depósito."
        )
    lines.append(f"Acciones en el registro para el depósito: {group(view.registered)}.")
    console.print("\n".join(lines), highlight=False, markup=False)
