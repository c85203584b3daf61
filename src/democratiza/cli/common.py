"""What every command shares: refusing with a Spanish message, reading pesos from an option."""

from __future__ import annotations

from decimal import Decimal

import typer
from rich.console import Console

from democratiza.money import MoneyError, parse_percent, parse_pesos
from democratiza.tables.errors import InputRejected
from democratiza.words import count

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
