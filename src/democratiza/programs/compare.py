"""What changed between two texts of a program file, value by value, by key path.

An offer keeps the program file it was created with; the program office compares it with
the file as it is now (``democratiza programa comparar``) to see which values an edit
changed. The comparison is of the files' data, so comments and layout do not count; each
change is named by the key path the loader uses (``limites[7].tope_acciones``).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from typing import Any

from democratiza.programs.texts import NormText


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()  # a key or item one side does not have


@dataclass(frozen=True)
class Change:
    path: str
    before: Any  # ABSENT where the earlier text has no such key
    after: Any  # ABSENT where the later text has no such key


def changes(before: Any, after: Any, path: str = "") -> list[Change]:
    """Every value that differs, in the order of the keys (the earlier text's first)."""
    return list(_walk(before, after, path))


def _walk(before: Any, after: Any, path: str) -> Iterator[Change]:
    if isinstance(before, dict) and isinstance(after, dict):
        keys = [*before, *(k for k in after if k not in before)]
        for key in keys:
            inner = f"{path}.{key}" if path else str(key)
            yield from _walk(before.get(key, ABSENT), after.get(key, ABSENT), inner)
    elif isinstance(before, list) and isinstance(after, list):
        for i in range(max(len(before), len(after))):
            left = before[i] if i < len(before) else ABSENT
            right = after[i] if i < len(after) else ABSENT
            yield from _walk(left, right, f"{path}[{i}]")
    elif before != after or type(before) is not type(after):
        yield Change(path or "(raíz)", before, after)


def shown(value: Any) -> str:
    """A value as the file would write it, on one line; an absent one says so."""
    if value is ABSENT:
        return "(no está)"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, date)) or value is None:
        return "(vacío)" if value is None else str(value)
    return json.dumps(value, ensure_ascii=False, default=str, sort_keys=False)


DIFF_LINES = 40  # the lines of a changed text's difference shown; the rest are counted


def text_changes(before: tuple[NormText, ...], after: tuple[NormText, ...]) -> list[str]:
    """What changed in the texts the program cites, each by name with both SHA-256 and the
    lines that differ (a text an offer keeps no copy of, from before they were kept, is not
    compared). Empty when every text is the same."""
    if not before:
        return []
    now = {t.name: t for t in after}
    lines: list[str] = []
    for text in before:
        current = now.pop(text.name, None)
        if current is None:
            lines.append(f"El texto '{text.name}' ya no lo cita el archivo actual.")
        elif current.sha256 != text.sha256:
            lines.append(f"El texto '{text.name}' cambió: huella {text.sha256} → {current.sha256}.")
            diff = list(
                difflib.unified_diff(
                    text.text.splitlines(),
                    current.text.splitlines(),
                    "guardado",
                    "actual",
                    lineterm="",
                    n=0,
                )
            )[2:]
            lines += [f"  {d}" for d in diff[:DIFF_LINES]]
            if len(diff) > DIFF_LINES:
                lines.append(f"  … y {len(diff) - DIFF_LINES} línea(s) más de diferencia.")
    lines += [f"El archivo actual cita un texto nuevo: '{name}'." for name in now]
    return lines
