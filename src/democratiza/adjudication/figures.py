"""An offer's headline figures, each defined once, for every place that shows them.

Why one module: the same offer showed 215 reducidas on one page and 247 in the report, 55
rechazadas in one tile and 56 in another, 2.999 vigentes against 3.000 recibidas. Each was
right for a different question, under the same title. Here each figure has one definition
and one title that says which question it answers; the CLI (``oferta ver``), the office's
page, the API, the adjudication report and the public package read them from here.

Two moments legitimately differ, and their titles say so:

- **al radicar**: the decision each acceptance got when it was filed, alone (its limits,
  its documents), stored with it (``FilingFigures``, counted in the database);
- **en la adjudicación**: after the person's other filings used part of the same limit
  (``rules.person.per_person``), from the adjudication's results (``AwardFigures``).

And two counts of acceptances: **recibidas** is the current version of every acceptance
received, withdrawn ones included; **vigentes** leaves out those its broker withdrew. A
withdrawn acceptance is stored as rejected with nothing permitted, but it is counted as
**retirada**, never as rechazada.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import polars as pl
from sqlalchemy import ColumnElement, Connection, case, func, select

from democratiza.offers.lifecycle import StoredOffer
from democratiza.storage.schema import acceptances, adjudications, awards
from democratiza.storage.versions import withdrawn_radicados
from democratiza.words import WITHDRAWN

TITLES: dict[str, str] = {
    "recibidas": "aceptaciones recibidas (incluidas las retiradas)",
    "retiradas": "aceptaciones retiradas por su comisionista",
    "vigentes": "aceptaciones vigentes (sin las retiradas)",
    "personas": "personas que aceptaron",
    "solicitadas": "acciones solicitadas",
    "admisibles": "acciones admisibles al radicar (permitidas por los límites)",
    "aceptadas_al_radicar": "aceptadas al radicar",
    "reducidas_al_radicar": "reducidas al radicar",
    "rechazadas_al_radicar": "rechazadas al radicar",
    "limites_al_radicar": "Límites que determinaron la cantidad al radicar",
    "aceptadas_adjudicacion": "aceptadas en la adjudicación",
    "reducidas_adjudicacion": (
        "reducidas en la adjudicación (con las otras radicaciones de la persona)"
    ),
    "rechazadas_adjudicacion": "rechazadas en la adjudicación (sin las retiradas)",
    "limites_adjudicacion": (
        "Límites que determinaron la cantidad en la adjudicación (con las otras "
        "radicaciones de la persona)"
    ),
    "adjudicadas": "acciones adjudicadas",
    "adjudicatarios": "nuevos accionistas",
}


@dataclass(frozen=True)
class FilingFigures:
    """What was received, and each acceptance's decision when it was filed."""

    recibidas: int
    retiradas: int
    personas: int  # distinct (type, number) among the vigentes
    solicitadas: int  # over the vigentes
    admisibles: int  # permitted at filing, over the vigentes
    aceptadas: int
    reducidas: int
    rechazadas: int  # rejected at filing, withdrawn ones apart
    limites: tuple[tuple[str, int], ...]  # (rule id, acceptances it bound), most first

    @property
    def vigentes(self) -> int:
        return self.recibidas - self.retiradas


@dataclass(frozen=True)
class AwardFigures:
    """Each acceptance's decision in the adjudication, and what was awarded."""

    aceptadas: int
    reducidas: int
    rechazadas: int  # withdrawn ones apart
    retiradas: int
    limites: tuple[tuple[str, int], ...]  # (rule id, acceptances it bound), most first
    adjudicadas: int
    adjudicatarios: int  # distinct persons with shares


def filing_figures(conn: Connection, stored: StoredOffer) -> FilingFigures:
    """Counted in the database through the offer's acceptances, one query each."""
    a = acceptances.c
    current = (a.oferta_id == stored.id) & a.vigente
    live = current & (a.estado != WITHDRAWN)

    def n(decision: str) -> ColumnElement[int]:
        return func.coalesce(func.sum(case((live & (a.decision == decision), 1), else_=0)), 0)

    row = conn.execute(
        select(
            func.count(),
            func.coalesce(func.sum(case((a.estado == WITHDRAWN, 1), else_=0)), 0),
            func.coalesce(func.sum(case((a.estado != WITHDRAWN, a.cantidad), else_=0)), 0),
            func.coalesce(
                func.sum(case((a.estado != WITHDRAWN, a.cantidad_permitida), else_=0)), 0
            ),
            n("aceptada"),
            n("reducida"),
            n("rechazada"),
        ).where(current)
    ).one()
    people = select(a.tipo_identificacion, a.numero_identificacion).where(live).distinct()
    persons = conn.execute(select(func.count()).select_from(people.subquery())).scalar_one()
    bound = conn.execute(
        select(a.regla_limitante, func.count())
        .where(live, a.regla_limitante.is_not(None))
        .group_by(a.regla_limitante)
    ).all()
    return FilingFigures(
        recibidas=int(row[0]),
        retiradas=int(row[1]),
        personas=int(persons),
        solicitadas=int(row[2]),
        admisibles=int(row[3]),
        aceptadas=int(row[4]),
        reducidas=int(row[5]),
        rechazadas=int(row[6]),
        limites=_most_first((str(r), int(k)) for r, k in bound),
    )


