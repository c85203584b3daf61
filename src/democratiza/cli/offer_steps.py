"""``democratiza oferta interrumpir`` and ``oferta desierta``: an interruption with the adjusted
price (Ley 226 art. 11 num. 2) and a Primera Etapa declared void (GEB art. 3.1).

Registered on ``oferta`` by ``cli.main``.
"""

from __future__ import annotations

from typing import Annotated

import typer

from democratiza.cli.common import optional_day, refuse
from democratiza.cli.offers import Code, Db, Who, Why, console, engine_for
from democratiza.filing.reevaluation import interrupt
from democratiza.money import group, pesos
from democratiza.offers.lifecycle import OfferError, declare_void, load_offer
from democratiza.offers.prices import AdjustmentRequest


def interrupt_command(
    codigo: Code,
    motivo: Why,
    quien: Who = "oficina del programa",
    precio_nuevo: Annotated[str | None, typer.Option(help="Precio ajustado, si lo hay")] = None,
    fundamento: Annotated[str | None, typer.Option(help="Fundamento legal del ajuste")] = None,
    vigente_desde: Annotated[
        str | None, typer.Option(help="Desde cuándo rige el precio ajustado, AAAA-MM-DD (hoy)")
    ] = None,
    aceptaciones_anteriores: Annotated[
        str | None,
        typer.Option(help="Las radicadas antes: conservan su precio o son reevaluadas"),
    ] = None,
    fundamento_anteriores: Annotated[
        str | None, typer.Option(help="Fundamento de esa decisión")
    ] = None,
    db: Db = None,
) -> None:
    """Registra una interrupción y el ajuste de precio si lo hubo (Ley 226, artículo 11)."""
    adjustment = None
    if precio_nuevo is not None:
        effective = optional_day(vigente_desde, "--vigente-desde")
        adjustment = AdjustmentRequest(
            precio_nuevo, fundamento, aceptaciones_anteriores, fundamento_anteriores, effective
        )
    try:
        with engine_for(db).begin() as conn:
            stored, again = interrupt(conn, load_offer(conn, codigo), quien, motivo, adjustment)
    except OfferError as exc:
        raise refuse(str(exc)) from None
    console.print(f"Interrupción registrada en la oferta '{codigo}'.")
    if adjustment is not None:
        last = stored.adjustments[-1]
        console.print(
            f"  Precio ajustado: {pesos(last.price)} por acción desde el "
            f"{last.effective:%Y-%m-%d} ({last.basis}); las aceptaciones radicadas antes "
            + (
                f"se evaluaron de nuevo a ese precio: {group(again)}"
                if last.earlier == "reevaluadas"
                else "conservan el precio al que se evaluaron"
            )
            + f" ({last.earlier_basis}).",
            highlight=False,
        )


def void_command(
    codigo: Code,
    motivo: Annotated[str, typer.Option("--motivo", help="La causal (queda en el registro)")],
    quien: Who = "oficina del programa",
    db: Db = None,
) -> None:
    """Declara desierta la Primera Etapa con su causal; sus acciones pasan a la siguiente."""
    try:
        with engine_for(db).begin() as conn:
            declare_void(conn, load_offer(conn, codigo), quien, motivo)
    except OfferError as exc:
        raise refuse(str(exc)) from None
    console.print(
        f"Oferta '{codigo}': declarada desierta; sus acciones pasan a la etapa siguiente."
    )
