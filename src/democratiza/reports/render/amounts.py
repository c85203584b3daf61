"""Amounts in files that people open: exact pesos with two decimals, never centavos.

Why: a column ``valor_a_pagar`` of 2475000000 (centavos) is read as two thousand million
pesos by anyone who opens the file in a spreadsheet; 24750000.00 cannot be misread. The
value moves its decimal point exactly (``Decimal.scaleb``), so nothing is rounded; in CSV it
is written ``24750000.00`` and in XLSX it is a number.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

import polars as pl

PESOS = pl.Decimal(22, 2)  # up to 10^20 pesos, to the centavo


def in_pesos(frame: pl.DataFrame, columns: Sequence[str]) -> pl.DataFrame:
    """``columns`` (integer centavos) as exact pesos with two decimals, in place."""
    return frame.with_columns(
        pl.Series(
            name,
            [None if c is None else Decimal(c).scaleb(-2) for c in frame[name].to_list()],
            dtype=PESOS,
        )
        for name in columns
    )


def price_in_pesos(centavos: pl.Series) -> pl.Series:
    """An exact price column (decimal centavos) in pesos with two decimals, or as many more
    as the finest price has ($ 0,010176 keeps its six): nothing is rounded."""
    values = [None if c is None else Decimal(c).scaleb(-2) for c in centavos.to_list()]
    exponents = [v.normalize().as_tuple().exponent for v in values if v is not None]
    scale = max([2, *(-e for e in exponents if isinstance(e, int))])
    return pl.Series(centavos.name, values, dtype=pl.Decimal(38, scale))
