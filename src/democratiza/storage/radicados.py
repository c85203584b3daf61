"""Radicados that tell a broker nothing about other brokers, and the order of receipt apart.

A radicado names one filing for everyone who quotes it: the broker who filed it, the
acceptant looking up the result, the office recording a payment. It is
``<tag>-<batch number>-<row>`` (an order's starts with ``O-``), say ``K7QX-000003-0000045``:

- the *tag* is drawn from the broker's name (``broker_tag``), the same in every offer, so
  radicados are unique in an offer without a sequence shared by all brokers;
- the *batch number* counts that broker's own batches in the offer (or stage) only;
- the *row* is the row of the batch.

So a broker counting the radicados it receives learns only how many batches it sent
itself. The legal order of receipt, which decides which filing consumes a person's limit
first and who gets a left-over lot (the system's order, never a broker's clock), is kept in
the column ``recepcion``: the batch id the database drew as the batch was received, times
``ROWS_PER_BATCH``, plus the row. It is never shown to a broker. A correction keeps both
its radicado and its place.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl
from numpy.typing import NDArray
from sqlalchemy import Connection, Table, func, insert, select, text
from sqlalchemy.exc import IntegrityError

from democratiza.storage.schema import broker_counters

ROWS_PER_BATCH = 10**9  # far above any batch's rows: the order never mixes two batches
TAG_LENGTH = 4  # 20 bits: two of 40 brokers share a first choice about once in 1.300 offers
BATCH_DIGITS = 6
ROW_DIGITS = 7  # a batch holds up to 1.000.000 rows
ORDER_PREFIX = "O-"  # what a later stage's order's radicado starts with


def broker_tag(broker: str, taken: Iterable[str] = ()) -> str:
    """The broker's tag: the first four letters of a hash of its name not ``taken`` by
    another broker of the same offer (then the next four, and so on)."""
    digest = hashlib.sha256(("comisionista|" + broker).encode()).digest()
    letters = base64.b32encode(digest).decode().rstrip("=")
    used = set(taken)
    for start in range(len(letters) - TAG_LENGTH + 1):
        tag = letters[start : start + TAG_LENGTH]
        if tag not in used:
            return tag
    raise AssertionError("more brokers in one offer than four-letter tags")


def take_batch_numbers(
    conn: Connection,
    scope: str,
    broker: str,
    count: int,
    stored: Table,
    where: Mapping[str, Any],
) -> tuple[str, int]:
    """The broker's tag and the first of ``count`` consecutive batch numbers, taken in the
    caller's transaction (``take_many_batch_numbers`` for one broker)."""
    return take_many_batch_numbers(conn, scope, {broker: count}, stored, where)[broker]


def take_many_batch_numbers(
    conn: Connection,
    scope: str,
    counts: Mapping[str, int],
    stored: Table,
    where: Mapping[str, Any],
) -> dict[str, tuple[str, int]]:
    """Each broker's tag and the first of its ``counts[broker]`` consecutive batch numbers,
    taken in the caller's transaction.

    ``scope`` names the offer or stage (``oferta:7``, ``etapa:2``). One statement whatever
    the brokers (one per broker cost single acceptances stored together about a tenth of
    their rate): every counter is bumped and read back at once, so two transactions of one
    broker take their turn on its row and never the same number. A broker with no counter
    yet gets one (``_first_counter``).
    """
    brokers = sorted(counts)
    asked = json.dumps([{"comisionista": b, "n": counts[b]} for b in brokers])
    found = conn.execute(
        _BUMP_POSTGRESQL if conn.dialect.name == "postgresql" else _BUMP_SQLITE,
        {"ambito": scope, "pedidos": asked},
    ).all()
    taken = {str(b): (str(tag), int(last) - counts[b] + 1) for b, tag, last in found}
    for broker in brokers:
        if broker not in taken:
            taken[broker] = _first_counter(conn, scope, broker, counts[broker], stored, where)
    return taken


