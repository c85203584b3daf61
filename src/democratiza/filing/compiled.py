"""An offer's compiled rules, kept while its parameters stay the same.

Apart from ``batches`` so that every module of the filing layer (batches, single
acceptances, reasons, reevaluation, resends) reuses the same compiled program without
importing one another in a circle: ``reasons`` explains what ``batches`` answers.
"""

from __future__ import annotations

from democratiza.offers.lifecycle import StoredOffer
from democratiza.rules.engine import CompiledProgram

_COMPILED: dict[tuple[int, int, tuple[tuple[str, object], ...]], CompiledProgram] = {}
_COMPILED_MAX = 64


def compiled_program(stored: StoredOffer, price: int | None = None) -> CompiledProgram:
    """The offer's compiled rules, reused while the offer's parameters stay the same.

    Why: a compiled program keeps its checks and bases once built; an offer receives many
    batches (and many single acceptances), and its parameters change only by interruption,
    which gives a new key here. Programs are immutable, and one text gives one program object
    (``programs.loader``).
    """
    # At the price in force (Ley 226 art. 11 num. 2), or at the price a batch was received at.
    offer = stored.filing_offer if price is None else stored.offer_at(price)
    key = (stored.id, id(stored.program), tuple(sorted(offer.values.items())))
    compiled = _COMPILED.get(key)
    if compiled is None or compiled.offer.program is not stored.program:
        if len(_COMPILED) >= _COMPILED_MAX:
            _COMPILED.clear()
        compiled = _COMPILED[key] = CompiledProgram(offer)
    return compiled
