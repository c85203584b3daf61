"""``democratiza multa calcular``: a fine for breaching the two-year undertakings, and its account.

Everything the computation needs is given on the command line (the sale, the breach, the
values the base is chosen from, the payments); the program file supplies the bands, the
bases and the adjustment; the reference series ship with the package and the program office
may replace them with the official full series.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from democratiza.cli.common import centavos_option, refuse, share_count
from democratiza.cli.offers import Db, engine_for
from democratiza.compliance.fines.account import Payment
from democratiza.compliance.fines.case import compute_fine
from democratiza.compliance.fines.terms import FineError
from democratiza.compliance.fines.text import statement_text
from democratiza.compliance.official_series import max_rate_in_force
from democratiza.compliance.series import (
    MaxLegalRate,
    MissingSeriesValue,
    SeriesFileError,
    load_official_cpi,
    load_official_rates,
    shipped_max_rate,
)
from democratiza.programs.loader import ProgramFileError, load_program
from democratiza.storage.database import database_url, sqlite_file

fines_app = typer.Typer(
    help="Multas por incumplir los compromisos de dos años.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
console = Console()

Pesos = Annotated[str | None, typer.Option(help="Pesos por acción (p. ej. 2018.00)")]


def _centavos(text: str | None, option: str) -> int | None:
    return None if text is None else centavos_option(text, option)


def _payment(text: str) -> Payment:
    day, sep, amount = text.partition("=")
    try:
        paid = date.fromisoformat(day.strip())
    except ValueError:
        raise refuse(f"--pago '{text}': la fecha debe ser AAAA-MM-DD (AAAA-MM-DD=MONTO).") from None
    cents = _centavos(amount.strip() if sep else None, "--pago")
    if cents is None:
        raise refuse(f"--pago '{text}': falta el monto (AAAA-MM-DD=MONTO).")
    return Payment(paid, cents)


def _office_rates(db: str | None) -> MaxLegalRate:
    """The maximum legal rate of the series the office loaded in its database (``--db``,
    else ``DEMOCRATIZA_DB``, else ``sqlite:///democratiza.db``, as every command finds it);
    where that database is a SQLite file not yet made, the points the package ships, and no
    file is made for a computation."""
    missing = sqlite_file(database_url(db))
    if missing is not None and not missing.exists():
        return shipped_max_rate()
    with engine_for(db, reading=True).connect() as conn:
        return max_rate_in_force(conn)


@fines_app.command("calcular")
def compute_command(
    programa: Annotated[str, typer.Option("--programa", "-p", help="Id del programa")],
    fecha_referencia: Annotated[
        str,
        typer.Option(
            help="Fecha de enajenación (o de adjudicación, según el programa), AAAA-MM-DD"
        ),
    ],
    fecha_incumplimiento: Annotated[
        str, typer.Option(help="Día en que ocurrió o se identificó el incumplimiento, AAAA-MM-DD")
    ],
    acciones: Annotated[
        int, typer.Option(parser=share_count, help="Acciones negociadas, dadas en pago, etc.")
    ],
    hasta: Annotated[str, typer.Option(help="Fecha del estado de cuenta, AAAA-MM-DD")],
    precio_adquisicion: Pesos = None,
    contraprestacion: Pesos = None,
    precio_segunda_etapa: Pesos = None,
    pago: Annotated[
        list[str] | None, typer.Option("--pago", help="Pago AAAA-MM-DD=MONTO en pesos; repetible")
    ] = None,
    serie_usura: Annotated[Path | None, typer.Option(help="Serie oficial de usura (CSV)")] = None,
    serie_ibc: Annotated[
        Path | None, typer.Option(help="Serie oficial del interés bancario corriente (CSV)")
    ] = None,
    serie_ipc: Annotated[Path | None, typer.Option(help="Serie oficial del IPC (CSV)")] = None,
    db: Db = None,
    salida: Annotated[
        Path | None,
        typer.Option(
            "--salida", "-o", help="Carpeta donde escribir el estado de cuenta en CSV y PDF"
        ),
    ] = None,
) -> None:
    """Calcula la multa y su estado de cuenta (ajuste, intereses de mora y pagos)."""
    try:
        program = load_program(programa)
        reference = date.fromisoformat(fecha_referencia)
        breach = date.fromisoformat(fecha_incumplimiento)
        until = date.fromisoformat(hasta)
    except ProgramFileError as exc:
        raise refuse(str(exc)) from None
    except ValueError:
        raise refuse("Las fechas deben ser AAAA-MM-DD.") from None
    try:
        in_force = _office_rates(db)
        rates = MaxLegalRate(
            load_official_rates(serie_usura, "usura") if serie_usura else in_force.usura,
            load_official_rates(serie_ibc, "interes_bancario_corriente")
            if serie_ibc
            else in_force.ibc,
        )
        done = compute_fine(
            program,
            reference,
            breach,
            acciones,
            until,
            {
                "precio_adquisicion": _centavos(precio_adquisicion, "--precio-adquisicion"),
                "contraprestacion": _centavos(contraprestacion, "--contraprestacion"),
                "precio_segunda_etapa": _centavos(precio_segunda_etapa, "--precio-segunda-etapa"),
            },
            [_payment(p) for p in pago or []],
            cpi=load_official_cpi(serie_ipc) if serie_ipc else None,
            rates=rates,
        )
    except (FineError, SeriesFileError, MissingSeriesValue) as exc:
        raise refuse(str(exc)) from None
    statement, terms = done.statement, done.terms
    if statement is None:  # outside every band: no fine, and the reason says why
        console.print(done.band.reason, highlight=False)
        return
    console.print(statement_text(statement), highlight=False, markup=False)
    if salida is not None:
        # Matplotlib is imported only when a PDF is asked for.
        from democratiza.reports.fine_statement import write_fine_statement

        for path in write_fine_statement(statement, terms, salida):
            console.print(f"Escrito: {path}", highlight=False)
