"""The stored chain against an export kept outside: the first entry that differs.

Why: an anchor (``N:HASH``) tells that a chain was rewritten somewhere up to entry N, not
where: a chain re-hashed from entry 10 to its end is whole again, and against an anchor at
entry 38 all that shows is that entry 38 has another hash. An export the auditor kept
(``auditoria exportar``) is the anchor's whole chain: walking both side by side names the
first entry whose content or hash is not the kept one, and what it said then and says now.

The stored chain must still verify on its own (``audit.walk``) and begin with every entry
of the export, unchanged; entries appended after the export was written are checked by the
walk only. An entry equal in every field to the export's is as trustworthy as the export.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from democratiza.money import group
from democratiza.storage.audit import ChainReport, walk
from democratiza.storage.audit_export import FIELDS, HASHES, REQUEST

SHOWN = 60  # characters of a value shown when it differs (antes/despues may be long JSON)


def _shown(value: object) -> str:
    text = "(vacío)" if value is None else str(value)
    return f"«{text[:SHOWN]}…»" if len(text) > SHOWN else f"«{text}»"


def _difference(ours: Any, kept: Any, source: str) -> str | None:
    """Why entry ``ours`` is not the kept one (its first differing field), or None."""
    for name in (*FIELDS, REQUEST, *HASHES):
        now, then = getattr(ours, name, None), getattr(kept, name, None)
        if now != then:
            return (
                f"no es la del registro exportado {source}: su campo {name} dice "
                f"{_shown(now)} y el registro {_shown(then)} (la cadena fue cambiada o "
                "reescrita desde esta entrada)"
            )
    return None


@dataclass
class _Side:
    """What the side-by-side walk found, filled in while the walk reads the chain."""

    differs_at: int | None = None
    reason: str | None = None


def _alongside(
    chain: Iterable[Sequence[Any]], kept: Iterator[Any], side: _Side, source: str
) -> Iterator[Sequence[Any]]:
    """The chain's chunks, cut just before its first entry that differs from ``kept``."""
    for rows in chain:
        for index, row in enumerate(rows):
            theirs = next(kept, None)
            if theirs is None:
                yield rows  # past the export: the walk alone checks the rest
                yield from chain
                return
            why = _difference(row, theirs, source)
            if why is not None:
                side.differs_at, side.reason = int(row.id), why
                yield rows[:index]
                return
        yield rows


def _rows(chunks: Iterable[Sequence[Any]]) -> Iterator[Any]:
    for rows in chunks:
        yield from rows


def compare(
    chain: Iterable[Sequence[Any]], kept: Iterable[Sequence[Any]], source: str
) -> ChainReport:
    """Whether ``chain`` verifies and begins with every entry of ``kept`` (an export named
    ``source`` for a person), or the first entry that does not."""
    side, theirs = _Side(), _rows(kept)
    report, _ = walk(_alongside(iter(chain), theirs, side, source))
    if not report.ok or side.differs_at is not None:
        broken = report.broken_at if not report.ok else side.differs_at
        return ChainReport(report.entries, broken, report.reason if not report.ok else side.reason)
    last = None
    for row in theirs:  # what the export holds past the chain's end, if anything
        last = int(row.id)
    if last is not None:
        return ChainReport(
            report.entries,
            report.entries + 1,
            f"la cadena termina en la entrada {group(report.entries)} y el registro exportado "
            f"{source} llega a la {group(last)}: faltan las entradas "
            f"{group(report.entries + 1)} a {group(last)} (la cadena fue recortada)",
        )
    return report
