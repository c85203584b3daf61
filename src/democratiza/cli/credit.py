"""``democratiza credito …``: an offer's credit lines (registered, listed, checked), a proposed
line checked against a program, and a loan's amortisation schedule."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from democratiza.cli.common import (
    IbcFile,
    centavos_option,
    day_option,
    ibc_series,
    percent_option,
    refuse,
    share_count,
    table,
)
from democratiza.cli.offer_options import ParamOpt, parameter_overrides
from democratiza.cli.offers import Code, Db, Who, engine_for
from democratiza.compliance.credit.checks import Finding, check_offer_credit_line
from democratiza.compliance.credit.collateral import collateral_coverage
from democratiza.compliance.credit.gate import (
    credit_verdict,
    offer_lines,
    refusal,
    register_line,
)
from democratiza.compliance.credit.line_changes import correct_line, remove_line
from democratiza.compliance.credit.lines import CreditError, CreditLine, ShareCollateral
from democratiza.compliance.credit.schedule import amortization_schedule
from democratiza.compliance.official_series import IBC, save_official_rates
from democratiza.compliance.series import MissingSeriesValue, SeriesFileError, series_text
from democratiza.money import decimal_percent, pesos
from democratiza.offers.lifecycle import OfferError, load_offer
from democratiza.programs.loader import ProgramFileError, load_program
from democratiza.programs.parameters import OfferParameterError

credit_app = typer.Typer(
    help="Líneas de crédito para los Destinatarios de las Condiciones Especiales.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
console = Console()


Lender = Annotated[str, typer.Option("--entidad", help="Entidad que otorga la línea")]
Available = Annotated[
    str, typer.Option("--monto-disponible", help="Financiación disponible, en pesos")
]
Term = Annotated[int, typer.Option("--plazo-meses", help="Plazo total, incluida la gracia")]
Grace = Annotated[int, typer.Option("--gracia-meses", help="Periodo de gracia a capital")]
Rate = Annotated[str, typer.Option("--tasa-ea", help="Tasa efectiva anual en %, p. ej. 18.5")]
Granted = Annotated[str, typer.Option("--fecha-otorgamiento", help="AAAA-MM-DD")]
Collateral = Annotated[
    str,
    typer.Option(
        "--garantia", help="precio_fijo, otro_valor o no_admitidas (acciones como garantía)"
    ),
]
Capitalise = Annotated[bool, typer.Option(help="Los intereses de la gracia se capitalizan")]


def _line(
    entidad: str,
    monto_disponible: str,
    plazo_meses: int,
    gracia_meses: int,
    tasa_ea: str,
    fecha_otorgamiento: str,
    garantia: str,
    capitalizar_gracia: bool,
) -> CreditLine:
    """The line as typed, or a refusal naming the option."""
    if garantia not in ("precio_fijo", "otro_valor", "no_admitidas"):
        raise refuse("--garantia debe ser precio_fijo, otro_valor o no_admitidas.")
    collateral: ShareCollateral = garantia  # type: ignore[assignment]
    granted = day_option(fecha_otorgamiento, "--fecha-otorgamiento")
    try:
        return CreditLine(
            entidad,
            centavos_option(monto_disponible, "--monto-disponible"),
            plazo_meses,
            gracia_meses,
            percent_option(tasa_ea, "--tasa-ea"),
            granted,
            capitalizar_gracia,
            collateral,
        )
    except CreditError as exc:
        raise refuse(str(exc)) from None


def _print(findings: Sequence[Finding]) -> None:
    for finding in findings:
        mark = "✓" if finding.ok else "✗"
        console.print(f"{mark} {finding}", highlight=False, markup=False)


@credit_app.command("verificar")
def check_command(
    programa: Annotated[str, typer.Option("--programa", "-p", help="Id del programa")],
    entidad: Lender,
    monto_disponible: Available,
    plazo_meses: Term,
    gracia_meses: Grace,
    tasa_ea: Rate,
    fecha_otorgamiento: Granted,
    garantia: Collateral = "precio_fijo",
    capitalizar_gracia: Capitalise = True,
    parametro: ParamOpt = None,
    serie_ibc: IbcFile = None,
) -> None:
    """Verifica una línea de crédito contra la Ley 226 art. 11 y el programa."""
    line = _line(
        entidad,
        monto_disponible,
        plazo_meses,
        gracia_meses,
        tasa_ea,
        fecha_otorgamiento,
        garantia,
        capitalizar_gracia,
    )
    ibc = ibc_series(serie_ibc)
    try:
        program = load_program(programa)
        overrides = parameter_overrides(parametro)
        findings = check_offer_credit_line(program, line, overrides, ibc)
    except (
        ProgramFileError,
        OfferParameterError,
        CreditError,
        MissingSeriesValue,
        ValueError,
    ) as exc:
        raise refuse(str(exc)) from None
    _print(findings)
    if not all(f.ok for f in findings):
        raise typer.Exit(code=1)


@credit_app.command("registrar")
def register_command(
    codigo: Code,
    entidad: Lender,
    monto_disponible: Available,
    plazo_meses: Term,
    gracia_meses: Grace,
    tasa_ea: Rate,
    fecha_otorgamiento: Granted,
    garantia: Collateral = "precio_fijo",
    capitalizar_gracia: Capitalise = True,
    quien: Who = "oficina del programa",
    db: Db = None,
) -> None:
    """Registra una línea de crédito de la oferta; sus condiciones se verifican al abrirla."""
    line = _line(
        entidad,
        monto_disponible,
        plazo_meses,
        gracia_meses,
        tasa_ea,
        fecha_otorgamiento,
        garantia,
        capitalizar_gracia,
    )
    try:
        with engine_for(db).begin() as conn:
            register_line(conn, load_offer(conn, codigo), line, quien)
    except (OfferError, CreditError) as exc:
        raise refuse(str(exc)) from None
    console.print(  # the line by its lender and date: its row number means nothing to a person
        f"Línea de crédito de {line.lender}, otorgada el {line.granted:%Y-%m-%d}, registrada "
        f"en la oferta '{codigo}': {pesos(line.available_centavos)} disponibles.",
        highlight=False,
    )


Number = Annotated[
    int, typer.Argument(help="Número de la línea en la oferta (1, 2, … como las lista 'lineas')")
]


@credit_app.command("corregir")
def correct_command(
    codigo: Code,
    numero: Number,
    entidad: Lender,
    monto_disponible: Available,
    plazo_meses: Term,
    gracia_meses: Grace,
    tasa_ea: Rate,
    fecha_otorgamiento: Granted,
    garantia: Collateral = "precio_fijo",
    capitalizar_gracia: Capitalise = True,
    quien: Who = "oficina del programa",
    db: Db = None,
) -> None:
    """Corrige una línea de crédito de la oferta (en borrador o abierta); la auditoría guarda
    lo que era antes."""
    line = _line(
        entidad,
        monto_disponible,
        plazo_meses,
        gracia_meses,
        tasa_ea,
        fecha_otorgamiento,
        garantia,
        capitalizar_gracia,
    )
    try:
        with engine_for(db).begin() as conn:
            correct_line(conn, load_offer(conn, codigo), numero, line, quien)
    except (OfferError, CreditError) as exc:
        raise refuse(str(exc)) from None
    console.print(
        f"Línea de crédito {numero} de la oferta '{codigo}' corregida: {line.lender}, "
        f"otorgada el {line.granted:%Y-%m-%d}, {pesos(line.available_centavos)} disponibles.",
        highlight=False,
    )


@credit_app.command("retirar")
def remove_command(
    codigo: Code,
    numero: Number,
    motivo: Annotated[str, typer.Option(help="Por qué se retira (queda en la auditoría)")],
    quien: Who = "oficina del programa",
    db: Db = None,
) -> None:
    """Retira una línea de crédito de la oferta (en borrador o abierta), con su motivo."""
    try:
        with engine_for(db).begin() as conn:
            remove_line(conn, load_offer(conn, codigo), numero, quien, motivo)
    except OfferError as exc:
        raise refuse(str(exc)) from None
    console.print(f"Línea de crédito {numero} de la oferta '{codigo}' retirada.", highlight=False)


@credit_app.command("lineas")
def lines_command(codigo: Code, serie_ibc: IbcFile = None, db: Db = None) -> None:
    """Las líneas de crédito de la oferta y si permiten abrirla (Ley 226 art. 11 num. 3)."""
    ibc = ibc_series(serie_ibc)
    problem, verdict = None, None
    try:
        with engine_for(db).connect() as conn:
            stored = load_offer(conn, codigo)
            try:
                verdict = credit_verdict(conn, stored, ibc)
                lines = verdict.lines
            except OfferError as exc:  # listed all the same, to be corrected or removed
                problem, lines = str(exc), offer_lines(conn, stored)
    except OfferError as exc:
        raise refuse(str(exc)) from None
    rows = [
        [
            str(number),  # its place among the offer's lines: what corregir and retirar take
            r.line.lender,
            pesos(r.line.available_centavos),
            f"{r.line.term_months} meses",
            f"{r.line.grace_months} meses",
            f"{decimal_percent(r.line.rate_ea.scaleb(2))} EA",
            f"{r.line.granted:%Y-%m-%d}",
        ]
        for number, r in enumerate(lines, start=1)
    ]
    headers = ("N.º", "Entidad", "Disponible", "Plazo", "Gracia", "Tasa", "Otorgado")
    title = f"Líneas de crédito de la oferta '{codigo}'"
    console.print(table(title, headers, rows, keys=(0, 6), right=(2,)))
    if verdict is None:
        raise refuse(str(problem))
    _print(verdict.findings)
    if verdict.ok:
        console.print("Las líneas de crédito permiten abrir la oferta.", highlight=False)
    else:
        console.print(refusal(stored, verdict), highlight=False, markup=False)
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
    acciones: Annotated[
        int | None, typer.Option(parser=share_count, help="Acciones dadas en garantía")
    ] = None,
    precio: Annotated[str | None, typer.Option(help="Precio fijo por acción (garantía)")] = None,
    salida: Annotated[
        Path, typer.Option("--salida", "-o", help="Carpeta donde escribir el cuadro en CSV y PDF")
    ] = Path("salidas"),
) -> None:
    """Cuadro de amortización (CSV y PDF) y, si se dan acciones y precio, su cobertura."""
    disbursed = day_option(desembolso, "--desembolso")  # its own message, not the parser's
    try:
        schedule = amortization_schedule(
            centavos_option(monto, "--monto"),
            percent_option(tasa_ea, "--tasa-ea"),
            plazo_meses,
            gracia_meses,
            capitalizar_gracia,
            disbursed,
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


@credit_app.command("serie-ibc")
def ibc_command(
    archivo: Annotated[Path, typer.Argument(help="Serie oficial completa, en CSV")],
    quien: Who = "oficina del programa",
    db: Db = None,
) -> None:
    """Carga la serie oficial del interés bancario corriente (desde, hasta, tasa_ea, fuente,
    sin huecos): desde entonces la leen las verificaciones de las líneas de crédito."""
    try:
        with engine_for(db).begin() as conn:
            series = save_official_rates(conn, IBC, series_text(archivo), archivo.name, quien)
    except SeriesFileError as exc:
        raise refuse(str(exc)) from None
    first, last = series.periods[0], series.periods[-1]
    console.print(
        f"Serie oficial del interés bancario corriente cargada: {len(series.periods)} periodos, "
        f"del {first.start:%Y-%m-%d} al {last.end:%Y-%m-%d}.",
        highlight=False,
    )