# The brokers and how many numbers each takes come as one JSON parameter, so the statement's
# text is the same whatever the brokers: with a parameter per broker (a text per number of
# brokers) the driver split each new text again, a tenth of storing a group of singles.
_BUMPED = (
    "UPDATE contadores_comisionistas SET ultimo_lote = ultimo_lote + pedidos.n "
    "FROM pedidos WHERE contadores_comisionistas.ambito = :ambito "
    "AND contadores_comisionistas.comisionista = pedidos.comisionista "
    "RETURNING contadores_comisionistas.comisionista, contadores_comisionistas.prefijo, "
    "contadores_comisionistas.ultimo_lote"
)
_BUMP_POSTGRESQL = text(
    "WITH pedidos AS (SELECT comisionista, n FROM json_to_recordset(CAST(:pedidos AS json)) "
    f"AS p(comisionista text, n bigint)) {_BUMPED}"
)
_BUMP_SQLITE = text(
    "WITH pedidos AS (SELECT json_extract(value, '$.comisionista') AS comisionista, "
    f"json_extract(value, '$.n') AS n FROM json_each(:pedidos)) {_BUMPED}"
)


def _first_counter(
    conn: Connection,
    scope: str,
    broker: str,
    count: int,
    stored: Table,
    where: Mapping[str, Any],
) -> tuple[str, int]:
    """A broker's counter, created with its first batches here: a tag no other broker of the
    scope has, and numbers after those of the broker's batches stored before migration 0012
    (``stored`` and ``where``: the scope's batches table and key)."""
    c = broker_counters.c
    taken = conn.execute(select(c.prefijo).where(c.ambito == scope)).scalars()
    earlier = conn.execute(
        select(func.coalesce(func.max(stored.c.numero), 0)).where(
            *(stored.c[name] == value for name, value in where.items()),
            stored.c.comisionista == broker,
        )
    ).scalar_one()
    earlier = int(earlier)
    tag = broker_tag(broker, taken)
    row = {"ambito": scope, "comisionista": broker, "prefijo": tag, "ultimo_lote": earlier + count}
    try:
        with conn.begin_nested():
            conn.execute(insert(broker_counters).values(**row))
    except IntegrityError:  # another process counted this broker (or took the tag) first
        return take_batch_numbers(conn, scope, broker, count, stored, where)
    return tag, earlier + 1


def batch_prefix(tag: str, number: int, order: bool = False) -> str:
    """What every radicado of a batch starts with."""
    return f"{ORDER_PREFIX if order else ''}{tag}-{number:0{BATCH_DIGITS}d}-"


def is_order(radicado: str) -> bool:
    """Whether a radicado names a later stage's order (not a Primera Etapa acceptance)."""
    return radicado.strip().upper().startswith(ORDER_PREFIX)


def _rows(sizes: Sequence[int]) -> NDArray[np.int64]:
    """Each row's number within its batch (1…n), for batches of ``sizes`` stored together."""
    starts = np.repeat(np.cumsum([0, *sizes[:-1]], dtype=np.int64), sizes)
    rows: NDArray[np.int64] = np.arange(sum(sizes), dtype=np.int64) - starts + 1
    return rows


def radicados(prefixes: Sequence[str], sizes: Sequence[int]) -> pl.Series:
    """The radicados of batches stored together: each batch's prefix and its rows 1…n."""
    rows = pl.Series(_rows(sizes), dtype=pl.Int64)
    prefix = pl.Series(np.repeat(np.array(prefixes, dtype=object), sizes), dtype=pl.String)
    return (prefix + rows.cast(pl.String).str.zfill(ROW_DIGITS)).alias("radicado")


def receipts(batch_ids: Sequence[int], sizes: Sequence[int]) -> pl.Series:
    """The order of receipt of batches stored together (``recepcion``), row by row."""
    rows = _rows(sizes)
    batch = np.repeat(np.asarray(batch_ids, dtype=np.int64), sizes)
    return pl.Series("recepcion", batch * ROWS_PER_BATCH + rows, dtype=pl.Int64)
