"""What changed between two texts of a program file, value by value, by key path.

An offer keeps the program file it was created with; the program office compares it with
the file as it is now (``democratiza programa comparar``) to see which values an edit
changed. The comparison is of the files' data, so comments and layout do not count; each
change is named by the key path the loader uses (``limites[7].tope_acciones``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from typing import Any


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
