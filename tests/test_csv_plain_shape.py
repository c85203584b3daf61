"""A file with no quote and no bare carriage return has its shape counted over its bytes at
once: the same shape, row by row and error by error, as the careful line-by-line pass."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from democratiza.tables import cell_checks, csv_layout
from democratiza.tables.csv_layout import counted_shape, csv_shape, plain_shape
from democratiza.tables.errors import InputRejected
from democratiza.tables.readers import read_csv, read_csv_chunks

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


@given(st.sampled_from(HEADERS), st.lists(st.sampled_from(PIECES), max_size=40))
def test_counts_that_add_up_mean_no_row_differs(header: str, pieces: list[str]) -> None:
    """``counted_shape`` says a file is exact only when the careful pass finds no row whose
    fields differ, provided no row has more fields than the header (the CSV reader refuses
    those, and ``read_csv`` then asks the careful pass which row it is)."""
    text = header + "".join(pieces)
    counted = counted_shape(text.encode())
    careful = csv_shape("f.csv", [text])
    assert counted is not None
    assert (counted.shape.separator, counted.shape.header) == (careful.separator, careful.header)
    longer = any("sobran campos" in e.message for e in careful.errors)
    if counted.exact and not longer:
        assert careful.errors == []


def test_a_long_row_and_a_short_one_are_both_named(tmp_path: Path) -> None:
    """Their separators add up to the header's, but the reader refuses the long one and the
    careful pass names both, as it always did."""
    path = tmp_path / "f.csv"
    path.write_bytes(b"x,y,z\n1,2,3,4\n5,6\n")
    with pytest.raises(InputRejected) as refused:
        read_csv(path)
    assert [(e.row, e.column, e.message.split(":")[0]) for e in refused.value.errors] == [
        (2, None, "sobran campos"),
        (3, "z", "faltan campos"),
    ]


def test_a_short_row_in_a_file_the_counts_check_is_named(tmp_path: Path) -> None:
    path = tmp_path / "f.csv"
    path.write_bytes(b"x,y,z\n1,2,3\n4,5\n")
    assert counted_shape(path.read_bytes()) is not None
    with pytest.raises(InputRejected) as refused:
        read_csv(path)
    assert [(e.row, e.column) for e in refused.value.errors] == [(3, "z")]


def test_a_byte_not_utf8_is_named_by_its_line_before_any_other_error(tmp_path: Path) -> None:
    """Polars reads a plain file first; it refuses a byte that is not UTF-8, and the careful
    path then names its line, before the header's duplicate column (as it always did)."""
    path = tmp_path / "f.csv"
    path.write_bytes("x,x\n1,2\n3,Pe\xf1a\n".encode("latin-1"))
    with pytest.raises(InputRejected) as refused:
        read_csv(path)
    assert [(e.row, e.message[:24]) for e in refused.value.errors] == [
        (3, "codificación no válida: ")
    ]


def test_the_bytes_say_whether_any_cell_may_hold_a_control_character() -> None:
    """What the reader asks before it looks cell by cell (``byte_facts``): a tab, a line
    feed or a carriage return is text; a vertical tab or a NUL byte is a control."""
    assert not cell_checks.byte_facts("x,y\r\n1,\tPeña\n".encode(), None).controls
    assert cell_checks.byte_facts(b"x,y\n1,a\x0bb\n", None).controls
    assert cell_checks.byte_facts(b"x,y\n1,\x00\n", None).controls


def test_a_control_character_is_still_named_by_its_row_and_column(tmp_path: Path) -> None:
    path = tmp_path / "f.csv"
    path.write_bytes(b"x,y\n1,2\n3,a\x07b\n")
    with pytest.raises(InputRejected) as refused:
        read_csv(path)
    assert [(e.row, e.column) for e in refused.value.errors] == [(3, "y")]
    assert "código 0x07" in refused.value.errors[0].message


def refused_in_pieces(path: Path) -> list[tuple[int | None, str | None, str]]:
    with pytest.raises(InputRejected) as refused:
        for _ in read_csv_chunks(path, 1).pieces:
            pass
    return [(e.row, e.column, e.message.split(":")[0]) for e in refused.value.errors]


def test_in_pieces_a_long_row_the_reader_refuses_is_named_by_the_careful_pass(
    tmp_path: Path,
) -> None:
    path = tmp_path / "f.csv"
    path.write_bytes(b"x,y,z\n1,2,3,4\n5,6\n")  # the separators add up to the header's
    assert refused_in_pieces(path) == [(2, None, "sobran campos"), (3, "z", "faltan campos")]


def test_in_pieces_a_byte_not_utf8_comes_before_the_headers_errors(tmp_path: Path) -> None:
    path = tmp_path / "f.csv"
    path.write_bytes("x,x\n1,2\n3,Pe\xf1a\n".encode("latin-1"))
    assert refused_in_pieces(path) == [(3, None, "codificación no válida")]


