"""Why each stored acceptance got its decision at filing, in words, long after it was filed.

Why: a broker read the reason of each row only in the answer to its batch; "Mis
aceptaciones" then showed the decision without it, a batch sent again answered with an empty
"Por qué", and the public result of a rejected filing said only "su comisionista le
informa". The reasons are not stored (a million sentences), they are written again: each
stored row is evaluated again, typed as it was filed, at the price it was evaluated at, with
the very engine that decided it, and explained (``rules.explain``). A row the rules would now
decide otherwise (the offer's parameters changed since) gets no reason rather than a wrong
one; a withdrawn row's reason is its withdrawal.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl
from sqlalchemy import Connection, select

from democratiza.filing.compiled import compiled_program
from democratiza.filing.reevaluation import as_filed
from democratiza.offers.lifecycle import StoredOffer
from democratiza.rules.explain import Explanation, explainer_for
from democratiza.storage.bulk import wire_type
from democratiza.storage.database import read_frame
from democratiza.storage.schema import acceptances

WITHDRAWN = "retirada"
# Rows reported in one answer to a batch (its errors, or the reasons of its rows not
# accepted); the total says how many there were. The web's answers show as many
# (``web.errors.MAX_ITEMS`` is this figure); explaining more would be work nobody reads.
EXPLAINED_ROWS = 1_000


def reason_text(explanation: Explanation) -> str:
    """The one sentence a broker reads: the summary (which names the binding limit with its
    arithmetic) and, for a rejection, each of its causes."""
    return " ".join([explanation.summary, *explanation.causes])


def withdrawal_text(why: str | None) -> str:
    return "Retirada por su comisionista" + (f": {why}." if why else ".")


def stored_explanations(
    conn: Connection, stored: StoredOffer, radicados: Sequence[str]
) -> dict[str, Explanation]:
    """radicado → the explanation of its current version's decision (withdrawn ones and
    those the rules would now decide otherwise are left out)."""
    if not radicados:
        return {}
    a = acceptances.c
    statement = select(acceptances).where(
        a.oferta_id == stored.id,
        a.vigente,
        a.estado != WITHDRAWN,
        a.radicado.in_(sorted(set(radicados))),
    )
    schema = {c.name: wire_type(c.type) for c in acceptances.columns}
    rows = read_frame(conn, statement.order_by(a.id), schema)
    found: dict[str, Explanation] = {}
    initial = stored.offer.price_centavos
    for (price,), group in rows.group_by("precio", maintain_order=True):
        compiled = compiled_program(stored, initial if price is None else int(str(price)))
        filed = as_filed(group)
        results = compiled.evaluate(filed)
        same = (results["decision"].cast(pl.String) == group["decision"]) & (
            results["cantidad_permitida"].cast(pl.Int64) == group["cantidad_permitida"]
        )
        explained = explainer_for(compiled).explain_all(results, filed)
        for radicado, kept, explanation in zip(group["radicado"], same, explained, strict=True):
            if kept:
                found[str(radicado)] = explanation
    return found


def stored_reasons(
    conn: Connection, stored: StoredOffer, rows: Sequence[dict[str, object]]
) -> dict[str, str]:
    """radicado → the reason a person reads, for rows of ``views.list_acceptances`` (each
    with radicado, estado and motivo)."""
    explained = stored_explanations(conn, stored, [str(r["radicado"]) for r in rows])
    reasons = {}
    for row in rows:
        radicado = str(row["radicado"])
        if row.get("estado") == WITHDRAWN:
            reasons[radicado] = withdrawal_text(str(row.get("motivo") or "") or None)
        elif radicado in explained:
            reasons[radicado] = reason_text(explained[radicado])
    return reasons


def resent_explanations(
    conn: Connection, stored: StoredOffer, decisions: pl.DataFrame, limit: int
) -> tuple[Explanation | None, ...]:
    """For a batch received before and sent again: each row's explanation, as its first
    answer gave them (the first ``limit`` rows not accepted; None for the others)."""
    wanted = decisions.filter(pl.col("decision").cast(pl.String) != "aceptada").head(limit)
    found = stored_explanations(conn, stored, wanted["radicado"].cast(pl.String).to_list())
    chosen = set(wanted["radicado"].cast(pl.String).to_list())
    return tuple(
        found.get(r) if r in chosen else None
        for r in decisions["radicado"].cast(pl.String).to_list()
    )
