"""What both stages' allocations check before computing: whole numbers that fit in Int64.

The Primera Etapa's ``allocate`` and a later stage's ``clear`` take columns of whole shares
(and centavos) and whole parameters; anything else is a caller's mistake, refused with the
caller's own error type so that each stage keeps its own errors.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from democratiza.allocation.exact import INT64_MAX


def whole(value: object) -> bool:
    """A whole number (Python or numpy), not a boolean."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def whole_at_least(
    value: object, minimum: int, what: str, unit: str, error: type[Exception]
) -> None:
    """Refuse ``value`` unless it is a whole number of ``unit`` of at least ``minimum``."""
    if not whole(value) or value < minimum:  # type: ignore[operator]
        raise error(f"{what} debe ser un número entero de {unit} ≥ {minimum}: {value!r}")


def integer_column(
    values: NDArray[np.int64], what: str, error: type[Exception]
) -> NDArray[np.int64]:
    """``values`` as a one-dimensional Int64 column, or ``error`` saying what is wrong."""
    array = np.asarray(values)
    if array.ndim != 1 or array.dtype.kind not in "iu":
        raise error(
            f"{what}: se espera un vector de enteros (recibido: {array.ndim} dimensiones, "
            f"tipo {array.dtype})"
        )
    if array.size and array.dtype.kind == "u" and int(array.max()) > INT64_MAX:
        raise error(f"{what}: valores mayores que 2⁶³ − 1")
    return array.astype(np.int64, copy=False)


def checked_total(quantities: NDArray[np.int64], error: type[Exception]) -> int:
    """``Σ quantities``, refused when it would not fit in Int64 (running sums use Int64)."""
    if quantities.size == 0:
        return 0
    if int(quantities.max()) * quantities.size <= INT64_MAX:
        return int(quantities.sum())
    total = int(sum(quantities.tolist()))
    if total > INT64_MAX:
        raise error("la demanda total supera 2⁶³ − 1 acciones")
    return total
