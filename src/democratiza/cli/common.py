"""What every command shares: refusing with a Spanish message, reading pesos from an option."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

import typer
from rich.console import Console

from democratiza.money import MoneyError, to_centavos
from democratiza.tables.errors import InputRejected

err = Console(stderr=True)


def refuse(message: str) -> typer.Exit:
    """Print the reason in red on stderr; raise the returned exit (code 1)."""
    err.print(f"[bold red]{message}[/]", highlight=False)
    return typer.Exit(code=1)


def refuse_file(exc: InputRejected, what: str = "El lote") -> typer.Exit:
    """Print every row error of a refused file (the first 200) on stderr; raise the exit."""
    err.print(f"[bold red]{what} tiene {len(exc.errors)} error(es); no se guardó nada:[/]")
    for e in exc.errors[:200]:
        err.print(f"  • {e}", highlight=False, markup=False)
    return typer.Exit(code=1)


def centavos_option(text: str, option: str) -> int:
    """Pesos as typed ('2018' or '2075.31') to centavos, refusing negatives and fractions."""
    try:
        value = to_centavos(Decimal(text))
    except (InvalidOperation, MoneyError):
        raise refuse(f"{option}: '{text}' no es un monto en pesos (use punto decimal).") from None
    if value < 0:
        raise refuse(f"{option}: el monto no puede ser negativo.")
    return value
