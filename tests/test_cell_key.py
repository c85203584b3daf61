"""The key of a cell (``readers.cell_key``, how single acceptances filed at once are grouped
by their reference) is the cell as ``read_records`` reads it: stripped of exactly the white
space Polars strips, no more."""

from __future__ import annotations

import pytest

from democratiza.tables.errors import InputRejected
from democratiza.tables.readers import cell_key, read_records


def test_a_reference_padded_with_any_white_space_has_the_key_of_the_reference() -> None:
    assert cell_key("\u00a0AC-1\u3000") == "AC-1"
    assert cell_key("\tAC-1\r\n") == "AC-1"
    assert cell_key(" ") is None
    assert cell_key(None) is None
    assert cell_key(1853) == "1853"


def test_a_control_character_is_not_stripped_as_if_it_were_a_space() -> None:
    # U+001F is white space to Python's own strip, not to Polars: the reading refuses it,
    # and its key stays apart from the reference's.
    assert cell_key("AC-1\x1f") == "AC-1\x1f"
    with pytest.raises(InputRejected):
        read_records("aceptacion", [{"referencia": "AC-1\x1f"}])


def test_the_key_is_the_cell_as_records_are_read() -> None:
    cells = ["\u00a0AC-1\u3000", "\tAC-2 ", "AC-3"]
    read = read_records("aceptaciones", [{"referencia": c} for c in cells]).frame
    assert read["referencia"].to_list() == [cell_key(c) for c in cells] == ["AC-1", "AC-2", "AC-3"]
