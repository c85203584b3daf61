"""The first, cheap reading of a file's cells (``tables.parse``): a sign told apart from the
digits, a code by its enum, a date and a date-time as written. Worked on the sample row with
one cell spoiled, each cell refused or read as it always was."""

from __future__ import annotations

from pathlib import Path

import pytest

from democratiza.money import amount_centavos, parse_pesos
from democratiza.tables.errors import InputRejected
from democratiza.tables.parse import parse
from democratiza.tables.readers import read_table
from tests.test_bad_files import csv_file, spoiled


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
