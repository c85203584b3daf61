"""The first, cheap reading of a file's cells (``tables.parse``): a sign told apart from the
digits, a code by its enum, a date and a date-time as written. Worked on the sample row with
one cell spoiled, each cell refused or read as it always was."""

from __future__ import annotations

from pathlib import Path

import pytest

from democratiza.money import amount_centavos, parse_pesos
from democratiza.tables.errors import InputRejected
from democratiza.tables.format import MAX_PESOS
from democratiza.tables.parse import parse, parse_rows
from democratiza.tables.readers import read_table
from tests.test_bad_files import CELLS, NAMES, csv_file, spoiled


def messages(path: Path) -> list[str]:
    with pytest.raises(InputRejected) as refused:
        parse(read_table(path))
    return [e.message for e in refused.value.errors]


@pytest.mark.parametrize("cell", ["+5", "+0", "+1.500"])
def test_an_amount_with_a_plus_sign_is_no_amount(cell: str, tmp_path: Path) -> None:
    # A cast to an integer would read '+5' as 5: the first reading leaves it to the grammar,
    # which refuses it.
    [message] = messages(csv_file(tmp_path, spoiled("patrimonio_liquido", cell)))
    assert message.startswith(f"no es un monto en pesos: '{cell}'")


def test_a_negative_amount_and_quantity_are_refused_as_negative(tmp_path: Path) -> None:
    assert messages(csv_file(tmp_path, spoiled("patrimonio_liquido", "-0"))) == [
        "monto negativo: '-0'"
    ]
    assert messages(csv_file(tmp_path, spoiled("cantidad", "-3"))) == ["cantidad negativa: '-3'"]


def test_a_code_that_is_none_of_its_column_s_is_refused_and_a_known_one_read(
    tmp_path: Path,
) -> None:
    [message] = messages(csv_file(tmp_path, spoiled("categoria", "trabajadora")))
    assert message.startswith("valor desconocido 'trabajadora'; se admite: trabajador_activo")
    typed = parse(read_table(csv_file(tmp_path, spoiled("categoria", "pensionado"))))
    assert typed["categoria"].cast(str).to_list() == ["pensionado"]


def test_a_date_is_read_once_for_its_value_and_its_range(tmp_path: Path) -> None:
    path = csv_file(tmp_path, spoiled("fecha_certificado", "0000-01-01"))
    assert messages(path) == [
        "fecha fuera de todo rango plausible (años 1800 a 2199): '0000-01-01'"
    ]


def test_the_centavos_of_an_amount_are_those_parse_pesos_reads() -> None:
    for written in ["48.000.000,50", "2075.31", "2075,3", "1.500", "9" * 16]:
        assert amount_centavos(written) == parse_pesos(written)
    # Not the grammar's: a final line feed (which Python's '$' would take), more than
    # sixteen whole digits, a comma grouping thousands.
    assert [amount_centavos(w) for w in ["12\n", "9" * 17, "48,000,000"]] == [None] * 3


WRITTEN_AMOUNTS = [
    "2075.31", "0.00", "007.50", "12.30", "1.50", "1.5", "1,50", "1.234", "1.234,56", ".50",
    "1.", "1..5", "1.5a", "1.50.", "+1.50", "-1.50", "1 .50", "1. 50", "\u0661.\u0665\u0660",
    "\u0661\u0662.50", "$1.50", "$ 1.50", "9" * 15 + ".99", "9" * 17 + ".99", "12.345.678.90",
    "1.2e3", "0x1.00", "1_000.00", "1,000.50", "-0.00",
]  # fmt: skip


@pytest.mark.parametrize("copies", [1, 3])  # three copies: more than FEW_ROWS rows, as columns
def test_an_amount_is_read_as_the_grammar_reads_it_as_few_rows_and_as_columns(
    copies: int, tmp_path: Path
) -> None:
    # The first reading takes plain digits by a cast; any other cell is read by the
    # grammar, in Python for a few rows and by Polars for many. Either way each cell is the
    # grammar's value, or refused where the grammar refuses it (or finds it implausible).
    cells = WRITTEN_AMOUNTS * copies
    rows = []
    for i, cell in enumerate(cells):
        written = CELLS.copy()
        written[NAMES.index("patrimonio_liquido")] = f'"{cell}"'  # a comma stays in its cell
        written[NAMES.index("referencia")] = f"R-{i}"
        rows.append(",".join(written))
    typed, errors = parse_rows(read_table(csv_file(tmp_path, *rows)))
    read = dict(typed.select("fila", "patrimonio_liquido").iter_rows())
    refused = {e.row for e in errors}
    for row, cell in enumerate(cells, start=2):
        expected = amount_centavos(cell)
        if expected is None or expected > MAX_PESOS * 100:
            assert row in refused and row not in read, cell
        else:
            assert read[row] == expected and row not in refused, cell
