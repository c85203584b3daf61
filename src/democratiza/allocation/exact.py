"""Exact ⌊value × numerator / denominator⌋ for a column of whole numbers, never a float.

A prorate multiplies a demand by the supply before dividing by the total demand. Both can be
large (a demand of 10¹² shares against a supply of 10¹¹), and the product then outgrows
Int64. When the largest product fits, numpy does it in Int64; otherwise Polars does it in
Int128, where the product of two Int64 values always fits. The quotient never exceeds the
value (numerator ≤ denominator), so it comes back as Int64.
"""

from __future__ import annotations

import numpy as np
import polars as pl
from numpy.typing import NDArray

INT64_MAX = int(np.iinfo(np.int64).max)
I128 = pl.Int128()


def scaled_floor(values: NDArray[np.int64], numerator: int, denominator: int) -> NDArray[np.int64]:
    """⌊v × numerator / denominator⌋ for each v ≥ 0; requires 0 ≤ numerator ≤ denominator."""
    assert 0 <= numerator <= denominator and 0 < denominator <= INT64_MAX
    if values.size == 0:
        return np.zeros(0, dtype=np.int64)
    if int(values.max()) * numerator <= INT64_MAX:
        return values * np.int64(numerator) // np.int64(denominator)
    product = pl.lit(pl.Series(values)).cast(I128) * pl.lit(numerator, dtype=I128)
    quotient = (product // pl.lit(denominator, dtype=I128)).cast(pl.Int64)
    # A fresh, writable array: the caller adds the left-over lots to it.
    return np.array(pl.select(quotient).to_series().to_numpy(), dtype=np.int64)
