"""A CSV file cut into blocks of whole records: never inside a quoted cell, whatever the
block size, and the blocks put together are the file."""

from __future__ import annotations

import io

import pytest

from democratiza.tables import csv_blocks
from democratiza.tables.csv_blocks import (
    first_record_end,
    last_record_end,
    record_blocks,
    unquoted_blocks,
)

FILE = (
    b"referencia,nombre,cantidad\n"
    b'A-1,"Ana, la de ""Caja""",10\n'
    b'A-2,"Luis\ncon salto de l\xc3\xadnea",20\r\n'
    b"A-3,Marta,30"  # the last record has no newline
)


@pytest.mark.parametrize("size", [1, 2, 3, 7, 16, 40, 1000])
def test_blocks_of_any_size_are_whole_records_that_make_up_the_file(size: int) -> None:
    blocks = list(record_blocks(io.BytesIO(FILE), size))
    assert b"".join(blocks) == FILE
    for block in blocks:
        assert block.count(b'"') % 2 == 0  # no block ends inside a quoted cell
    assert all(b.endswith(b"\n") for b in blocks[:-1])


def test_a_newline_inside_quotes_does_not_end_a_record() -> None:
    line = b'A-2,"Luis\ncon salto",20\n'
    assert last_record_end(line) == len(line)
    assert last_record_end(b'A-2,"Luis\ncon salto') is None
    assert first_record_end(b'x,"a\nb"\nsiguiente\n') == len(b'x,"a\nb"\n')


def test_a_record_longer_than_a_block_is_read_on_until_it_ends() -> None:
    long = b"a," + b"x" * 100 + b"\nb,y\n"
    assert list(record_blocks(io.BytesIO(long), 10)) == [b"a," + b"x" * 100 + b"\nb,y\n"]


PLAIN = b"referencia,nombre\nA-1,Ana\r\nA-2,Luis P\xc3\xa9rez\nA-3,Marta"  # no final newline


@pytest.mark.parametrize("size", [1, 2, 3, 7, 16, 40, 1000])
@pytest.mark.parametrize("look", [1, 2, 5, 1 << 16])
def test_a_file_with_no_quote_is_cut_at_newlines_from_the_first_record_on(
    size: int, look: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Read exactly, block by block (each end found by a short read ahead, ``look`` bytes
    # at a time): the blocks put together are the records after the header, each block
    # whole records of at least ``size`` bytes but the last.
    monkeypatch.setattr(csv_blocks, "LOOK_AHEAD", look)
    start = PLAIN.index(b"\n") + 1
    blocks = list(unquoted_blocks(io.BytesIO(PLAIN), size))
    assert b"".join(blocks) == PLAIN[start:]
    assert all(b.endswith(b"\n") and len(b) >= size for b in blocks[:-1])
    assert blocks[-1].endswith(b"A-3,Marta")


def test_a_file_that_ends_with_its_newline_gives_no_empty_last_block() -> None:
    data = b"x\n1\n2\n"
    assert list(unquoted_blocks(io.BytesIO(data), 2)) == [b"1\n2\n"]
    assert list(unquoted_blocks(io.BytesIO(data), 1)) == [b"1\n", b"2\n"]
    assert list(unquoted_blocks(io.BytesIO(b"x\n"), 1)) == []
    assert list(unquoted_blocks(io.BytesIO(b"x"), 1)) == []  # a header and nothing else
