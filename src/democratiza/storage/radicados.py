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
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl
from sqlalchemy import Connection, Table, func, insert, select, text, update
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
    caller's transaction.

    ``scope`` names the offer or stage (``oferta:7``, ``etapa:2``); ``stored`` and ``where``
    its batches table and key, read once, for a broker's first batch after the migration
    that brought these numbers (its earlier batches keep theirs). The counter's row is
    updated first: two transactions of one broker take their turn on it, never the same
    number.
    """
    c = broker_counters.c
    mine = (c.ambito == scope, c.comisionista == broker)
    bumped = conn.execute(
        update(broker_counters).where(*mine).values(ultimo_lote=c.ultimo_lote + count)
    )
    if bumped.rowcount == 0:
        taken = conn.execute(select(c.prefijo).where(c.ambito == scope)).scalars()
        earlier = conn.execute(
            select(func.coalesce(func.max(stored.c.numero), 0)).where(
                *(stored.c[name] == value for name, value in where.items()),
                stored.c.comisionista == broker,
            )
        ).scalar_one()
        row = {
            "ambito": scope,
            "comisionista": broker,
            "prefijo": broker_tag(broker, taken),
            "ultimo_lote": int(earlier) + count,
        }
        try:
            with conn.begin_nested():
                conn.execute(insert(broker_counters).values(**row))
        except IntegrityError:  # another process counted this broker (or took the tag) first
            return take_batch_numbers(conn, scope, broker, count, stored, where)
    tag, last = conn.execute(select(c.prefijo, c.ultimo_lote).where(*mine)).one()
    return str(tag), int(last) - count + 1


def take_many_batch_numbers(
    conn: Connection,
    scope: str,
    counts: Mapping[str, int],
    stored: Table,
    where: Mapping[str, Any],
) -> dict[str, tuple[str, int]]:
    """``take_batch_numbers`` for several brokers at once (single acceptances stored
    together): each broker's tag and the first of its numbers.

    One statement whatever the brokers (one per broker cost single acceptances about a tenth
    of their rate): every counter is bumped and read back at once, the brokers listed in
    their order. A broker with no counter yet (its first batch in the offer) takes the path
    of one.
    """
    brokers = sorted(counts)
    values = ", ".join(f"(:b{i}, :n{i})" for i in range(len(brokers)))
    bump = text(
        f"WITH pedidos(comisionista, n) AS (VALUES {values}) "
        "UPDATE contadores_comisionistas SET ultimo_lote = ultimo_lote + pedidos.n "
        "FROM pedidos WHERE contadores_comisionistas.ambito = :ambito "
        "AND contadores_comisionistas.comisionista = pedidos.comisionista "
        "RETURNING contadores_comisionistas.comisionista, contadores_comisionistas.prefijo, "
        "contadores_comisionistas.ultimo_lote"
    )
    params: dict[str, Any] = {"ambito": scope}
    for i, broker in enumerate(brokers):
        params[f"b{i}"], params[f"n{i}"] = broker, counts[broker]
    found = conn.execute(bump, params).all()
    taken = {str(b): (str(tag), int(last) - counts[b] + 1) for b, tag, last in found}
    for broker in brokers:
        if broker not in taken:
            taken[broker] = take_batch_numbers(conn, scope, broker, counts[broker], stored, where)
    return taken


def batch_prefix(tag: str, number: int, order: bool = False) -> str:
    """What every radicado of a batch starts with."""
    return f"{ORDER_PREFIX if order else ''}{tag}-{number:0{BATCH_DIGITS}d}-"


def is_order(radicado: str) -> bool:
    """Whether a radicado names a later stage's order (not a Primera Etapa acceptance)."""
    return radicado.strip().upper().startswith(ORDER_PREFIX)


def radicados(prefixes: Sequence[str], sizes: Sequence[int]) -> pl.Series:
    """The radicados of batches stored together: each batch's prefix and its rows 1…n."""
    starts = np.repeat(np.cumsum([0, *sizes[:-1]]), sizes)
    rows = pl.Series(np.arange(sum(sizes)) - starts + 1, dtype=pl.Int64)
    prefix = pl.Series(np.repeat(np.array(prefixes, dtype=object), sizes), dtype=pl.String)
    return (prefix + rows.cast(pl.String).str.zfill(ROW_DIGITS)).alias("radicado")


def receipts(batch_ids: Sequence[int], sizes: Sequence[int]) -> pl.Series:
    """The order of receipt of batches stored together (``recepcion``), row by row."""
    starts = np.repeat(np.cumsum([0, *sizes[:-1]]), sizes)
    rows = np.arange(sum(sizes), dtype=np.int64) - starts + 1
    batch = np.repeat(np.asarray(batch_ids, dtype=np.int64), sizes)
    return pl.Series("recepcion", batch * ROWS_PER_BATCH + rows, dtype=pl.Int64)
