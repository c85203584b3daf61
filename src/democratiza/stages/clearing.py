"""Clear a Segunda Etapa order book: one price, and who gets how many shares at it.

``clear(prices, quantities, entry_order, offered, minimum_price, lot, mechanism,
cutoff_price)`` takes the book as three columns, one row per order: the price bid in
centavos per share, the shares asked, and the rank of the order's time of entry (unique;
lower entered earlier). The orders are valid: intake has already refused those below the
minimum order or with a price below the minimum (an order below the minimum that reaches
this module anyway is simply never filled). Everything is exact, in Int64 and Python ints.

**The price** (``P``; write ``D(x)`` for the shares asked at a price ``≥ x`` and ``D⁺(x)``
for those asked at a price ``> x``):

- ``subasta_holandesa`` (uniform-price Dutch auction): ``P`` is the highest order price
  ``≥ minimum_price`` with ``D(P) ≥ offered``: going down the book from the highest price,
  the price of the order at which the cumulative demand first covers the offer (see
  ``dutch_price`` for why that is the usual clearing price). If ``D(minimum_price) <
  offered`` no price covers the offer: ``P`` is the minimum price and every order at or
  above it is filled (the stage is undersubscribed). So the price jumps from the lowest bid
  that still covers the offer down to the minimum as soon as even that bid does not.
- ``construccion_libro`` (book-building): the seller sets ``P = cutoff_price``, which must be
  ``≥ minimum_price``. Orders at or above it are the candidates. If none reaches it (but
  some reach the minimum), nothing is allocated and the stage is not void: the cut-off is
  the seller's decision, taken with the book (``demand_curve``) in view.

**The allocation**, the same for both mechanisms once ``P`` is known:

1. Orders below ``P`` get nothing, even when lot rounding at the margin leaves shares
   unsold: the unsold part is never passed down to lower bids.
2. If ``D⁺(P) ≤ offered``, orders above ``P`` are filled in full, in shares (whole lots or
   not). In the Dutch auction this always holds (``D⁺(P) < offered`` by the choice of
   ``P``). The rest, ``R = offered − D⁺(P)``, goes to the orders at ``P``: in full, in shares,
   if they fit (``D(P) − D⁺(P) ≤ R``); otherwise by the margin prorate below, on ``R``.
3. If ``D⁺(P) > offered`` (book-building with a cut-off below what the demand supports), the
   orders above ``P`` are the margin: they share the whole offer by the margin prorate, and
   the orders at ``P`` get nothing, since a higher bid has priority over a lower one.

**The margin prorate** shares ``R`` shares among the margin orders in whole lots of ``lot``
shares: an order counts its whole lots, ``⌊q / lot⌋`` (a part of a lot is never awarded at the
margin), and ``R`` counts ``⌊R / lot⌋`` lots (a part of a lot stays unsold). If the lots asked
fit in the lots available, each order gets its whole lots. Otherwise each gets
``⌊lots × lots available / lots asked⌋``, and the lots left over by the floors go one at a
time, never two to one order, to the orders still short, the largest quantity asked (in
shares) first, equal quantities by time of entry. There are always fewer left-over lots than
orders short (each floor drops less than one lot, and only orders with a fraction drop any),
so one pass suffices.

Every filled order pays the single price ``P``. The shares allocated add up to:

- ``D(P)`` when ``D(P) ≤ offered`` (in the Dutch auction exactly when undersubscribed or
  exactly covered);
- ``D⁺(P) + lot × min(⌊R / lot⌋, Σ ⌊q / lot⌋ over the orders at P)`` when
  ``D⁺(P) ≤ offered < D(P)``;
- ``lot × min(⌊offered / lot⌋, Σ ⌊q / lot⌋ over the orders above P)`` when
  ``D⁺(P) > offered``.

So never more than ``offered``, and with ``lot = 1`` exactly ``min(offered, D(P))``.

The stage is void (``void=True``, ``price=None``, nothing allocated) when the book is empty or
no order reaches the minimum price.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from democratiza.allocation.checks import checked_total, integer_column, whole, whole_at_least
from democratiza.allocation.methods import proportional
from democratiza.allocation.notes import left_over_note, lot_remnants, whole_units
from democratiza.money import group, percent, pesos
from democratiza.vocabulary import MECHANISMS, Mechanism

NO_ORDERS = "no hay órdenes"
ALL_BELOW_MINIMUM = "todas las órdenes están por debajo del precio mínimo"


class ClearingError(ValueError):
    pass


@dataclass(frozen=True, eq=False)
class ClearingResult:
    """The clearing price, each order's shares (in the order of the book) and the figures.

    ``price``: centavos per share that every filled order pays; ``None`` when void.
    ``demand_at_price``: shares asked by the orders exactly at ``price``.
    ``filled_above``: shares allocated to the orders strictly above ``price`` (all they asked,
    unless ``prorated_above`` is set).
    ``prorated_at_price``: ``(shares prorated, shares asked in whole lots)`` for the orders at
    ``price`` when they were prorated (their ratio is the prorate percentage); ``None`` when
    they were filled in full, got their whole lots, or got nothing.
    ``prorated_above``: the same for the orders above ``price`` when they were the margin
    (book-building with more demand above the cut-off than the offer); otherwise ``None``.
    ``void``/``reason``: the stage is void, and why (Spanish, for the record).
    """

    price: int | None
    allocations: NDArray[np.int64]
    demand_at_price: int
    filled_above: int
    prorated_at_price: tuple[int, int] | None
    void: bool
    reason: str | None
    notes: tuple[str, ...]
    prorated_above: tuple[int, int] | None = None

    @property
    def total(self) -> int:
        """Shares allocated."""
        return int(self.allocations.sum())


@dataclass(frozen=True, eq=False)
class _Margin:
    """What the margin prorate did, in lots (``prorate`` is ``None`` when lots fit)."""

    awards: NDArray[np.int64]  # shares
    supply_lots: int
    asked_lots: int
    prorate: tuple[int, int] | None  # (lots prorated, lots asked)
    left_over: int  # lots handed out one at a time after the floors


def clear(
    prices: NDArray[np.int64],
    quantities: NDArray[np.int64],
    entry_order: NDArray[np.int64],
    offered: int,
    minimum_price: int,
    lot: int,
    mechanism: Mechanism,
    cutoff_price: int | None = None,
) -> ClearingResult:
    """Clear the book and allocate the offer; see the module doc for the rules."""
    prices, quantities, entry_order = _checked_book(prices, quantities, entry_order)
    _check_parameters(offered, minimum_price, lot, mechanism, cutoff_price)
    offered, minimum_price, lot = int(offered), int(minimum_price), int(lot)
    n = prices.size
    if n == 0:
        return _void(n, NO_ORDERS)
    if int(prices.max()) < minimum_price:
        return _void(n, ALL_BELOW_MINIMUM)
    checked_total(quantities, ClearingError)
    if mechanism == "subasta_holandesa":
        price = dutch_price(prices, quantities, offered, minimum_price)
    else:
        assert cutoff_price is not None
        price = int(cutoff_price)
    return _allocate(prices, quantities, entry_order, offered, minimum_price, lot, mechanism, price)


def dutch_price(
    prices: NDArray[np.int64], quantities: NDArray[np.int64], offered: int, minimum_price: int
) -> int:
    """The uniform price: the highest order price ``P ≥ minimum_price`` with ``D(P) ≥ offered``.

    ``D(P)``, the shares asked at a price ``≥ P``, only grows as ``P`` falls. Going down the
    book from the highest price, the first price at which ``D`` reaches the offer is therefore
    the highest price with ``D(P) ≥ offered``: "the lowest price at which the demand at or
    above it covers the offer" means the lowest price the auction has to come down to, not
    the lowest of all such prices (that would be the lowest bid in the book).

    It is the usual market-clearing price of a uniform-price auction, the one order price
    with ``D⁺(P) < offered ≤ D(P)`` (``D⁺``: asked at a price ``> P``): the orders above ``P``
    fit in the offer and those at ``P`` complete it. Indeed ``D⁺(P)`` is ``D`` at the next
    higher order price (or 0), which is below the offer since ``P`` is the highest; any lower
    order price ``Q`` has ``D⁺(Q) ≥ D(P) ≥ offered``, and any higher one ``D(Q) < offered``.

    If ``D(minimum_price) < offered`` no order price qualifies and the price is the minimum.

    With the orders sorted by price (ascending, stable), the demand at or above the ``k``-th
    is ``total − before[k]``, ``before`` the exclusive running sum, which grows with ``k``;
    the marginal order is the last ``k`` with ``before[k] ≤ total − offered``.

    The book is taken as checked by ``clear`` (integer columns, positive quantities whose
    total fits in Int64).
    """
    if prices.size == 0:
        return minimum_price
    order = np.argsort(prices, kind="stable")
    sorted_prices = prices[order]
    sorted_quantities = quantities[order]
    running = np.cumsum(sorted_quantities)
    total = int(running[-1])
    before = running - sorted_quantities
    start = int(np.searchsorted(sorted_prices, minimum_price, side="left"))
    if start == prices.size or total - int(before[start]) < offered:
        return minimum_price
    marginal = int(np.searchsorted(before, total - offered, side="right")) - 1
    assert marginal >= start
    return int(sorted_prices[marginal])


def demand_curve(prices: NDArray[np.int64], quantities: NDArray[np.int64]) -> list[tuple[int, int]]:
    """``(price, shares asked at that price or above)`` for each price in the book, high to low.

    The cumulative demand ``D(price)`` of the module doc, for the chart of the book: the Dutch
    price is the first point whose quantity reaches the offer.
    """
    prices = integer_column(prices, "precios", ClearingError)
    quantities = integer_column(quantities, "cantidades", ClearingError)
    if prices.size != quantities.size:
        raise ClearingError(
            f"precios ({prices.size}) y cantidades ({quantities.size}) deben tener el mismo largo"
        )
    if prices.size == 0:
        return []
    checked_total(quantities, ClearingError)
    order = np.argsort(prices, kind="stable")[::-1]
    sorted_prices = prices[order]
    starts = np.flatnonzero(np.diff(sorted_prices, prepend=sorted_prices[0] + 1))
    per_price = np.add.reduceat(quantities[order], starts)
    cumulative = np.cumsum(per_price)
    return list(zip(sorted_prices[starts].tolist(), cumulative.tolist(), strict=True))


def _allocate(
    prices: NDArray[np.int64],
    quantities: NDArray[np.int64],
    entry_order: NDArray[np.int64],
    offered: int,
    minimum_price: int,
    lot: int,
    mechanism: Mechanism,
    price: int,
) -> ClearingResult:
    zero = np.int64(0)
    above = prices > price
    at = prices == price
    demand_above = int(np.where(above, quantities, zero).sum())
    demand_at = int(np.where(at, quantities, zero).sum())
    allocations = np.zeros(prices.size, dtype=np.int64)
    notes = [_price_note(mechanism, price, minimum_price, offered, demand_above, demand_at)]

    prorated_at: tuple[int, int] | None = None
    prorated_above: tuple[int, int] | None = None
    if demand_above > offered:
        margin_index = np.flatnonzero(above)
        margin = _prorate(quantities[margin_index], entry_order[margin_index], offered, lot)
        allocations[margin_index] = margin.awards
        filled_above = int(margin.awards.sum())
        prorated_above = _shares(margin.prorate, lot)
        notes.append(
            f"{_orders(margin_index.size)} por encima del precio de corte "
            f"{_verb(margin_index.size, 'pide')} {group(demand_above)} acciones, más que la "
            f"oferta: {_verb(margin_index.size, 'se prorratea')}, y las órdenes al precio de "
            "corte no reciben acciones."
        )
        notes.extend(_margin_notes(margin, quantities[margin_index], offered, lot))
    else:
        allocations[above] = quantities[above]
        filled_above = demand_above
        count_above = int(np.count_nonzero(above))
        if count_above:
            notes.append(
                f"{_orders(count_above)} a precio superior {_verb(count_above, 'recibe')} su "
                f"cantidad completa: {group(demand_above)} acciones."
            )
        rest = offered - demand_above
        count_at = int(np.count_nonzero(at))
        if demand_at <= rest:
            allocations[at] = quantities[at]
            if count_at:
                notes.append(
                    f"{_orders(count_at)} al precio {_verb(count_at, 'recibe')} su cantidad "
                    f"completa: {group(demand_at)} acciones."
                )
        else:
            margin_index = np.flatnonzero(at)
            margin = _prorate(quantities[margin_index], entry_order[margin_index], rest, lot)
            allocations[margin_index] = margin.awards
            prorated_at = _shares(margin.prorate, lot)
            notes.append(
                f"{_orders(count_at)} al precio {_verb(count_at, 'pide')} {group(demand_at)} "
                f"acciones y quedan {group(rest)} por adjudicar: "
                f"{_verb(count_at, 'se prorratea')}."
            )
            notes.extend(_margin_notes(margin, quantities[margin_index], rest, lot))
    notes.extend(_closing_notes(prices, allocations, offered, minimum_price, mechanism, price))
    allocations.flags.writeable = False
    return ClearingResult(
        price,
        allocations,
        demand_at,
        filled_above,
        prorated_at,
        False,
        None,
        tuple(notes),
        prorated_above,
    )


def _prorate(
    quantities: NDArray[np.int64], entry_order: NDArray[np.int64], supply: int, lot: int
) -> _Margin:
    """The margin prorate of the module doc: ``supply`` shares among these orders, in lots.

    The Primera Etapa's proportional method on the orders' whole lots, the left-over lots to
    the largest orders first and, at equal quantities, the earliest entered.
    """
    lots = quantities // lot
    supply_lots = supply // lot
    asked_lots = int(lots.sum())
    if asked_lots <= supply_lots:
        return _Margin(lots * lot, supply_lots, asked_lots, None, 0)
    split = proportional(lots, supply_lots, quantities, "mayor_solicitud", entry_order)
    return _Margin(split.awards * lot, supply_lots, asked_lots, split.prorate, split.left_over)


def _shares(prorate: tuple[int, int] | None, lot: int) -> tuple[int, int] | None:
    return None if prorate is None else (prorate[0] * lot, prorate[1] * lot)


def _void(n: int, reason: str) -> ClearingResult:
    allocations = np.zeros(n, dtype=np.int64)
    allocations.flags.writeable = False
    note = f"Etapa desierta: {reason}; no se adjudican acciones."
    return ClearingResult(None, allocations, 0, 0, None, True, reason, (note,))


# --- Notes (Spanish, for the record and the users) --------------------------------------------


def _price_note(
    mechanism: Mechanism,
    price: int,
    minimum_price: int,
    offered: int,
    demand_above: int,
    demand_at: int,
) -> str:
    covering = demand_above + demand_at
    if mechanism == "construccion_libro":
        return (
            f"Construcción del libro: precio de corte fijado por el vendedor de {pesos(price)} "
            f"por acción (precio mínimo {pesos(minimum_price)}); la demanda a ese precio o "
            f"superior es de {group(covering)} acciones frente a una oferta de "
            f"{group(offered)}."
        )
    if covering < offered:
        return (
            f"Subasta holandesa: la demanda a precio mínimo o superior ({group(covering)} "
            f"acciones) no cubre la oferta de {group(offered)}: se adjudica a cada orden su "
            f"cantidad al precio mínimo de {pesos(minimum_price)} por acción."
        )
    return (
        f"Subasta holandesa: precio de adjudicación de {pesos(price)} por acción, el mayor "
        f"precio al que la demanda a ese precio o superior ({group(covering)} acciones) cubre "
        f"la oferta de {group(offered)}; por encima de él la demanda es de "
        f"{group(demand_above)} acciones."
    )


def _margin_notes(
    margin: _Margin, quantities: NDArray[np.int64], supply: int, lot: int
) -> list[str]:
    notes: list[str] = []
    if lot > 1:
        note = (
            f"Se adjudica en lotes de {group(lot)} acciones: estas órdenes cuentan sus lotes "
            f"completos ({group(margin.asked_lots)} lotes) y lo disponible son "
            f"{group(margin.supply_lots)} lotes"
        )
        dropped = int(quantities.sum()) - margin.asked_lots * lot
        unsold = supply - margin.supply_lots * lot
        notes.append(note + lot_remnants(dropped, unsold, "disponibles") + ".")
    if margin.prorate is None:
        notes.append(
            "La demanda en lotes completos cabe en lo disponible: cada orden recibe sus lotes "
            "completos."
        )
        return notes
    share = percent(Fraction(*margin.prorate), truncate=True)
    notes.append(
        f"Prorrateo: cada orden recibe el {share} de lo que pide, "
        f"redondeado hacia abajo a {whole_units(lot)}."
    )
    if margin.left_over:
        recipients = "a la misma orden, entre las que aún no reciben toda su cantidad"
        order = "de mayor a menor cantidad pedida (a igual cantidad, por orden de ingreso)"
        notes.append(left_over_note(margin.left_over, lot, recipients, order))
    return notes


def _closing_notes(
    prices: NDArray[np.int64],
    allocations: NDArray[np.int64],
    offered: int,
    minimum_price: int,
    mechanism: Mechanism,
    price: int,
) -> list[str]:
    notes: list[str] = []
    below_minimum = int(np.count_nonzero(prices < minimum_price))
    below_price = int(np.count_nonzero(prices < price)) - below_minimum
    if below_price:
        which = "de corte" if mechanism == "construccion_libro" else "de adjudicación"
        notes.append(f"{_orders(below_price)} con precio inferior al {which}: sin acciones.")
    if below_minimum:
        notes.append(f"{_orders(below_minimum)} por debajo del precio mínimo: sin acciones.")
    total = int(allocations.sum())
    if total == 0:
        if not bool((prices >= price).any()):
            notes.append("Ninguna orden alcanza el precio de corte: no se adjudican acciones.")
        else:
            notes.append("No se adjudican acciones: lo disponible no completa un lote.")
        return notes
    notes.append(
        f"Todas las órdenes adjudicadas pagan el precio único de {pesos(price)} por acción: "
        f"{group(total)} acciones por {pesos(total * price)}."
    )
    if total < offered:
        notes.append(f"Quedan {group(offered - total)} acciones de la oferta sin adjudicar.")
    return notes


def _orders(count: int) -> str:
    return "1 orden" if count == 1 else f"{group(count)} órdenes"


def _verb(count: int, singular: str) -> str:
    """'recibe' for one order, 'reciben' for several."""
    return singular if count == 1 else singular + "n"


# --- Checks on the input ----------------------------------------------------------------------


def _checked_book(
    prices: NDArray[np.int64], quantities: NDArray[np.int64], entry_order: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    prices = integer_column(prices, "precios", ClearingError)
    quantities = integer_column(quantities, "cantidades", ClearingError)
    entry_order = integer_column(entry_order, "orden de ingreso", ClearingError)
    if not prices.size == quantities.size == entry_order.size:
        raise ClearingError(
            f"precios ({prices.size}), cantidades ({quantities.size}) y orden de ingreso "
            f"({entry_order.size}) deben tener el mismo largo"
        )
    if prices.size == 0:
        return prices, quantities, entry_order
    if int(prices.min()) < 1:
        raise ClearingError("los precios deben ser enteros positivos (centavos por acción)")
    if int(quantities.min()) < 1:
        raise ClearingError("las cantidades deben ser enteros positivos (acciones)")
    ranks = np.sort(entry_order)
    if bool((ranks[1:] == ranks[:-1]).any()):
        raise ClearingError("el orden de ingreso tiene valores repetidos")
    return prices, quantities, entry_order


def _check_parameters(
    offered: int, minimum_price: int, lot: int, mechanism: str, cutoff_price: int | None
) -> None:
    whole_at_least(offered, 1, "la oferta", "acciones", ClearingError)
    whole_at_least(minimum_price, 1, "el precio mínimo", "centavos", ClearingError)
    whole_at_least(lot, 1, "el lote", "acciones", ClearingError)
    if mechanism not in MECHANISMS:
        raise ClearingError(f"mecanismo de adjudicación desconocido: {mechanism!r}")
    if mechanism == "subasta_holandesa":
        if cutoff_price is not None:
            raise ClearingError(
                "el precio de corte solo se usa en la construcción del libro; en la subasta "
                "holandesa el precio resulta de las órdenes"
            )
        return
    if cutoff_price is None:
        raise ClearingError("la construcción del libro necesita el precio de corte del vendedor")
    if not whole(cutoff_price):
        raise ClearingError(
            f"el precio de corte debe ser un número entero de centavos: {cutoff_price!r}"
        )
    if cutoff_price < minimum_price:
        raise ClearingError(
            f"el precio de corte ({pesos(int(cutoff_price))}) no puede ser inferior al precio "
            f"mínimo ({pesos(int(minimum_price))})"
        )