def test_in_pieces_a_plain_file_reads_as_the_whole(tmp_path: Path) -> None:
    path = tmp_path / "f.csv"
    path.write_bytes(b"\xef\xbb\xbfx;y\r\n1;2\r\n3;4")
    counted = counted_shape(path.read_bytes())
    assert counted is not None and counted.exact and counted.shape.lines == 3
    pieces = [p.frame for p in read_csv_chunks(path, 1).pieces]
    assert [f.rows() for f in pieces] == [[(2, "1", "2")], [(3, "3", "4")]]


CELL_PIECES = ["a", "é", "José", "1", " ", "\t", "\u00a0", "\u3000", "\u2009", "°"]


@given(
    st.lists(
        st.tuples(*[st.lists(st.sampled_from(CELL_PIECES), max_size=4).map("".join)] * 2),
        min_size=1,
        max_size=12,
    ),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
    st.sampled_from([1, 2, 3, 7, 1 << 20]),
)
def test_cells_with_no_white_space_at_their_edges_are_not_stripped_others_are(
    rows: list[tuple[str, str]], end: str, last_end: bool, scan: int
) -> None:
    # Whatever white space a cell has (space, tab, no-break, ideographic, thin) at its start
    # or its end, and wherever the bytes are cut into blocks (``scan``), the cells read are
    # those of stripping every cell: the bytes only spare the stripping of a clean file.
    text = "x,y" + end + end.join(f"{a},{b}" for a, b in rows) + (end if last_end else "")
    data = text.encode()
    saved, cell_checks.SCAN = cell_checks.SCAN, scan
    try:
        facts = cell_checks.byte_facts(data, ",")
    finally:
        cell_checks.SCAN = saved
    stripped = [(a.strip() or None, b.strip() or None) for a, b in rows]
    unchanged = [(a or None, b or None) for a, b in rows]
    # Python's strip and Polars's agree on these characters.
    if not facts.padded:
        assert stripped == unchanged
    path = Path(tempfile.mkdtemp()) / "f.csv"
    path.write_bytes(data)
    frame = read_csv(path).frame
    assert list(frame.select("x", "y").iter_rows()) == stripped


def test_the_bytes_say_whether_a_cell_may_begin_or_end_with_white_space() -> None:
    assert not cell_checks.byte_facts("x,y\n1,Peña José\n2,b".encode(), ",").padded
    assert cell_checks.byte_facts(b"x,y\n1, b\n", ",").padded
    assert cell_checks.byte_facts(b"x,y\n1 ,b\n", ",").padded
    assert cell_checks.byte_facts(b"x,y\n1,b\t\r\n", ",").padded
    assert cell_checks.byte_facts(b"x,y\n1,b ", ",").padded  # the last cell, no line end
    assert cell_checks.byte_facts("x,y\n1,\u00a0b\n".encode(), ",").padded
    assert not cell_checks.byte_facts(b"x;y\n1 ,b\n", ";").padded  # one cell: '1 ,b'
    assert cell_checks.byte_facts(b"x,y\n1,b\n", None).padded  # no separator: not looked at


def test_a_piece_whose_first_cell_begins_with_a_space_is_stripped_as_in_the_whole_file(
    tmp_path: Path,
) -> None:
    # A piece's bytes begin where its first record does: a space there begins a cell.
    path = tmp_path / "f.csv"
    path.write_bytes(b"x,y\n a,b\nc,d\n")
    read = [(2, "a", "b"), (3, "c", "d")]
    assert read_csv(path).frame.rows() == read
    assert [p.frame.rows() for p in read_csv_chunks(path, 10).pieces] == [read]
    assert cell_checks.byte_facts(b" a,b\n", ",").padded


def test_every_byte_is_a_control_character_or_not_as_the_cells_check_tells_it() -> None:
    control = re.compile(cell_checks.CONTROL.encode())
    for byte in range(256):
        data = b"x,y\r\n1," + bytes([byte]) + b"\tb\n"
        assert cell_checks.byte_facts(data, ",").controls == bool(control.search(data)), byte


@given(st.lists(st.sampled_from(["a", ",", ";", "\n", "\r", "\r\n", "é", " "]), max_size=60))
def test_the_counts_part_by_part_are_those_of_the_whole_bytes(pieces: list[str]) -> None:
    # Cut into parts of 1, 2, 3 or 5 bytes (a CRLF may fall across two), the returns, CRLF
    # pairs, separators and line feeds add up to the counts over the whole bytes.
    data = "".join(pieces).encode()
    expected = (data.count(b"\r"), data.count(b"\r\n"), data.count(b","), data.count(b"\n"))
    saved = csv_layout.COUNT_SCAN
    try:
        for size in (1, 2, 3, 5, 1 << 20):
            csv_layout.COUNT_SCAN = size
            assert csv_layout._counts(data, ord(",")) == expected
    finally:
        csv_layout.COUNT_SCAN = saved
