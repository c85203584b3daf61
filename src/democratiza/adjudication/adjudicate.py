"""Adjudicate the Primera Etapa: who gets how many shares when the offer closes.

``allocate(demand, supply, method, remainder, unit, linear_percent)`` takes each
acceptant's valid permitted quantity (whole shares, ``≥ 0``), already in filing order
(earliest first: that order breaks ties), and the shares offered. In whole shares:

1. If the valid demand does not exceed the supply, everyone gets what they asked for
   (the decrees' rule, e.g. Decreto 706/2017 art. 12(a)), whole lots or not.
2. Otherwise the offer is shared in whole lots of ``unit`` shares: each acceptant's demand
   counts as its whole lots (``demand // unit``; a part of a lot is never awarded) and the
   supply as ``supply // unit`` lots (a part of a lot stays unsold). An award is
   ``lots × unit`` shares, so it is a multiple of the lot and never above the demand.
3. If the demand in whole lots fits in the supply in whole lots, everyone gets their whole
   lots. Otherwise the program's method shares the supply lots out exactly (``methods``),
   and the lots left by the floors go one at a time to acceptants still short in the
   remainder order (``remainder``).

So the total awarded is ``Σ demand`` when ``Σ demand ≤ supply``, and otherwise
``unit × min(supply // unit, Σ (demand // unit))``. With ``unit = 1`` that is
``min(supply, Σ demand)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from democratiza.allocation.checks import checked_total, integer_column, whole, whole_at_least
from democratiza.allocation.methods import (
    Split,
    equal_with_redistribution,
    linear_then_proportional,
    proportional,
)
from democratiza.allocation.notes import left_over_note, lot_remnants, whole_units
from democratiza.money import group, percent
from democratiza.programs.schema import Allocation
from democratiza.vocabulary import METHODS, REMAINDERS, Method, Remainder

REMAINDER_ORDER: dict[str, str] = {
    "primero_radicado": "en orden de radicación",
    "mayor_solicitud": "de mayor a menor cantidad solicitada (a igual cantidad, por radicación)",
}


class AdjudicationError(ValueError):
    pass


@dataclass(frozen=True, eq=False)
class AllocationResult:
    """The awards, in whole shares and in the order of the demand, and how they came about.

    ``level``: for ``igualitario_redistribucion`` the water level ``L`` (everyone got
    ``min(demand, L)``, and some of those above ``L`` one lot more); for
    ``lineal_proporcional`` each acceptant's linear tranche ``t``; otherwise ``None``.
    ``prorate``: ``(shares prorated, demand they were prorated on)``; their ratio is the
    prorate percentage. ``left_over``: shares handed out one lot at a time after the floors.
    All three are in shares and only set when the method ran (the offer oversubscribed).
    """

    awards: NDArray[np.int64]
    oversubscribed: bool
    level: int | None
    prorate: tuple[int, int] | None
    left_over: int
    notes: tuple[str, ...]

    @property
    def total(self) -> int:
        return int(self.awards.sum())


def allocate(
    demand: NDArray[np.int64],
    supply: int,
    method: Method,
    remainder: Remainder,
    unit: int = 1,
    linear_percent: int | None = None,
) -> AllocationResult:
    """Awards for ``demand`` (filing order) out of ``supply`` shares; see the module doc."""
    demand = _checked_demand(demand)
    _check_parameters(supply, method, remainder, unit, linear_percent)
    supply, unit = int(supply), int(unit)  # numpy integers become Python ints from here on
    total = checked_total(demand, AdjudicationError)
    if total <= supply:
        notes = (
            f"Demanda válida de {group(total)} acciones ≤ oferta de {group(supply)}: "
            "cada aceptante recibe su cantidad permitida.",
        )
        return _result(demand.copy(), False, None, notes)

    notes_list = [
        f"Sobredemanda: demanda válida de {group(total)} acciones > oferta de {group(supply)}."
    ]
    lots = demand // unit
    supply_lots = supply // unit
    if unit > 1:
        notes_list.append(_lot_note(unit, total, int(lots.sum()), supply, supply_lots))
    if int(lots.sum()) <= supply_lots:
        notes_list.append(
            "La demanda en lotes completos cabe en la oferta: cada aceptante "
            "recibe sus lotes completos."
        )
        return _result(lots * unit, True, None, tuple(notes_list))

    split = _split(lots, supply_lots, demand, method, remainder, linear_percent)
    notes_list.extend(_method_notes(split, method, remainder, unit, lots, linear_percent))
    return _result(split.awards * unit, True, split, tuple(notes_list), unit)


def allocate_program(demand: NDArray[np.int64], supply: int, rule: Allocation) -> AllocationResult:
    """``allocate`` with the method, remainder, lot and linear percentage of a program file."""
    return allocate(
        demand, supply, rule.method, rule.remainder, rule.unit_shares, rule.linear_percent
    )


def _split(
    lots: NDArray[np.int64],
    supply: int,
    demand: NDArray[np.int64],
    method: Method,
    remainder: Remainder,
    linear_percent: int | None,
) -> Split:
    if method == "igualitario_redistribucion":
        return equal_with_redistribution(lots, supply, demand, remainder)
    if method == "proporcional":
        return proportional(lots, supply, demand, remainder)
    assert linear_percent is not None
    return linear_then_proportional(lots, supply, demand, remainder, linear_percent)


def _result(
    awards: NDArray[np.int64],
    oversubscribed: bool,
    split: Split | None,
    notes: tuple[str, ...],
    unit: int = 1,
) -> AllocationResult:
    awards.flags.writeable = False
    if split is None:
        return AllocationResult(awards, oversubscribed, None, None, 0, notes)
    level = None if split.level is None else split.level * unit
    prorate = None if split.prorate is None else (split.prorate[0] * unit, split.prorate[1] * unit)
    return AllocationResult(awards, oversubscribed, level, prorate, split.left_over * unit, notes)


def _checked_demand(demand: NDArray[np.int64]) -> NDArray[np.int64]:
    array = integer_column(demand, "demanda en cantidades enteras de acciones", AdjudicationError)
    if array.size and int(array.min()) < 0:
        raise AdjudicationError("la demanda tiene cantidades negativas")
    return array


def _check_parameters(
    supply: int, method: str, remainder: str, unit: int, linear_percent: int | None
) -> None:
    whole_at_least(supply, 0, "la oferta", "acciones", AdjudicationError)
    whole_at_least(unit, 1, "el lote", "acciones", AdjudicationError)
    if method not in METHODS:
        raise AdjudicationError(f"método de adjudicación desconocido: {method!r}")
    if remainder not in REMAINDERS:
        raise AdjudicationError(f"regla de residuo desconocida: {remainder!r}")
    if method == "lineal_proporcional":
        if linear_percent is None:
            raise AdjudicationError(
                "el método lineal_proporcional necesita porcentaje_lineal (el porcentaje de la "
                "oferta que se reparte por igual)"
            )
        if not whole(linear_percent) or not 1 <= linear_percent <= 100:
            raise AdjudicationError(
                f"porcentaje_lineal debe ser un entero entre 1 y 100: {linear_percent!r}"
            )
    elif linear_percent is not None:
        raise AdjudicationError(
            f"porcentaje_lineal solo se usa con el método lineal_proporcional, no con {method}"
        )


def _lot_note(unit: int, total: int, total_lots: int, supply: int, supply_lots: int) -> str:
    note = (
        f"Se adjudica en lotes de {group(unit)} acciones: la demanda cuenta en lotes completos "
        f"({group(total_lots)} lotes, {group(total_lots * unit)} acciones) y la oferta "
        f"en {group(supply_lots)} lotes ({group(supply_lots * unit)} acciones)"
    )
    dropped, unsold = total - total_lots * unit, supply - supply_lots * unit
    return note + lot_remnants(dropped, unsold, "de la oferta") + "."


def _method_notes(
    split: Split,
    method: Method,
    remainder: Remainder,
    unit: int,
    lots: NDArray[np.int64],
    linear_percent: int | None,
) -> list[str]:
    notes: list[str] = []
    if method == "igualitario_redistribucion":
        assert split.level is not None
        filled = int(np.count_nonzero((lots > 0) & (lots <= split.level)))
        notes.append(
            f"Igualitario con redistribución: nivel de {group(split.level * unit)} acciones; "
            f"{group(filled)} aceptantes que pedían hasta el nivel reciben toda su cantidad "
            "y los demás el nivel."
        )
    elif method == "proporcional":
        assert split.prorate is not None
        share = percent(Fraction(*split.prorate), truncate=True)
        notes.append(
            f"Proporcional: cada aceptante recibe {share} de su cantidad, "
            f"redondeado hacia abajo a {whole_units(unit)}."
        )
    else:
        assert split.level is not None and split.prorate is not None
        acceptants = int(np.count_nonzero(lots))
        notes.append(
            f"Tramo lineal: el {linear_percent} % de la oferta se reparte por igual entre "
            f"{group(acceptants)} aceptantes: {group(split.level * unit)} acciones cada uno, "
            "o su cantidad si es menor."
        )
        rest, base = split.prorate
        share = percent(Fraction(rest, base), truncate=True)
        notes.append(
            f"Tramo proporcional: {group(rest * unit)} acciones sobre la demanda no atendida de "
            f"{group(base * unit)} ({share}), redondeado hacia abajo a {whole_units(unit)}."
        )
    if split.left_over:
        recipients = "al mismo aceptante, entre quienes aún no reciben toda su cantidad"
        notes.append(left_over_note(split.left_over, unit, recipients, REMAINDER_ORDER[remainder]))
    return notes
