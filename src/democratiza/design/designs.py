"""Designs of a program: the base program file and named variants, each a set of changes.

A designs file (``docs/simulacion.md``) names a base program (bundled id or path), the offer's
parameters, and designs; a design changes values of the program file by their key path, the
way the program office would edit the file:

    disenos:
      - nombre: Decreto                               # the base, unchanged
      - nombre: Dos veces el patrimonio
        cambios:
          limites.geb-8.2.1.multiplo: 2               # a list item by its id
      - nombre: Proporcional, lotes de 100
        cambios:
          adjudicacion.metodo: proporcional
          adjudicacion.lote_acciones: 100
      - nombre: Precio de 2.500
        cambios:
          oferta.precio: "2500.00"                    # an offer parameter

A changed program is validated exactly as a program file is (``programs.loader``), so a
change the schema refuses is refused with its key path; every value keeps its citation.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from democratiza.programs.loader import (
    DATA_PACKAGE,
    ProgramError,
    ProgramFileError,
    bundled_program_ids,
    parse_program,
    program_data,
)
from democratiza.programs.parameters import Offer, OfferParameterError, make_offer
from democratiza.validation_messages import validated_yaml

OFFER = "oferta"  # the first key of a change to an offer parameter


class DesignError(ValueError):
    """A designs file or a change that cannot be applied; the message names it."""


class _DesignEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    nombre: str = Field(min_length=1)
    cambios: dict[str, Any] = Field(default_factory=dict)


class DesignsFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    programa: str = Field(min_length=1)
    oferta: dict[str, Any] = Field(default_factory=dict)
    disenos: list[_DesignEntry] = Field(min_length=1)


@dataclass(frozen=True)
class Design:
    """One design: its name, the changes it makes and the offer they give."""

    name: str
    changes: dict[str, Any]
    offer: Offer


def _program_text(program: str, base: Path | None) -> tuple[str, str]:
    """(YAML text, source name) of a bundled program id or of a program file's path, read
    from ``base``; without a ``base`` (a file uploaded to a page) only a bundled program."""
    if program.endswith((".yaml", ".yml")):
        if base is None:
            raise DesignError(
                f"programa: '{program}' es la ruta de un archivo; aquí el programa es uno de "
                f"los incluidos ({', '.join(bundled_program_ids())})"
            )
        path = (base / program) if not Path(program).is_absolute() else Path(program)
        try:
            return path.read_text(encoding="utf-8"), str(path)
        except (OSError, UnicodeDecodeError) as exc:
            raise DesignError(f"programa: no se pudo leer {path} ({exc})") from None
    file = resources.files(DATA_PACKAGE) / f"{program}.yaml"
    if not file.is_file():
        raise DesignError(f"programa: no existe el programa '{program}'")
    return file.read_text(encoding="utf-8"), program


def changed(data: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    """A copy of a program file's data with the value at ``key`` (a dotted path) replaced.

    A segment names a mapping's key, a list item by its ``id``, or a list item by its index.
    """
    out = copy.deepcopy(data)
    node: Any = out
    segments = key.split(".")
    # A list item's id may itself hold dots (``geb-8.2.1``): take the longest id that fits.
    i = 0
    while i < len(segments):
        last = i == len(segments) - 1
        if isinstance(node, list):
            for j in range(len(segments), i, -1):
                wanted = ".".join(segments[i:j])
                found = [
                    k
                    for k, item in enumerate(node)
                    if isinstance(item, dict) and item.get("id") == wanted
                ]
                if found:
                    index, i = found[0], j
                    break
            else:
                if not segments[i].isdigit() or int(segments[i]) >= len(node):
                    raise DesignError(f"{key}: no hay un elemento '{segments[i]}'")
                index, i = int(segments[i]), i + 1
            if i == len(segments):
                node[index] = value
                return out
            node = node[index]
            continue
        if not isinstance(node, dict) or (not last and segments[i] not in node):
            raise DesignError(f"{key}: no existe la clave '{segments[i]}'")
        if last:
            node[segments[i]] = value
            return out
        node = node[segments[i]]
        i += 1
    return out


def load_designs(path: Path) -> list[Design]:
    """Every design of a designs file, its program validated and its offer resolved."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DesignError(f"{path}: no se pudo leer ({exc})") from None
    return parse_designs(text, str(path), path.parent)


def _spec(text: str, name: str) -> DesignsFile:
    return validated_yaml(DesignsFile, text, name, DesignError)


def parse_designs(text: str, name: str, base: Path | None, most: int | None = None) -> list[Design]:
    """The designs of a designs file's text; a program given by path is read from ``base``
    (``None``: only a bundled program, for a file uploaded to a page); more than ``most``
    designs are refused before any is built."""
    spec = _spec(text, name)
    if most is not None and len(spec.disenos) > most:
        raise DesignError(
            f"{name}: tiene {len(spec.disenos)} diseños; aquí se comparan a lo sumo {most}"
        )
    program_text, source = _program_text(spec.programa, base)
    try:
        original = program_data(program_text, source)
    except ProgramFileError as exc:
        raise DesignError(f"{source}: " + "; ".join(e.message for e in exc.errors)) from None
    designs = []
    for entry in spec.disenos:
        data, params = original, dict(spec.oferta)
        for key, value in entry.cambios.items():
            param = key.removeprefix(f"{OFFER}.")
            fixed = original.get("parametros", {}).get(param, {})
            if key.startswith(f"{OFFER}.") and isinstance(fixed, dict) and "valor" in fixed:
                # A value the decree fixes (GEB's price): the design changes the decree's.
                data = changed(data, f"parametros.{param}.valor", value)
            elif key.startswith(f"{OFFER}."):
                params[param] = value
            else:
                data = changed(data, key, value)
        try:
            program = parse_program(data, f"{source} ({entry.nombre})")
            offer = make_offer(program, params)
        except ProgramFileError as exc:
            raise DesignError(_problems(entry.nombre, exc.errors)) from None
        except OfferParameterError as exc:
            raise DesignError(f"diseño «{entry.nombre}»: " + "; ".join(exc.messages)) from None
        designs.append(Design(entry.nombre, dict(entry.cambios), offer))
    return designs


def _problems(name: str, errors: list[ProgramError]) -> str:
    return f"diseño «{name}»: " + "; ".join(f"{e.path}: {e.message}" for e in errors)
