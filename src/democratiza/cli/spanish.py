"""The command line's own frame in Spanish: help ("Uso", "Opciones", "[obligatorio]") and the
errors of a mistyped command ("Falta el argumento 'codigo'").

Why patch typer: the words of the help and of the usage errors belong to typer and to the
click it carries (``typer._click``), which write them in English, some through gettext (typer's
sections and markers) and most as literal text, and ship no Spanish. Everything else the
command prints is ours and already Spanish. ``speak_spanish`` replaces, once, the few
functions that write those words; a new typer that moves them makes ``tests/test_cli.py``
fail (it reads the help and the errors), never the commands themselves.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import IO, Any

import typer.core
from pydantic import ValidationError
from typer._click import core as click_core
from typer._click import exceptions as click_errors
from typer._click import formatting as click_formatting
from typer._click.utils import echo

from democratiza.validation_messages import validation_message

HELP_OPTION = "Muestra esta ayuda y termina."
# typer's words read through gettext (``typer.core._``).
WORDS = {
    "Arguments": "Argumentos",
    "Options": "Opciones",
    "Commands": "Comandos",
    "required": "obligatorio",
    "default: {default}": "por defecto: {default}",
    "env var: {var}": "variable de entorno: {var}",
    "(dynamic)": "(calculado)",
    "Aborted!": "Interrumpido.",
    "Missing command.": "Falta el comando.",
    "No such command {name!r}.": "No existe el comando {name!r}.",
}
USAGE = {"[OPTIONS]": "[OPCIONES]", "COMMAND [ARGS]...": "COMANDO [ARGUMENTOS]..."}
# The type a value must have, as the help shows it ('<str>').
TYPES = {
    "str": "texto",
    "int": "entero",
    "float": "número",
    "bool": "sí/no",
    "path": "ruta",
    "Path": "ruta",
    "file": "archivo",
    "directory": "carpeta",
    "datetime": "fecha y hora",
    "date": "fecha",
}
# Errors that typer's click writes as literal English: their pattern and their Spanish.
MESSAGES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^Got unexpected extra argument(?:s|\(s\))? \((.*)\)$"), "Sobran argumentos: {0}"),
    (re.compile(r"^Option (.+) requires an argument\.$"), "La opción {0} necesita un valor."),
    (
        re.compile(r"^Option (.+) requires (\d+) arguments\.$"),
        "La opción {0} necesita {1} valores.",
    ),
    (re.compile(r"^Option (.+) does not take a value\.$"), "La opción {0} no lleva valor."),
    (re.compile(r"^No such option: (.+)$"), "No existe la opción {0}."),
    (re.compile(r"^(?:File|Directory|Path) (.+) does not exist\.$"), "No existe {0}."),
    (re.compile(r"^(?:File|Directory|Path) (.+) is a file\.$"), "{0} es un archivo."),
    (re.compile(r"^(?:File|Directory|Path) (.+) is a directory\.$"), "{0} es una carpeta."),
    (re.compile(r"^(?:File|Directory|Path) (.+) is not readable\.$"), "No se puede leer {0}."),
    (re.compile(r"^(?:File|Directory|Path) (.+) is not writable\.$"), "No se puede escribir {0}."),
    (re.compile(r"^(.+) is not one of (.+)\.$"), "{0} no es uno de: {1}."),
    (re.compile(r"^Value (.+) is not a valid (.+)\.$"), "{0} no es un valor válido."),
    (re.compile(r"^Choose from:\n\t(.*)$", re.S), "Elija entre:\n\t{0}"),
    # typer adds the close commands to click's (already Spanish) "No such command".
    (re.compile(r"^(.+)\. Did you mean (.+)\?$", re.S), "{0}. ¿Quiso decir {1}?"),
]


def _word(message: str) -> str:
    return WORDS.get(message, message)


def spanish(message: str) -> str:
    """One of the frame's messages in Spanish; ours (already Spanish) pass unchanged."""
    for pattern, template in MESSAGES:
        found = pattern.match(message)
        if found:
            return template.format(*found.groups())
    return message


