"""A YAML file a person wrote (a designs file, a population's parameters), read into its model.

Why one place: the office writes these files by hand and reads the refusal in the console
or on the designer's page; both files are refused the same way, in Spanish, each problem
under its key path ('aceptantes.pensionado: se espera un número entero'), never pydantic's
English.
"""

from __future__ import annotations

from typing import TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from democratiza.validation_messages import validation_message

Model = TypeVar("Model", bound=BaseModel)


def validated(model: type[Model], text: str, name: str, error: type[ValueError]) -> Model:
    """The file's text as ``model``; ``error`` with every problem, named by ``name``."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (línea {mark.line + 1})" if mark is not None else ""
        raise error(f"{name}: no es un archivo YAML válido{where}") from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(part) for part in e['loc']) or 'el archivo'}: {validation_message(e)}"
            for e in exc.errors()
        ]
        raise error(f"{name}: " + "; ".join(problems)) from None