def withdrawn(conn: Connection, stored: StoredOffer) -> pl.DataFrame:
    """radicado → retirada (True) of the acceptances their brokers withdrew, to join to an
    adjudication's results, which keep them as rejected with nothing permitted."""
    names = withdrawn_radicados(conn, acceptances, {"oferta_id": stored.id})
    return pl.DataFrame(
        {"radicado": names, "retirada": [True] * len(names)},
        schema={"radicado": pl.String, "retirada": pl.Boolean},
    )


def with_withdrawn(results: pl.DataFrame, gone: pl.DataFrame) -> pl.DataFrame:
    """The results with a ``retirada`` column (False where not withdrawn)."""
    if "retirada" in results.columns:
        return results
    joined = results.join(gone, on="radicado", how="left", maintain_order="left")
    return joined.with_columns(pl.col("retirada").fill_null(False))


def not_withdrawn(results: pl.DataFrame) -> pl.Expr:
    """True for the rows not withdrawn (all, where the frame has no ``retirada``)."""
    return ~pl.col("retirada") if "retirada" in results.columns else pl.lit(True)


def decision_counts(results: pl.DataFrame) -> list[pl.Expr]:
    """The one count of each decision in the adjudication (``aceptada``, ``reducida``,
    ``rechazada``: withdrawn ones apart) and of the withdrawn (``retiradas``)."""
    live = not_withdrawn(results)
    return [
        *((live & (pl.col("decision") == d)).sum().alias(d) for d in DECISIONS),
        (~live).sum().alias("retiradas"),
    ]


def award_figures(results: pl.DataFrame) -> AwardFigures:
    """From an adjudication's results (``adjudication.record``, or any frame with its
    ``decision``, ``regla_limitante``, ``adjudicada`` and the person's identification), with
    ``retirada`` where known (``with_withdrawn``; without it none is counted withdrawn)."""
    live = not_withdrawn(results)
    counts = results.select(
        *decision_counts(results), pl.col("adjudicada").sum().alias("adjudicadas")
    ).row(0, named=True)
    identity = [c for c in ("tipo_identificacion", "numero_identificacion") if c in results]
    owners = results.filter(pl.col("adjudicada") > 0).select(identity).unique().height
    bound = (
        results.filter(live & pl.col("regla_limitante").is_not_null())
        .group_by("regla_limitante")
        .len()
    )
    return AwardFigures(
        aceptadas=int(counts["aceptada"] or 0),
        reducidas=int(counts["reducida"] or 0),
        rechazadas=int(counts["rechazada"] or 0),
        retiradas=int(counts["retiradas"] or 0),
        limites=_most_first((str(r), int(k)) for r, k in bound.iter_rows()),
        adjudicadas=int(counts["adjudicadas"] or 0),
        adjudicatarios=owners,
    )


def awarded_in_database(conn: Connection, stored: StoredOffer) -> tuple[int, int] | None:
    """Shares awarded and new shareholders (people with shares), once adjudicated: the same
    as ``award_figures``'s ``adjudicadas`` and ``adjudicatarios``, counted in the database."""
    done = conn.execute(
        select(adjudications.c.id).where(adjudications.c.oferta_id == stored.id)
    ).scalar_one_or_none()
    if done is None:
        return None
    a, w = acceptances.c, awards.c
    joined = awards.join(acceptances, a.id == w.aceptacion_id)
    total = conn.execute(
        select(func.coalesce(func.sum(w.adjudicada), 0)).where(w.adjudicacion_id == done)
    ).scalar_one()
    owners = (
        select(a.tipo_identificacion, a.numero_identificacion)
        .select_from(joined)
        .where(w.adjudicacion_id == done, w.adjudicada > 0)
        .distinct()
        .subquery()
    )
    people = conn.execute(select(func.count()).select_from(owners)).scalar_one()
    return int(total), int(people)


DECISIONS = ("aceptada", "reducida", "rechazada")


def _most_first(pairs: Iterable[tuple[str, int]]) -> tuple[tuple[str, int], ...]:
    """Most acceptances first; at equal counts by the rule's id (deterministic)."""
    return tuple(sorted(pairs, key=lambda p: (-p[1], p[0])))
