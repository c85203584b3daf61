"""The schema's refusals in Spanish, each with the key path a person finds in the file.

Pydantic reports in English and locates an error by a tuple (``('limites', 2, 'base',
'fuentes', 0)``); a program file is written by lawyers and the program office, so each
error becomes ``limites[2].base.fuentes[0]: valor no admitido (se admite: …)``, in the
words of ``validation_messages``, the project's one table of them.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ValidationError

from democratiza.validation_messages import spanish

EXPECTED = "se espera "  # how a message of the wrong type of value begins

# Branch names pydantic adds to a location when a field admits several types.
_BRANCHES = frozenset({"int", "Multiple", "date", "decimal", "str", "bool", "none"})


def key_path(loc: tuple[int | str, ...]) -> str:
    """``('limites', 2, 'base')`` → ``limites[2].base``; the file's root is ``(raíz)``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in _BRANCHES or part.startswith("function-"):
            continue
        else:
            out += f".{part}" if out else part
    return out or "(raíz)"


def _models(annotation: Any) -> Iterator[type[BaseModel]]:
    """The models a field's type may hold (inside a tuple, a dict, a union)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        return
    origin = typing.get_origin(annotation)
    if origin is None and not isinstance(annotation, types.UnionType):
        return
    for arg in typing.get_args(annotation):
        yield from _models(arg)


def accepted_keys(root: type[BaseModel], loc: tuple[int | str, ...]) -> list[str]:
    """The keys a file may write at a place (the keys of the model found there), in the
    schema's order; empty when the place is not a model's."""
    model: type[BaseModel] | None = root
    for part in loc:
        if model is None:
            return []
        if isinstance(part, int) or part not in _aliases(model):
            continue  # a list's index, a dict's key or a union branch: the same model
        field = model.model_fields[_aliases(model)[part]]
        model = next(_models(field.annotation), None)
    return list(_aliases(model)) if model is not None else []


def _aliases(model: type[BaseModel]) -> dict[str, str]:
    return {(f.alias or name): name for name, f in model.model_fields.items()}


def schema_errors(
    exc: ValidationError, root: type[BaseModel] | None = None
) -> Iterator[tuple[str, str]]:
    """Every error of a validation, as (key path, Spanish message), in the file's order.

    A value that fits none of a field's types fails once per type: those refusals become
    one (``se espera un número, un número entero o una fecha AAAA-MM-DD``)."""
    errors = exc.errors()
    paths = {key_path(e["loc"]) for e in errors}
    by_path: dict[str, list[str]] = {}
    for e in errors:
        path = key_path(e["loc"])
        if e["type"] == "too_short" and any(p.startswith(f"{path}[") for p in paths):
            continue  # a list whose only item is refused: the item's error says it all
        messages = by_path.setdefault(path, [])
        message = spanish(e["type"], e.get("ctx"))
        if e["type"] == "extra_forbidden" and root is not None:
            keys = accepted_keys(root, e["loc"][:-1])
            if keys:
                message += " (se admite aquí: " + ", ".join(keys) + ")"
        if message not in messages:
            messages.append(message)
    for path, messages in by_path.items():
        kinds = [m.removeprefix(EXPECTED) for m in messages]
        if len(messages) > 1 and all(m.startswith(EXPECTED) for m in messages):
            yield path, EXPECTED + ", ".join(kinds[:-1]) + " o " + kinds[-1]
        else:
            yield from ((path, m) for m in messages)
