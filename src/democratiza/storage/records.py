"""Reproducible records: canonical text, its SHA-256, and a stored record read back.

An adjudication (Primera Etapa) and a stage's allocation are each stored as a record whose
header keeps a SHA-256 of the canonical inputs and of the canonical results. Reading one
back recomputes the results from the stored rows; the record is trusted only if the
recomputed results hash to what was stored.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import polars as pl
from sqlalchemy import Connection, Table, select


def canonical_csv(frame: pl.DataFrame, datetime_format: str) -> bytes:
    """The frame as the CSV its hash is taken of (header, then rows, as ordered)."""
    buffer = io.BytesIO()
    frame.write_csv(buffer, datetime_format=datetime_format)
    return buffer.getvalue()


def digest(frame: pl.DataFrame, datetime_format: str) -> str:
    """SHA-256 (hex) of ``canonical_csv``."""
    return hashlib.sha256(canonical_csv(frame, datetime_format)).hexdigest()


def stored_header(
    conn: Connection, table: Table, owner: str, owner_id: int
) -> dict[str, Any] | None:
    """The header of the record of ``owner_id`` (``None`` if none was stored)."""
    text = conn.execute(
        select(table.c.registro).where(table.c[owner] == owner_id)
    ).scalar_one_or_none()
    return None if text is None else dict(json.loads(text))


class Recomputed(Protocol):
    """A record computed again: its header carries the hash of its results."""

    @property
    def header(self) -> dict[str, object]: ...


Record = TypeVar("Record", bound=Recomputed)


def verified(
    conn: Connection,
    table: Table,
    owner: tuple[str, int],
    recompute: Callable[[dict[str, Any]], Record],
    refusals: tuple[Exception, Exception],
) -> tuple[dict[str, Any], Record]:
    """The stored header and the record recomputed from the stored rows, refused unless the
    recomputed results hash to what was stored. ``owner``: the record table's column and id;
    ``refusals``: what is raised when there is no record, and when it does not match."""
    missing, mismatch = refusals
    header = stored_header(conn, table, *owner)
    if header is None:
        raise missing
    again = recompute(header)
    if header["huella_resultado"] != again.header["huella_resultado"]:
        raise mismatch
    return header, again
