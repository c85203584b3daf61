"""The audit log as a file an auditor keeps: one JSON line per entry, in the chain's order.

Why a file: the head of the chain (number and hash of its last entry) that a public package
carries is only worth something against a chain held outside the database that wrote it.
``democratiza auditoria exportar`` writes every entry with every column, so the file is
verified by the same walk as the stored chain (``audit.verify_entries``), with any tool:
each line is ``{"id", "cuando", "quien", "accion", "entidad", "antes", "despues",
"huella_anterior", "huella", "solicitud"}``, ``cuando`` in ISO 8601 with microseconds, as
hashed. ``solicitud`` (the web request that caused the entry, ``null`` if none) is inside
the hash when it has a value; an export written before it existed has no such key, and
reads as ``null``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sqlalchemy import Connection

from democratiza.storage.audit import VERIFY_CHUNK, stored_chunks

FIELDS = ("id", "cuando", "quien", "accion", "entidad", "antes", "despues")
HASHES = ("huella_anterior", "huella")
REQUEST = "solicitud"  # optional: exports made before the column lack it


class ExportError(ValueError):
    """An export that cannot be read, in Spanish, naming the file and the line."""


@dataclass(frozen=True)
class Entry:
    """One entry of an export, with the audit log's column names."""

    id: int
    cuando: datetime
    quien: str
    accion: str
    entidad: str
    antes: str | None
    despues: str | None
    huella_anterior: str
    huella: str
    solicitud: str | None = None


def export_lines(conn: Connection) -> Iterator[bytes]:
    """Every stored entry as one JSON line, in order (read ``VERIFY_CHUNK`` at a time)."""
    for rows in stored_chunks(conn):
        for row in rows:
            line = {name: getattr(row, name) for name in (*FIELDS, *HASHES, REQUEST)}
            line["cuando"] = row.cuando.isoformat(timespec="microseconds")
            yield (json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n").encode()


def _entry(path: Path, number: int, line: bytes) -> Entry:
    where = f"el archivo {path}, línea {number}"
    try:
        value = json.loads(line)
        if not isinstance(value, dict):
            raise ValueError
        entry = Entry(
            id=value["id"],
            cuando=datetime.fromisoformat(value["cuando"]),
            **{name: value[name] for name in FIELDS[2:] + HASHES},
            solicitud=value.get(REQUEST),
        )
    except (ValueError, KeyError, TypeError):
        raise ExportError(
            f"{where} no es una entrada del registro de auditoría (se espera un JSON con "
            f"{', '.join(FIELDS + HASHES)})"
        ) from None
    texts = (entry.quien, entry.accion, entry.entidad, entry.huella_anterior, entry.huella)
    optional = (entry.antes, entry.despues, entry.solicitud)
    if (
        not isinstance(entry.id, int)
        or isinstance(entry.id, bool)
        or not all(isinstance(t, str) for t in texts)
        or not all(t is None or isinstance(t, str) for t in optional)
    ):
        raise ExportError(f"{where}: un campo no es del tipo que el registro escribe")
    return entry


def export_chunks(path: Path) -> Iterator[Sequence[Entry]]:
    """An export's entries in order, a chunk at a time; ``ExportError`` names a bad line."""
    try:
        handle = path.open("rb")
    except OSError as exc:
        reason = "no existe" if isinstance(exc, FileNotFoundError) else "no se puede leer"
        raise ExportError(f"el archivo {path} {reason}") from None
    with handle:
        chunk: list[Entry] = []
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            chunk.append(_entry(path, number, line))
            if len(chunk) == VERIFY_CHUNK:
                yield chunk
                chunk = []
        if chunk:
            yield chunk
