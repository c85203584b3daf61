"""The phrases both stages' allocation notes share: whole lots, lot remnants, left-over lots.

The notes go into the adjudication record and the reports; a stage names its own
recipients ("aceptante", "orden") and its own order, the wording around them is one.
"""

from __future__ import annotations

from democratiza.money import group


def whole_units(unit: int) -> str:
    """'acciones enteras', or 'lotes completos de 100 acciones'."""
    return "acciones enteras" if unit == 1 else f"lotes completos de {group(unit)} acciones"


def lot_remnants(dropped: int, unsold: int, supply: str) -> str:
    """What whole lots leave out: shares asked that complete no lot, and shares of ``supply``
    ('de la oferta', 'disponibles') that complete none; '' when nothing is left out."""
    text = ""
    if dropped:
        text += f"; {group(dropped)} acciones pedidas que no completan un lote no se adjudican"
    if unsold:
        text += f"; {group(unsold)} acciones {supply} que no completan un lote no se venden"
    return text


def left_over_note(count: int, unit: int, recipients: str, order: str) -> str:
    """The note on the lots left by the floors, handed out one at a time.

    ``recipients`` says who never gets two and who may get one ('al mismo aceptante, entre
    quienes aún no reciben toda su cantidad'); ``order``, in which order they get them.
    """
    if unit == 1:
        what, one_by_one = ("acción" if count == 1 else "acciones"), "de una en una"
    else:
        lots_word = "lote" if count == 1 else "lotes"
        what, one_by_one = f"{lots_word} de {group(unit)} acciones", "de uno en uno"
    return (
        f"Residuo del redondeo: {group(count)} {what}. Se reparte {one_by_one}, nunca dos "
        f"{recipients}, {order}."
    )