def _type_label(label: str) -> str:
    """'<str>' -> '<texto>', '<list[str]>' -> '<texto>...', '<int range>' -> '<entero>'."""
    inner = label.strip("<>")
    many = inner.startswith("list[")
    inner = inner.removeprefix("list[").removesuffix("]").removesuffix(" range")
    shown = "|".join(TYPES.get(part, part) for part in inner.split("|"))
    return f"<{shown}>" + ("..." if many else "")


def _hint(error: click_errors.BadParameter) -> str:
    if error.param_hint is not None:
        hint = error.param_hint
        return hint if isinstance(hint, str) else " / ".join(repr(h) for h in hint)
    return error.param.get_error_hint() if error.param is not None else ""


def _bad_parameter(error: click_errors.BadParameter) -> str:
    cause = error.__cause__
    reason = (
        validation_message(cause.errors()[0])
        if isinstance(cause, ValidationError) and cause.errors()
        else spanish(error.message)
    )
    where = _hint(error)
    return f"Valor no válido para {where}: {reason}" if where else f"Valor no válido: {reason}"


def _missing(error: click_errors.MissingParameter) -> str:
    kind = error.param_type or (error.param.param_type_name if error.param else "parameter")
    noun = {"argument": "el argumento", "option": "la opción"}.get(kind, "el dato")
    where = _hint(error)
    extra = error.param.get_missing_message(ctx=error.ctx) if error.param else ""
    text = f"Falta {noun} {where}".rstrip() + "."
    return f"{text} {spanish(extra)}" if extra else text


def _no_such_option(error: click_errors.NoSuchOption) -> str:
    text = spanish(error.message)
    if error.possibilities:
        text += f" ¿Quiso decir {', '.join(sorted(error.possibilities))}?"
    return text


def _show(error: click_errors.UsageError, file: IO[Any] | None = None) -> None:
    """The usage line, how to get the help, and the error: as click shows them, in Spanish."""
    color = None
    if error.ctx is not None:
        color = error.ctx.color
        hint = ""
        if error.ctx.command.get_help_option(error.ctx) is not None:
            command, option = error.ctx.command_path, error.ctx.help_option_names[0]
            hint = f"Pruebe '{command} {option}' para ver la ayuda.\n"
        echo(f"{error.ctx.get_usage()}\n{hint}", file=file, color=color, err=file is None)
    echo(f"Error: {error.format_message()}", file=file, color=color, err=file is None)


def speak_spanish() -> None:
    """Put the frame's Spanish in place (idempotent)."""
    if getattr(typer.core, "_democratiza_spanish", False):
        return
    typer.core._ = _word  # type: ignore[attr-defined]
    parameter = typer.core._TyperParameter
    shown_type: Callable[..., str] = parameter.display_type
    parameter.display_type = lambda self, ctx: _type_label(shown_type(self, ctx))  # type: ignore[method-assign]
    help_option = click_core.Command.get_help_option

    def spanish_help_option(self: click_core.Command, ctx: click_core.Context) -> Any:
        option = help_option(self, ctx)
        if option is not None:
            option.help = HELP_OPTION
        return option

    click_core.Command.get_help_option = spanish_help_option  # type: ignore[method-assign]
    usage = click_formatting.HelpFormatter.write_usage

    def spanish_usage(
        self: click_formatting.HelpFormatter, prog: str, args: str = "", prefix: str | None = None
    ) -> None:
        for english, word in USAGE.items():
            args = args.replace(english, word)
        usage(self, prog, args, "Uso: " if prefix is None else prefix)

    click_formatting.HelpFormatter.write_usage = spanish_usage  # type: ignore[method-assign]
    click_errors.UsageError.show = _show  # type: ignore[method-assign,assignment]
    click_errors.UsageError.format_message = lambda self: spanish(self.message)  # type: ignore[method-assign]
    click_errors.BadParameter.format_message = _bad_parameter  # type: ignore[method-assign,assignment]
    click_errors.MissingParameter.format_message = _missing  # type: ignore[method-assign,assignment]
    click_errors.NoSuchOption.format_message = _no_such_option  # type: ignore[method-assign,assignment]
    typer.core._democratiza_spanish = True  # type: ignore[attr-defined]
