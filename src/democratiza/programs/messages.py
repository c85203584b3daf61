"""The schema's refusals in Spanish, each with the key path a person finds in the file.

Pydantic reports in English and locates an error by a tuple (``('limites', 2, 'base',
'fuentes', 0)``); a program file is written by lawyers and the program office, so each
error becomes ``limites[2].base.fuentes[0]: valor no admitido (se admite: …)``, in the
words of ``validation_messages``, the project's one table of them.
"""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import ValidationError

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


def schema_errors(exc: ValidationError) -> Iterator[tuple[str, str]]:
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
        if message not in messages:
            messages.append(message)
    for path, messages in by_path.items():
        kinds = [m.removeprefix(EXPECTED) for m in messages]
        if len(messages) > 1 and all(m.startswith(EXPECTED) for m in messages):
            yield path, EXPECTED + ", ".join(kinds[:-1]) + " o " + kinds[-1]
        else:
            yield from ((path, m) for m in messages)
