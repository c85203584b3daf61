"""Load program files, refusing any that is malformed, with the path of the bad key."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from democratiza.programs.parameters import PARAMETERS, REQUIRED_PARAMETERS
from democratiza.programs.schema import Citation, Program
from democratiza.validation_messages import validation_message
from democratiza.vocabulary import DOCUMENT_DATE

DATA_PACKAGE = "democratiza.programs.data"


@dataclass(frozen=True)
class ProgramError:
    """One problem in a program file, located by the path of the offending key."""

    source: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.source}: {self.path}: {self.message}"


class ProgramFileError(Exception):
    def __init__(self, errors: list[ProgramError]) -> None:
        self.errors = errors
        super().__init__("\n".join(str(e) for e in errors))


def _path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in ("int", "Multiple", "date", "decimal"):
            continue  # union branch names that pydantic adds to the location
        else:
            out += f".{part}" if out else str(part)
    return out or "(raíz)"


def _walk(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    yield path, value
    if isinstance(value, BaseModel):
        for name, field in type(value).model_fields.items():
            key = field.alias or name
            yield from _walk(getattr(value, name), f"{path}.{key}" if path else key)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(item, f"{path}.{key}")
    elif isinstance(value, tuple):
        for i, item in enumerate(value):
            yield from _walk(item, f"{path}[{i}]")


def _cross_checks(program: Program, source: str) -> list[ProgramError]:
    """What the schema alone cannot see: references between parts of the file."""
    errors: list[ProgramError] = []

    def err(path: str, message: str) -> None:
        errors.append(ProgramError(source, path, message))

    for path, value in _walk(program, ""):
        if isinstance(value, Citation) and value.norm not in program.norms:
            err(f"{path}.norma", f"la norma '{value.norm}' no está declarada en 'normas'")
    for name, param in program.parameters.items():
        if name not in PARAMETERS:
            err(f"parametros.{name}", "parámetro desconocido")
            continue
        kind = PARAMETERS[name].kind
        if param.value is not None and not PARAMETERS[name].accepts(param.value):
            err(f"parametros.{name}.valor", f"debe ser {kind}")
    for name in REQUIRED_PARAMETERS:
        if name not in program.parameters:
            err(f"parametros.{name}", "falta este parámetro (puede quedar sin valor)")
    ids = [r.id for r in program.limits]
    for i, rule in enumerate(program.limits):
        if ids.count(rule.id) > 1:
            err(f"limites[{i}].id", f"id repetido '{rule.id}'")
        sources = rule.base.sources if rule.base else ()
        if "salario_mensual_anualizado" in sources and program.remuneration is None:
            err(f"limites[{i}].base.fuentes", "usa el salario mensual sin 'remuneracion_anual'")
        if "ingresos_usd" in sources and "trm" not in program.parameters:
            err(f"limites[{i}].base.fuentes", "usa ingresos en dólares sin el parámetro 'trm'")
        if rule.applies_when.new_manager and "fecha_corte_directivos" not in program.parameters:
            err(f"limites[{i}].aplica_si", "directivo_nuevo exige 'fecha_corte_directivos'")
    if any(r.applies_when.new_manager for r in program.limits) and not (
        program.validity.new_managers
    ):
        err("validez.directivos_nuevos", "falta la cita de la regla de directivos nuevos")
    listed = {c.id for c in program.categories}
    for i, doc in enumerate(program.documents):
        if doc.max_age_months is not None and doc.id not in DOCUMENT_DATE:
            # Otherwise the validity rule would silently never be checked.
            err(f"documentos[{i}].vigencia_meses", f"el documento '{doc.id}' no lleva fecha")
        for cat in doc.required_when.categories or ():
            if cat not in listed:
                err(f"documentos[{i}].exigible_si", f"la categoría '{cat}' no está en el programa")
    return errors


def parse_program(data: Any, source: str) -> Program:
    try:
        program = Program.model_validate(data)
    except ValidationError as exc:
        raise ProgramFileError(
            [ProgramError(source, _path(e["loc"]), validation_message(e)) for e in exc.errors()]
        ) from None
    errors = _cross_checks(program, source)
    if errors:
        raise ProgramFileError(errors)
    return program


def load_program_file(path: Path) -> Program:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ProgramFileError([ProgramError(str(path), "(archivo)", str(exc))]) from None
    return parse_program(data, str(path))


def bundled_program_ids() -> list[str]:
    files = resources.files(DATA_PACKAGE).iterdir()
    return sorted(f.name.removesuffix(".yaml") for f in files if f.name.endswith(".yaml"))


@lru_cache(maxsize=32)
def load_program(program_id: str) -> Program:
    """A bundled program by id, or a program file by path (programs are immutable: cached)."""
    candidate = Path(program_id)
    if candidate.suffix in (".yaml", ".yml") and candidate.exists():
        return load_program_file(candidate)
    if program_id not in bundled_program_ids():
        known = ", ".join(bundled_program_ids())
        raise ProgramFileError(
            [ProgramError(program_id, "(programa)", f"programa desconocido; disponibles: {known}")]
        )
    ref = resources.files(DATA_PACKAGE).joinpath(f"{program_id}.yaml")
    with resources.as_file(ref) as path:
        return load_program_file(path)
