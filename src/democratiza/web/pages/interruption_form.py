"""The interruption's form on the offer's page, read field by field (Ley 226 art. 11 num. 2).

Why before the service: the service refuses an adjustment with every reason at once, as the
command line prints them (with its options); the page wants each under its field. The
reasons are the service's own (``offers.prices.checked_adjustment``, through
``lifecycle.adjustment_for``), each with the field it concerns; only what the service does
not read (an empty reason, a date that is not one) is checked here.
"""

from __future__ import annotations

from datetime import date

from democratiza.offers.lifecycle import StoredOffer, adjustment_for
from democratiza.offers.prices import AdjustmentRefused, AdjustmentRequest
from democratiza.web.errors import ErrorItem

INTERRUPTION_FIELDS = (
    "motivo",
    "precio_nuevo",
    "fundamento",
    "vigente_desde",
    "aceptaciones_anteriores",
    "fundamento_anteriores",
)


def typed_day(text: str) -> date | None:
    """A date typed AAAA-MM-DD; empty or unreadable: None (``form_problems`` says which)."""
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        return None


def form_problems(typed: dict[str, str]) -> list[ErrorItem]:
    """What the form lacks before the service can read it."""
    problems = []
    if not typed.get("motivo", "").strip():
        problems.append(ErrorItem(columna="motivo", mensaje="escriba el motivo de la interrupción"))
    day = typed.get("vigente_desde", "").strip()
    if day and typed_day(day) is None:
        problems.append(
            ErrorItem(columna="vigente_desde", mensaje="se espera una fecha AAAA-MM-DD")
        )
    return problems


def requested(typed: dict[str, str]) -> AdjustmentRequest | None:
    """The adjustment asked for, if a price was typed."""
    price = typed.get("precio_nuevo", "").strip()
    if not price:
        return None
    return AdjustmentRequest(
        price[:40],
        typed.get("fundamento", ""),
        typed.get("aceptaciones_anteriores", ""),
        typed.get("fundamento_anteriores", ""),
        typed_day(typed.get("vigente_desde", "")),
    )


def adjustment_problems(stored: StoredOffer, asked: AdjustmentRequest) -> list[ErrorItem]:
    """The service's reasons to refuse the adjustment, each under its field."""
    try:
        adjustment_for(stored, asked)
    except AdjustmentRefused as exc:
        return [ErrorItem(columna=p.field, mensaje=p.on_field) for p in exc.problems]
    return []
