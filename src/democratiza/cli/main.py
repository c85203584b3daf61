"""The ``democratiza`` command: programs, batch evaluation and the calculator, in Spanish.

Each command's module is imported when that command runs (``LazyCommands``), not all of
them at start: a person who runs ``democratiza calcular`` or ``democratiza multa calcular``
waits for the import of what that command uses only, not of the web service, the database
layer and the reports of every other command (importing them all took about 1,7 s of the
processor before any command began).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from functools import cache
from importlib import import_module
from typing import Any

import typer
from typer import _click as click  # the click that typer runs on (its own copy)

from democratiza.cli.common import SpanishFaults
from democratiza.cli.spanish import speak_spanish


def _attribute(module: str, name: str) -> Callable[[], Any]:
    return lambda: getattr(import_module(module), name)


def _offer_app() -> typer.Typer:
    """The offer's commands, with its legal steps beyond the plain transitions, which live in
    their own module."""
    from democratiza.cli.offer_steps import interrupt_command, void_command
    from democratiza.cli.offers import offer_app

    offer_app.command("interrumpir")(interrupt_command)
    offer_app.command("desierta")(void_command)
    return offer_app


def _stage_app() -> typer.Typer:
    """The Segunda Etapa's commands, with its payments in their own module."""
    from democratiza.cli.stage_payments import stage_payment_app
    from democratiza.cli.stages import stage_app

    stage_app.add_typer(stage_payment_app, name="pago")
    return stage_app


# Every command (a function) or group of commands (a Typer) by its name, in the order the
# help lists them, with where it is: read only when it runs (or when the help lists it).
COMMANDS: dict[str, Callable[[], Any]] = {
    "programas": _attribute("democratiza.cli.program_view", "programs_command"),
    "formato": _attribute("democratiza.cli.program_view", "format_command"),
    "evaluar": _attribute("democratiza.cli.evaluate", "evaluate_command"),
    "calcular": _attribute("democratiza.cli.calculator", "calculator_command"),
    "simular": _attribute("democratiza.cli.design", "simulate_command"),
    "verificar": _attribute("democratiza.cli.verify", "verify_command"),
    "paquete": _attribute("democratiza.cli.verify", "package_app"),
    "programa": _attribute("democratiza.cli.programs", "program_app"),
    "oferta": _offer_app,
    "lote": _attribute("democratiza.cli.offers", "batch_app"),
    "multa": _attribute("democratiza.cli.fines", "fines_app"),
    "credito": _attribute("democratiza.cli.credit", "credit_app"),
    "pago": _attribute("democratiza.cli.after_sale", "payment_app"),
    "tenencia": _attribute("democratiza.cli.after_sale", "holding_app"),
    "servir": _attribute("democratiza.cli.web", "serve_command"),
    "usuario": _attribute("democratiza.cli.web", "user_app"),
    "token": _attribute("democratiza.cli.web", "token_app"),
    "auditoria": _attribute("democratiza.cli.web", "audit_app"),
    "respaldo": _attribute("democratiza.cli.backup", "backup_app"),
    "etapa": _stage_app,
}


@cache
def loaded(name: str) -> click.Command:
    """The command ``name`` as typer builds it when it is registered on this app (same help
    style, same Spanish faults), built once per process."""
    found = COMMANDS[name]()
    holder = typer.Typer(rich_markup_mode=None, add_completion=False)
    if isinstance(found, typer.Typer):
        holder.add_typer(found, name=name)
    else:
        holder.command(name)(found)
    return typer.main.get_group(holder).commands[name]


class _Commands(MutableMapping[str, click.Command]):
    """``COMMANDS`` as the command table click reads (to run, list, and suggest a name),
    each one built when it is read."""

    def __getitem__(self, name: str) -> click.Command:
        if name not in COMMANDS:
            raise KeyError(name)
        return loaded(name)

    def __iter__(self) -> Iterator[str]:
        return iter(COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS)

    def __setitem__(self, name: str, command: click.Command) -> None:
        raise TypeError("los comandos se declaran en COMMANDS")

    def __delitem__(self, name: str) -> None:
        raise TypeError("los comandos se declaran en COMMANDS")


class LazyCommands(SpanishFaults):
    """The top command: its subcommands listed by name, each imported when asked for."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands = _Commands()


speak_spanish()  # typer's own help frame and usage errors, in Spanish
app = typer.Typer(
    cls=LazyCommands,
    help="Programas de democratización accionaria (Ley 226 de 1995).",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)


app.callback()(lambda: None)  # the commands come from LazyCommands, not from registration


def main() -> None:
    app()
