"""Adjudication of the Primera Etapa (Ley 226 de 1995, dominio.md §3).

When valid demand fits in the offer, everyone gets their valid quantity. When it does not,
the program file names a method (``igualitario_redistribucion``, ``proporcional`` or
``lineal_proporcional``), a lot size and a remainder rule, and ``allocate`` shares the offer
out in whole lots, exactly, in integers. See ``adjudicate`` for the steps, ``methods`` for
the three rules, and ``remainder`` for the left-over lots.
"""

from democratiza.adjudication.adjudicate import (
    METHODS,
    AdjudicationError,
    AllocationResult,
    Method,
    allocate,
    allocate_program,
)
from democratiza.allocation.remainder import REMAINDERS, Remainder

__all__ = [
    "METHODS",
    "REMAINDERS",
    "AdjudicationError",
    "AllocationResult",
    "Method",
    "Remainder",
    "allocate",
    "allocate_program",
]
