"""An offer's page for the office and the auditors: the headline figures first, then the
charts that matter, then the tables, the adjudication's record and the change log.

Why figures first: what a clerk asks of an offer is how much was offered, asked, admissible
and awarded, how many people, and which limits bound; those open the page, exact, with
their words (never a rule's id). While the offer is open the page refreshes itself
(``tablero.js``) unless someone is typing in it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from markupsafe import Markup
from sqlalchemy import Connection, case, func, select

from democratiza.labels import label, rule_cited
from democratiza.money import fixed, group, pesos, share_percent
from democratiza.offers.lifecycle import StoredOffer, events
from democratiza.storage.schema import acceptances, adjudications, awards
from democratiza.web.api import catalog, views
from democratiza.web.pages.charts import bar_chart
from democratiza.web.pages.credit_lines import credit_context
from democratiza.web.pages.templating import render
from democratiza.web.security.access import route
from democratiza.words import count

router = APIRouter(include_in_schema=False)


@dataclass(frozen=True)
class Figure:
    """One headline figure: its value as read, what it is, and an optional note."""

    value: str
    name: str
    note: str = ""


def _demand(conn: Connection, stored: StoredOffer) -> dict[str, int]:
    """The current acceptances not withdrawn: how many, how many people, asked, admissible."""
    a = acceptances.c
    live = (a.oferta_id == stored.id) & a.vigente & (a.estado != "retirada")
    people = select(a.tipo_identificacion, a.numero_identificacion).where(live).distinct()
    row = conn.execute(
        select(
            func.count(),
            func.coalesce(func.sum(a.cantidad), 0),
            func.coalesce(func.sum(a.cantidad_permitida), 0),
            func.coalesce(func.sum(case((a.decision == "rechazada", 1), else_=0)), 0),
        ).where(live)
    ).one()
    persons = conn.execute(select(func.count()).select_from(people.subquery())).scalar_one()
    return {
        "aceptaciones": int(row[0]),
        "solicitadas": int(row[1]),
        "admisibles": int(row[2]),
        "rechazadas": int(row[3]),
        "personas": int(persons),
    }


def _awarded(conn: Connection, stored: StoredOffer) -> tuple[int, int] | None:
    """Shares awarded and new shareholders (people with shares), once adjudicated."""
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


def adjusted(stored: StoredOffer) -> str:
    """The note of an adjusted price: since when, and the initial one (Ley 226 art. 11.2)."""
    if not stored.adjustments:
        return ""
    last = stored.adjustments[-1]
    return (
        f"ajustado desde el {last.effective:%Y-%m-%d} (precio inicial "
        f"{pesos(stored.offer.price_centavos)})"
    )


def headline(conn: Connection, stored: StoredOffer) -> list[Figure]:
    offered = stored.offer.values.get("acciones_ofrecidas")
    shares = offered if isinstance(offered, int) and offered > 0 else None
    demand = _demand(conn, stored)

    def times(n: int) -> str:
        return f"{fixed(Fraction(n, shares), 2)} veces la oferta" if shares else ""

    figures = [
        Figure(group(shares) if shares else "—", "acciones ofrecidas"),
        Figure(pesos(stored.price_in_force), "precio por acción", adjusted(stored)),
        Figure(group(demand["aceptaciones"]), "aceptaciones vigentes"),
        Figure(group(demand["personas"]), "personas que aceptaron"),
        Figure(group(demand["solicitadas"]), "acciones solicitadas", times(demand["solicitadas"])),
        Figure(
            group(demand["admisibles"]),
            "acciones admisibles (permitidas por los límites)",
            times(demand["admisibles"]),
        ),
        Figure(group(demand["rechazadas"]), "aceptaciones rechazadas"),
    ]
    awarded = _awarded(conn, stored)
    if awarded is not None:
        total, people = awarded
        placed = share_percent(Fraction(total, shares)) if shares else "—"
        figures += [
            Figure(group(total), "acciones adjudicadas", f"{placed} de la oferta colocado"),
            Figure(group(people), "nuevos accionistas"),
        ]
    return figures


def binding_limits(stored: StoredOffer, figures: dict[str, list[dict[str, Any]]]) -> list[str]:
    """The limits that set the quantity, most frequent first, by their decree's words."""
    rows = [r for r in figures["por_limite"] if r["clave"] != "ninguno"]
    rows.sort(key=lambda r: (-r["aceptaciones"], r["clave"]))
    program = stored.program
    return [
        f"{rule_cited(program, r['clave'])}: "
        + count(r["aceptaciones"], "aceptación", "aceptaciones")
        for r in rows
    ]


def charts(stored: StoredOffer, figures: dict[str, list[dict[str, Any]]]) -> list[Markup]:
    """The intake's charts, each bar named by its word: a category, a broker, a limit."""
    program = stored.program

    def name(key: str, kind: str) -> str:
        if kind == "regla":
            return "ningún límite" if key == "ninguno" else label("regla", key, program)
        return label(kind, key) if kind else key

    rows = [
        ("por_categoria", "Acciones solicitadas por categoría", "acciones", "categoria"),
        ("por_limite", "Límite que determinó la cantidad", "aceptaciones", "regla"),
        ("por_comisionista", "Aceptaciones por comisionista", "aceptaciones", ""),
        ("por_dia", "Aceptaciones por día de radicación", "aceptaciones", ""),
    ]
    nouns = {"acciones": ("acción", "acciones"), "aceptaciones": ("aceptación", "aceptaciones")}
    drawn = []
    for key, title, unit, kind in rows:
        measure = "solicitadas" if unit == "acciones" else "aceptaciones"
        bars = [(name(r["clave"], kind), r[measure]) for r in figures[key]]
        drawn.append(bar_chart(title, bars, *nouns[unit]))
    return drawn


@route(router, "GET", "/oficina/ofertas/{codigo}", "pag.tablero")
def dashboard(codigo: str, request: Request) -> Response:
    with request.app.state.engine.connect() as conn:
        stored = views.offer_or_404(conn, codigo)
        figures = views.intake_figures(conn, stored)
        top = headline(conn, stored)
        log = events(conn, stored)
        credit = credit_context(conn, stored)
        record = (
            conn.execute(select(adjudications).where(adjudications.c.oferta_id == stored.id))
            .mappings()
            .first()
        )
    context = {
        "oferta": catalog.offer_view(stored),
        "programa": stored.program,
        "principales": top,
        "limites_que_determinaron": binding_limits(stored, figures),
        "cifras": figures,
        "graficas": charts(stored, figures),
        "eventos": log,
        "credito": credit,
        "registro": dict(record) if record else None,
    }
    return render(request, "tablero.html", context)
