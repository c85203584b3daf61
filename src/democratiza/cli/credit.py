"""``democratiza credito …``: check a proposed credit line, and a loan's amortisation schedule."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from democratiza.cli.common import centavos_option, percent_option, refuse
from democratiza.compliance.credit.checks import check_offer_credit_line
from democratiza.compliance.credit.collateral import collateral_coverage
from democratiza.compliance.credit.lines import CreditError, CreditLine, ShareCollateral
from democratiza.compliance.credit.schedule import amortization_schedule
from democratiza.compliance.series import (
    MissingSeriesValue,
    SeriesFileError,
    load_official_rates,
)
from democratiza.programs.loader import ProgramFileError, load_program
from democratiza.programs.parameters import OfferParameterError

credit_app = typer.Typer(
    help="Líneas de crédito para los Destinatarios de las Condiciones Especiales.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
console = Console()


@credit_app.command("verificar")
def check_command(
    programa: Annotated[str, typer.Option("--programa", "-p", help="Id del programa")],
    entidad: Annotated[str, typer.Option(help="Entidad que otorga la línea")],
    monto_disponible: Annotated[str, typer.Option(help="Financiación disponible, en pesos")],
    plazo_meses: Annotated[int, typer.Option(help="Plazo total, incluida la gracia")],
    gracia_meses: Annotated[int, typer.Option(help="Periodo de gracia a capital")],
    tasa_ea: Annotated[str, typer.Option(help="Tasa efectiva anual en %, p. ej. 18.5")],
    fecha_otorgamiento: Annotated[str, typer.Option(help="AAAA-MM-DD")],
    garantia: Annotated[
        str, typer.Option(help="precio_fijo, otro_valor o no_admitidas (acciones como garantía)")
    ] = "precio_fijo",
    capitalizar_gracia: Annotated[
        bool, typer.Option(help="Los intereses de la gracia se capitalizan")
    ] = True,
    parametro: Annotated[
        list[str] | None,
        typer.Option("--parametro", help="Parámetro de la oferta NOMBRE=VALOR; repetible"),
    ] = None,
    serie_ibc: Annotated[
        Path | None, typer.Option(help="Serie oficial del interés bancario corriente (CSV)")
    ] = None,
) -> None:
    """Verifica una línea de crédito contra la Ley 226 art. 11 y el programa."""
    if garantia not in ("precio_fijo", "otro_valor", "no_admitidas"):
        raise refuse("--garantia debe ser precio_fijo, otro_valor o no_admitidas.")
    collateral: ShareCollateral = garantia  # type: ignore[assignment]
    try:
        program = load_program(programa)
        overrides = {k: v for k, v in (p.split("=", 1) for p in parametro or [])}
        line = CreditLine(
            entidad,
            centavos_option(monto_disponible, "--monto-disponible"),
            plazo_meses,
            gracia_meses,
            percent_option(tasa_ea, "--tasa-ea"),
            date.fromisoformat(fecha_otorgamiento),
            capitalizar_gracia,
            collateral,
        )
        ibc = load_official_rates(serie_ibc, "interes_bancario_corriente") if serie_ibc else None
        findings = check_offer_credit_line(program, line, overrides, ibc)
    except (
        ProgramFileError,
        OfferParameterError,
        CreditError,
        SeriesFileError,
        MissingSeriesValue,
        ValueError,
    ) as exc:
        raise refuse(str(exc)) from None
    for finding in findings:
        mark = "✓" if finding.ok else "✗"
        console.print(f"{mark} {finding}", highlight=False, markup=False)
    if not all(f.ok for f in findings):
        raise typer.Exit(code=1)


@credit_app.command("cuadro")
def schedule_command(
    monto: Annotated[str, typer.Option(help="Monto del crédito, en pesos")],
    tasa_ea: Annotated[str, typer.Option(help="Tasa efectiva anual en %, p. ej. 18.5")],
    plazo_meses: Annotated[int, typer.Option(help="Plazo total, incluida la gracia")],
    gracia_meses: Annotated[int, typer.Option(help="Periodo de gracia a capital")],
    desembolso: Annotated[str, typer.Option(help="Fecha de desembolso, AAAA-MM-DD")],
    capitalizar_gracia: Annotated[
        bool, typer.Option(help="Los intereses de la gracia se capitalizan")
    ] = True,
    acciones: Annotated[int | None, typer.Option(help="Acciones dadas en garantía")] = None,
    precio: Annotated[str | None, typer.Option(help="Precio fijo por acción (garantía)")] = None,
    salida: Annotated[
        Path, typer.Option("--salida", "-o", help="Carpeta donde escribir el cuadro en CSV y PDF")
    ] = Path("salidas"),
) -> None:
    """Cuadro de amortización (CSV y PDF) y, si se dan acciones y precio, su cobertura."""
    try:
        schedule = amortization_schedule(
            centavos_option(monto, "--monto"),
            percent_option(tasa_ea, "--tasa-ea"),
            plazo_meses,
            gracia_meses,
            capitalizar_gracia,
            date.fromisoformat(desembolso),
        )
    except (CreditError, ValueError) as exc:
        raise refuse(str(exc)) from None
    from democratiza.reports.loan_schedule import write_schedule  # draws: imported when used

    paths = write_schedule(schedule, salida)
    for note in schedule.notes():
        console.print(note, highlight=False)
    if acciones is not None and precio is not None:
        coverage = collateral_coverage(
            acciones, centavos_option(precio, "--precio"), centavos_option(monto, "--monto")
        )
        console.print(coverage.text, highlight=False)
    for path in paths:
        console.print(f"Escrito: {path}", highlight=False)
