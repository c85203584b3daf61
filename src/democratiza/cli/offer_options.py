"""The program and offer a command works under: ``--programa``, ``--oferta``, ``--parametro``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from democratiza.cli.common import fail
from democratiza.programs.loader import ProgramFileError, load_program
from democratiza.programs.parameters import Offer, OfferParameterError, make_offer
from democratiza.validation_messages import YamlProblem, load_yaml

ProgramOpt = Annotated[
    str,
    typer.Option("--programa", "-p", help="Id del programa o ruta a un archivo de programa .yaml"),
]
ParamOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--parametro",
        help="Parámetro de la oferta NOMBRE=VALOR (p. ej. precio=2500.00, "
        "trm=2984.00, fecha_aviso=2018-01-02); repetible",
    ),
]


OfferFileOpt = Annotated[
    Path | None,
    typer.Option("--oferta", help="Archivo YAML con los parámetros de la oferta (nombre: valor)"),
]


def offer_file_values(offer_file: Path) -> dict[str, object]:
    """The ``nombre: valor`` of an offer file a person wrote, read strictly (a repeated key
    refused); a file that cannot be read or is not such a mapping ends the command in
    Spanish."""
    try:
        loaded = load_yaml(offer_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise fail([f"{offer_file}: {exc}"], "Archivo de oferta no legible:") from None
    except YamlProblem as exc:
        raise fail([f"{offer_file}: {exc}"], "Archivo de oferta no válido:") from None
    if not isinstance(loaded, dict):
        raise fail([f"{offer_file}: se espera nombre: valor"], "Archivo de oferta no válido:")
    return {str(k): v for k, v in loaded.items()}


def offer_from(program_id: str, params: list[str] | None, offer_file: Path | None = None) -> Offer:
    try:
        program = load_program(program_id)
    except ProgramFileError as exc:
        raise fail([str(e) for e in exc.errors], "Archivo de programa no válido:") from None
    overrides: dict[str, object] = {}
    if offer_file is not None:
        overrides.update(offer_file_values(offer_file))
    overrides.update(parameter_overrides(params))
    try:
        return make_offer(program, overrides)
    except OfferParameterError as exc:
        raise fail(exc.messages, "No se puede evaluar con esta oferta:") from None


def parameter_overrides(params: list[str] | None) -> dict[str, object]:
    """The ``--parametro NOMBRE=VALOR`` options as the offer's values, or a refusal naming
    the one that is not of that form (the one reading of the option, for every command)."""
    overrides: dict[str, object] = {}
    for item in params or []:
        name, sep, value = item.partition("=")
        if not sep:
            raise fail([f"'{item}' debe tener la forma NOMBRE=VALOR"], "Parámetro no válido:")
        overrides[name.strip()] = value.strip()
    return overrides
