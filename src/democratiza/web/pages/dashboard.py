"""An offer's page for the office and the auditors: the headline figures first, then the
charts that matter, then the tables, the adjudication's record and the change log.

Why figures first: what a clerk asks of an offer is how much was offered, asked, admissible
and awarded, how many people, and which limits bound; those open the page, exact, with
their words (never a rule's id). While the offer is open the page refreshes itself
(``tablero.js``) unless someone is typing in it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from markupsafe import Markup
from sqlalchemy import select

from democratiza.adjudication.figures import TITLES, FilingFigures
from democratiza.compliance.credit.gate import offer_lines
from democratiza.compliance.ledger import ledger_of
from democratiza.compliance.settlement_figures import settlement_figures, shown_figures
from democratiza.labels import label, rule_cited
from democratiza.money import fixed, group, pesos, share_percent
from democratiza.offers.lifecycle import StoredOffer, events
from democratiza.storage.schema import adjudications
from democratiza.web.api import catalog, views
from democratiza.web.api.offer_figures import OfferFigures, offer_figures
from democratiza.web.pages.charts import bar_chart
from democratiza.web.pages.credit_view import credit_context, typed_line
from democratiza.web.pages.forms import FormState
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


def adjusted(stored: StoredOffer) -> str:
    """The note of an adjusted price: since when, and the initial one (Ley 226 art. 11.2)."""
    if not stored.adjustments:
        return ""
    last = stored.adjustments[-1]
    return (
        f"ajustado desde el {last.effective:%Y-%m-%d} (precio inicial "
        f"{pesos(stored.offer.price_centavos)})"
    )


def headline(stored: StoredOffer, found: OfferFigures) -> list[Figure]:
    offered = stored.offer.values.get("acciones_ofrecidas")
    shares = offered if isinstance(offered, int) and offered > 0 else None
    filed = found.filing

    def times(n: int) -> str:
        return f"{fixed(Fraction(n, shares), 2)} veces la oferta" if shares else ""

    figures = [
        Figure(group(shares) if shares else "—", "acciones ofrecidas"),
        Figure(pesos(stored.price_in_force), "precio por acción", adjusted(stored)),
        Figure(group(filed.recibidas), TITLES["recibidas"]),
        *(
            [
                Figure(group(filed.retiradas), TITLES["retiradas"]),
                Figure(group(filed.vigentes), TITLES["vigentes"]),
            ]
            if filed.retiradas
            else []
        ),
        Figure(group(filed.personas), TITLES["personas"]),
        Figure(group(filed.solicitadas), TITLES["solicitadas"], times(filed.solicitadas)),
        Figure(group(filed.admisibles), TITLES["admisibles"], times(filed.admisibles)),
        Figure(group(filed.aceptadas), TITLES["aceptadas_al_radicar"]),
        Figure(group(filed.reducidas), TITLES["reducidas_al_radicar"]),
        Figure(group(filed.rechazadas), TITLES["rechazadas_al_radicar"]),
    ]
    if found.awarded is not None:
        total, people = found.awarded
        placed = share_percent(Fraction(total, shares)) if shares else "—"
        figures += [
            Figure(group(total), TITLES["adjudicadas"], f"{placed} de la oferta colocado"),
            Figure(group(people), TITLES["adjudicatarios"]),
        ]
    return figures


def binding_limits(stored: StoredOffer, filed: FilingFigures) -> list[str]:
    """The limits that set the quantity at filing, most frequent first, by their decree's
    words (withdrawn acceptances apart: ``adjudication.figures``)."""
    program = stored.program
    return [
        f"{rule_cited(program, rule)}: " + count(n, "aceptación", "aceptaciones")
        for rule, n in filed.limites
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
        ("por_limite", "Límite que determinó la cantidad al radicar", "aceptaciones", "regla"),
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


# The forms of the offer's page, each with what was typed and its errors (``FormState``).
FORMS = ("linea", "serie", "interrupcion", "desierta", "pagos", "liquidacion")


@route(router, "GET", "/oficina/ofertas/{codigo}", "pag.tablero")
def dashboard(
    codigo: str, request: Request, corregir: int | None = Query(None, ge=1, le=10_000)
) -> Response:
    """The offer's page; ``corregir``: the credit line whose values fill the form."""
    forms: dict[str, FormState] = {}
    if corregir is not None:
        with request.app.state.engine.connect() as conn:
            lines = offer_lines(conn, views.offer_or_404(conn, codigo))
        if corregir <= len(lines):
            typed = {**typed_line(lines[corregir - 1].line), "numero": str(corregir)}
            forms["linea"] = FormState(typed)
    return offer_page(request, codigo, forms)


def offer_page(
    request: Request, codigo: str, forms: Mapping[str, FormState], status: int = 200
) -> Response:
    """The offer's page with its forms as given (a refused one: as typed, with its errors)."""
    with request.app.state.engine.connect() as conn:
        stored = views.offer_or_404(conn, codigo)
        found = offer_figures(request.app.state, conn, stored)
        figures = found.intake
        top = headline(stored, found)
        log = events(conn, stored)
        credit = credit_context(conn, stored)
        record = (
            conn.execute(select(adjudications).where(adjudications.c.oferta_id == stored.id))
            .mappings()
            .first()
        )
        settled = settlement_figures(conn, ledger_of(stored))
    if settled is not None:  # after the adjudication: what was awarded, paid, owed, resolved
        top += [Figure(value, name) for value, name in shown_figures(settled)]
    terms = credit.get("plazo_minimo"), credit.get("gracia_minima")
    defaults = {
        "linea": FormState(
            {"plazo_meses": str(terms[0] or ""), "gracia_meses": str(terms[1] or "")}
            | {"capitalizar_gracia": "si"}
        ),
    }
    shown = {name: forms.get(name) or defaults.get(name) or FormState() for name in FORMS}
    context = {
        "oferta": catalog.offer_view(stored),
        "programa": stored.program,
        "principales": top,
        "limites_que_determinaron": binding_limits(stored, found.filing),
        "titulo_limites": TITLES["limites_al_radicar"],
        "cifras": figures,
        "graficas": charts(stored, figures),
        "eventos": log,
        "cifras_calculadas": found.computed_at,
        "credito": credit,
        "formularios": {name: state.context() for name, state in shown.items()},
        "registro": dict(record) if record else None,
        "pagos": settled,
    }
    return render(request, "tablero.html", context, status)
