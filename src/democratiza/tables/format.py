"""The files brokers send, described as data: columns with a kind, a unit and an example.

Acceptances (Primera Etapa), orders (Segunda Etapa) and payments are all a ``FileFormat``
(``tables.acceptances``, ``tables.orders``, ``tables.payments``), read by ``tables.readers``
and typed by ``tables.parse``, so that every file gets the same checks and the same errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import polars as pl

Kind = Literal["texto", "entero", "cantidad", "pesos", "dolares", "si_no", "fecha", "fecha_hora"]

DTYPES: dict[Kind, pl.DataType] = {
    "texto": pl.String(),
    "entero": pl.Int64(),
    "cantidad": pl.Int64(),
    "pesos": pl.Int64(),  # centavos
    "dolares": pl.Int64(),  # cents of a dollar
    "si_no": pl.Boolean(),
    "fecha": pl.Date(),
    "fecha_hora": pl.Datetime("us"),
}

# Plausible years of any date in a file (a person's, a company's, a filing's): outside them a
# date is a typo, and a year 0 is one that SQLite and PostgreSQL cannot even store.
MIN_YEAR, MAX_YEAR = 1800, 2199
# The longest any cell may be, in characters (``tables.cell_checks``): the longest razón social
# fits many times over; a longer cell is a pasted document, not a name.
MAX_TEXT = 300

KIND_DOC: dict[Kind, str] = {
    "texto": f"texto libre (UTF-8), hasta {MAX_TEXT} caracteres, sin caracteres de control",
    "entero": "número entero sin separadores, ≥ 0",
    "cantidad": "número de acciones, entero, como se escriben los pesos: 40000000 o "
    "40.000.000 (punto de miles en grupos de tres)",
    "pesos": "pesos colombianos, como se escriben: 48000000, 2075.31, 48.000.000 o "
    "48.000.000,50 (punto de miles en grupos de tres; hasta 2 decimales con coma, o con punto "
    "si no hay puntos de miles)",
    "dolares": "dólares de EE. UU., escritos como los pesos (20000, 20.000 o 20.000,50)",
    "si_no": "si / no (también s, n, x, 1, 0, verdadero, falso); vacío es no",
    "fecha": f"AAAA-MM-DD, de los años {MIN_YEAR} a {MAX_YEAR}",
    "fecha_hora": f"AAAA-MM-DD o AAAA-MM-DDTHH:MM[:SS], de los años {MIN_YEAR} a {MAX_YEAR}",
}


@dataclass(frozen=True)
class Column:
    name: str
    kind: Kind
    required: bool
    description: str
    example: str = ""


# Plausible upper bounds: beyond these a figure is a typo, not a fortune. The whole Colombian
# pension system manages about 4 × 10^14 pesos; no acceptant can exceed 10^15.
MAX_PESOS = 10**15
MAX_DOLLARS = 10**12
MAX_SHARES = 10**15


@dataclass(frozen=True)
class FileFormat:
    """A file brokers send: its columns and the text columns that take a fixed list of codes.

    Acceptances (Primera Etapa), orders (Segunda Etapa) and payments are all files of this
    kind, read, typed and refused by the same code (``tables.parse``). ``key`` names the
    column that must be unique in a file (none for payments: an award may be paid in parts).
    """

    name: str
    columns: tuple[Column, ...]
    codes: dict[str, tuple[str, ...]]
    key: str | None = "referencia"
    declared_time: str | None = None  # where a broker declares when it filed the row

    @property
    def by_name(self) -> dict[str, Column]:
        return {c.name: c for c in self.columns}

    def typed_schema(self) -> dict[str, pl.DataType]:
        """The typed rows: every column, in centavos/cents for money, codes as enums."""
        schema = {c.name: DTYPES[c.kind] for c in self.columns}
        schema.update({name: pl.Enum(codes) for name, codes in self.codes.items()})
        schema["fila"] = pl.Int64()
        if "cantidad" in schema:
            schema["cantidad_fraccionaria"] = pl.Boolean()
        return schema
