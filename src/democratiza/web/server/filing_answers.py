"""A filing's answer as the API sends it, and the intake's refusal as the API's error.

Why a module of its own, below the HTTP filing service: a batch is filed in the bulk
lane's process (``bulk_lane.file_batch_here``) and a single acceptance by the collecting
thread of the group commit, and both answer the broker in this one shape: every row's
decision and radicado, the first rows not accepted explained; a refusal as the API's
error, with the intake's errors under the name the broker gave the file.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, with_config
from typing_extensions import TypedDict

from democratiza.filing.reasons import reason_text
from democratiza.filing.store import BatchResult
from democratiza.offers.lifecycle import OfferError
from democratiza.rules.explain import Explanation, explainer_for
from democratiza.storage.receipts import StorageError
from democratiza.tables.errors import InputRejected
from democratiza.web.errors import MAX_ITEMS, WebError, refused, rejected_file

# What the intake raises to refuse a filing (anything else is a failure, not a refusal).
REFUSALS = (InputRejected, OfferError, StorageError)


@with_config(ConfigDict(extra="forbid"))
class RowDecision(TypedDict):
    """Una fila radicada: su radicado, la decisión al recibirla y, en las primeras no
    aceptadas, por qué (el límite que la determinó con su cuenta, o las causas)."""

    radicado: str
    referencia: str
    decision: str
    cantidad_permitida: int
    explicacion: str | None


class BatchAnswer(BaseModel):
    """La respuesta de una radicación: la decisión y el radicado de cada fila, las primeras
    no aceptadas explicadas."""

    detalle: str
    creado: bool
    numero_lote: int  # the broker's own count of its batches in the offer
    filas: int
    por_decision: dict[str, int]
    resultado: list[RowDecision]


def answer_json(answer: dict[str, Any]) -> bytes:
    """The answer checked against ``BatchAnswer`` and written as JSON."""
    return BatchAnswer.model_validate(answer).model_dump_json().encode()


def filing_refusal(
    exc: InputRejected | OfferError | StorageError, shown: str, hidden: str
) -> WebError:
    """The intake's refusal as the API's error (422 with the rows, 404 or 409)."""
    if isinstance(exc, InputRejected):
        return rejected_file(exc, shown, hidden)
    return refused(exc)


def batch_answer(result: BatchResult) -> dict[str, Any]:
    """The batch's rows with decision and radicado; the first rows not accepted, explained."""
    decisions = result.decisions
    counts = Counter(decisions["decision"].to_list())
    explanations: Iterable[Explanation | None] = ()
    if result.explanations is not None:
        explanations = result.explanations
    elif result.evaluated is not None:
        compiled, results, frame = result.evaluated
        explanations = explainer_for(compiled).explain_not_accepted(results, frame, MAX_ITEMS)
    explained: list[str | None] = [None] * decisions.height
    shown = 0
    for i, explanation in enumerate(explanations):
        if explanation is not None and explanation.decision != "aceptada" and shown < MAX_ITEMS:
            explained[i] = reason_text(explanation)
            shown += 1
    rows = decisions.to_dicts()
    for row, text in zip(rows, explained, strict=True):
        row["explicacion"] = text
    return {
        "detalle": result.message,
        "creado": result.created,
        "numero_lote": result.number,
        "filas": result.rows,
        "por_decision": {str(d): n for d, n in sorted(counts.items())},
        "resultado": rows,
    }
