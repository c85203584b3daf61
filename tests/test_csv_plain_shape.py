"""A file with no quote and no bare carriage return has its shape counted over its bytes at
once: the same shape, row by row and error by error, as the careful line-by-line pass."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from democratiza.tables.csv_layout import csv_shape, plain_shape

PIECES = ["a", "b", ",", ";", "\n", "\r\n", " ", "é", ",,", "\n\n"]
HEADERS = ["x,y,z\n", "x;y\n", "a\n", "x,y", "\ufeffx,y\r\n"]


@given(st.sampled_from(HEADERS), st.lists(st.sampled_from(PIECES), max_size=40))
def test_the_counted_shape_is_the_careful_passs(header: str, pieces: list[str]) -> None:
    text = header + "".join(pieces)
    counted = plain_shape("f.csv", text.encode())
    assert counted is not None
    assert repr(counted) == repr(csv_shape("f.csv", [text]))


def test_a_row_with_a_missing_field_is_named_by_its_row_and_column() -> None:
    shape = plain_shape("f.csv", b"x,y,z\n1,2,3\n4,5\n")
    assert shape is not None
    assert [(e.row, e.column) for e in shape.errors] == [(3, "z")]


def test_quotes_and_bare_carriage_returns_are_left_to_the_careful_pass() -> None:
    assert plain_shape("f.csv", b'x,y\n"1,5",2\n') is None
    assert plain_shape("f.csv", b"x,y\r1,2\n") is None
    assert plain_shape("f.csv", b"") is None
