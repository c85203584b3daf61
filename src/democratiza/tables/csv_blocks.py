"""A CSV file's bytes in blocks of whole records, read only as they are asked for.

Why our own cut and not Polars' batched reading: Polars reads ahead of whoever takes its
batches and keeps every batch read and not yet taken, so a slow taker (typing, evaluating,
explaining and writing each piece) ends up holding the whole file in memory (9,8 GiB for
ten million acceptances). Here the next block is read from the file only when the last one
has been handed on, so memory holds one block and its piece, whatever the file's size.

Where a block may end: at a newline outside quotes. In CSV a double quote opens or closes a
quoted cell, and a quote inside one is written twice, so a newline ends a record exactly
when the quotes before it are even in number; a cell that holds a newline keeps it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

QUOTE, NEWLINE = b'"', b"\n"


class Readable(Protocol):
    def read(self, size: int, /) -> bytes: ...


def record_blocks(source: Readable, size: int) -> Iterator[bytes]:
    """The rest of ``source`` in blocks of about ``size`` bytes, each of whole records (the
    last one as it ends, with or without its newline)."""
    rest = b""
    while block := source.read(size):
        data = rest + block
        cut = last_record_end(data)
        if cut is None:  # one record longer than a block: read on
            rest = data
            continue
        yield data[:cut]
        rest = data[cut:]
    if rest:
        yield rest


class Seekable(Protocol):
    def read(self, size: int, /) -> bytes: ...
    def seek(self, offset: int, /) -> int: ...


def unquoted_blocks(source: Seekable, size: int) -> Iterator[bytes]:
    """The records of a file with no quote after its first line (the header), in blocks of
    about ``size`` bytes, each of whole records (the last one as it ends).

    With no quote, a newline always ends a record: a block ends at the first one from
    ``size`` bytes on, found in a short read there, and is then read at once, exactly. Why:
    cutting a block read whole (``record_blocks``) copied it twice more (the rest before it
    joined, the records after the cut taken off), holding the interpreter meanwhile.
    """
    start = _next_newline(source, 0)
    while start is not None:
        end = _next_newline(source, start + size)
        source.seek(start)
        block = source.read(-1 if end is None else end - start)  # -1: to the file's end
        if block:
            yield block
        start = end


def _next_newline(source: Seekable, at: int) -> int | None:
    """Just past the first newline at or after byte ``at``, or None if the file ends first."""
    source.seek(at)
    position = at
    while ahead := source.read(LOOK_AHEAD):
        found = ahead.find(NEWLINE)
        if found >= 0:
            return position + found + 1
        position += len(ahead)
    return None


LOOK_AHEAD = 1 << 16  # bytes read at a time to find where a block ends


def last_record_end(data: bytes) -> int | None:
    """Just past the last newline of ``data`` that ends a record, or None if none does."""
    quotes = data.count(QUOTE)
    end = len(data)
    while (newline := data.rfind(NEWLINE, 0, end)) >= 0:
        quotes -= data.count(QUOTE, newline, end)  # now the quotes before this newline
        if quotes % 2 == 0:
            return newline + 1
        end = newline
    return None


def first_record_end(data: bytes) -> int | None:
    """Just past the first newline of ``data`` that ends a record (the header's), or None."""
    quotes, start = 0, 0
    while (newline := data.find(NEWLINE, start)) >= 0:
        quotes += data.count(QUOTE, start, newline)
        if quotes % 2 == 0:
            return newline + 1
        start = newline + 1
    return None
