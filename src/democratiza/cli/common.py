"""What every command shares: refusing with a Spanish message, reading pesos from an option,
tables whose identifiers are never cut, and a failing database told in Spanish."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from typer import _click as click  # the click that typer runs on (its own copy)
from typer.core import TyperGroup

from democratiza.money import MoneyError, parse_percent, parse_pesos, parse_shares
from democratiza.tables.cells import csv_style
from democratiza.tables.errors import InputRejected
from democratiza.words import count

if TYPE_CHECKING:  # imported where they are used: not every command reads a series or a database
    from democratiza.compliance.series import RateSeries

err = Console(stderr=True)


def refuse(message: str) -> typer.Exit:
    """Print the reason in red on stderr; raise the returned exit (code 1)."""
    err.print(f"[bold red]{message}[/]", highlight=False)
    return typer.Exit(code=1)


def fail(lines: list[str], title: str) -> typer.Exit:
    """Print the title in red and each reason as a bullet on stderr; raise the exit."""
    err.print(f"[bold red]{title}[/]")
    for line in lines:
        err.print(f"  • {line}", highlight=False, markup=False)
    return typer.Exit(code=1)


def refuse_file(exc: InputRejected, what: str = "El lote") -> typer.Exit:
    """Print every row error of a refused file (the first 200) on stderr; raise the exit."""
    shown = [str(e) for e in exc.errors[:200]]
    errors = count(len(exc.errors), "error", "errores")
    return fail(shown, f"{what} tiene {errors}; no se guardó nada:")


class SpanishFaults(TyperGroup):
    """Every command: a failure of the database or the disk ends in its Spanish message.

    Why here, around all commands: a damaged, read-only, busy or vanished database fails in
    whichever command touches it first (opening it, checking its schema, writing); each
    would otherwise end in the driver's English traceback.
    """

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, click.ClickException):
            raise  # the command's own ending (its help, a usage error): never the database's
        except Exception as exc:
            from democratiza.storage.faults import database_fault

            message = database_fault(exc)
            if message is None:
                raise
            raise refuse(message) from None


YES = ("s", "si", "sí")
NO = ("n", "no")


def confirm(question: str, default: bool = False) -> bool:
    """A yes/no question answered in Spanish: 's', 'si', 'sí' or 'n', 'no' (Enter takes the
    default). Why not ``typer.confirm``: its click accepts only 'y'/'yes' and asks again in
    English."""
    while True:
        shown = "S/n" if default else "s/N"
        answer: str = typer.prompt(f"{question} [{shown}]", default="", show_default=False)
        word = answer.strip().lower()
        if not word:
            return default
        if word in YES:
            return True
        if word in NO:
            return False
        err.print("Responda s (sí) o n (no).", highlight=False)


def new_password(prompt: str = "Contraseña") -> str:
    """A password typed twice, hidden; asked again, in Spanish, until both agree (click's own
    confirmation speaks English)."""
    while True:
        first: str = typer.prompt(prompt, hide_input=True)
        second: str = typer.prompt("Repita la contraseña", hide_input=True)
        if first == second:
            return first
        err.print("Las dos contraseñas no coinciden; escríbala de nuevo.", highlight=False)


def share_count(text: str) -> int:
    """A number of shares as typed, with or without thousands dots ('40000000',
    '40.000.000'), as pesos already may be (``money.parse_shares``); typer's int would
    refuse the dots."""
    try:
        return parse_shares(text)
    except MoneyError as exc:
        raise typer.BadParameter(str(exc)) from None


def centavos_option(text: str, option: str) -> int:
    """Pesos as typed (``money.parse_pesos``: '2018', '2075.31', '48.000.000,50') to
    centavos, refusing negatives."""
    try:
        value = parse_pesos(text)
    except MoneyError as exc:
        raise refuse(f"{option}: {exc}.") from None
    if value < 0:
        raise refuse(f"{option}: el monto no puede ser negativo.")
    return value


def percent_option(text: str, option: str) -> Decimal:
    """A percentage as typed ('18.5', '18,5') as a fraction (``money.parse_percent``)."""
    try:
        return parse_percent(text)
    except MoneyError as exc:
        raise refuse(f"{option}: {exc}.") from None


def table(
    title: str,
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    keys: Sequence[int] = (0,),
    right: Sequence[int] = (),
) -> Table:
    """A table for people: the columns in ``keys`` hold identifiers a person types (a program's
    id, a category's code) and are never cut or wrapped, however narrow the terminal; those
    in ``right`` hold figures, aligned right and never broken ('1.108.269.271'). The other
    columns wrap, breaking a word too long for them rather than cutting it off with '…'."""
    shown = Table(title=title)
    for i, header in enumerate(headers):
        words = [w for text in (header, *(row[i] for row in rows)) for w in text.split()]
        if i in keys:  # the whole identifier on one line
            widest = max([len(w) for w in header.split()] + [len(row[i]) for row in rows])
            shown.add_column(header, no_wrap=True, min_width=widest)
        elif i in right:  # a figure is one word: never broken
            shown.add_column(header, justify="right", min_width=max(map(len, words), default=1))
        else:
            shown.add_column(header, overflow="fold")
    for row in rows:
        shown.add_row(*row)
    return shown


IbcFile = Annotated[
    Path | None,
    typer.Option("--serie-ibc", help="Serie oficial del interés bancario corriente (CSV)"),
]


def ibc_series(path: Path | None) -> RateSeries | None:
    """The office's official IBC series, if given (otherwise the shipped points apply)."""
    from democratiza.compliance.series import SeriesFileError, load_official_rates

    if path is None:
        return None
    try:
        return load_official_rates(path, "interes_bancario_corriente")
    except SeriesFileError as exc:
        raise refuse(str(exc)) from None


def day_option(text: str, option: str) -> date:
    """A date typed as AAAA-MM-DD, or a refusal naming the option."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise refuse(f"{option}: '{text}' debe ser una fecha AAAA-MM-DD.") from None


def optional_day(text: str | None, option: str) -> date | None:
    """``day_option``, or None when the option was not given (the service takes today)."""
    return None if text is None else day_option(text, option)


Separator = Annotated[
    str,
    typer.Option(
        "--separador",
        help="Separador de los CSV: ',' con punto decimal (por defecto) o ';' con coma "
        "decimal, para abrirlos en Excel en español",
    ),
]


def csv_separator(separator: str) -> dict[str, Any]:
    """The CSV writer's options for ``--separador`` (``tables.cells.csv_style``)."""
    try:
        return csv_style(separator.strip())
    except ValueError as exc:
        raise refuse(f"--separador: {exc}.") from None
