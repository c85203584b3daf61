"""Public descriptions of programs and offers: what the aviso de oferta tells anyone.

Why separate: the API and the pages show the same facts, each with its citation, and none
of them is personal data, so they are open to the public.
"""

from __future__ import annotations

from datetime import date
from fractions import Fraction

from pydantic import BaseModel, Field
from sqlalchemy import Connection, select

from democratiza.money import pesos
from democratiza.offers.lifecycle import StoredOffer, load_offer
from democratiza.programs.loader import ProgramFileError, bundled_program_ids, load_program
from democratiza.programs.parameters import PARAMETERS, make_offer_value, shown
from democratiza.programs.schema import LimitRule, Program
from democratiza.rules.caps import fixed_cap
from democratiza.rules.explain import cite
from democratiza.stages.lifecycle import ANNOUNCED, stage_name
from democratiza.storage.schema import offers as offer_table
from democratiza.storage.schema import stages
from democratiza.web.api.views import offer_list
from democratiza.web.errors import NotFound
from democratiza.words import count


class CategoryView(BaseModel):
    id: str
    nombre: str


class LimitView(BaseModel):
    id: str
    nombre: str
    cita: str
    acciones: str | None = None  # a cap the same for everyone, in shares at the price in force


class PriceView(BaseModel):
    precio: str
    desde: str
    fundamento: str


class ProgramView(BaseModel):
    id: str
    nombre: str
    version: int
    vendedor: str
    emisor: str
    parametros: dict[str, str]
    categorias: list[CategoryView]
    limites: list[LimitView]
    metodo_adjudicacion: str


class OfferView(BaseModel):
    codigo: str
    programa: str
    programa_nombre: str
    estado: str
    parametros: dict[str, str]
    precio_vigente: str = Field(
        description="El precio al que se evalúa lo que se radique ahora: el ajustado tras "
        "una interrupción (Ley 226 art. 11 num. 2), si lo hubo; el de parametros si no"
    )
    categorias: list[CategoryView]
    limites: list[LimitView]
    ajustes_precio: list[PriceView] = Field(
        default_factory=list,
        description="cada precio ajustado tras una interrupción, desde cuándo y su fundamento",
    )


class OfferRow(BaseModel):
    codigo: str
    programa: str
    estado: str
    creada_en: str


def shown_value(name: str, value: int | date | Fraction) -> str:
    """A parameter as a person reads it: $ 2.018; 40.000.000; 2018-02-26."""
    return shown(name, value)


def program_or_404(program_id: str) -> Program:
    if program_id not in bundled_program_ids():
        raise NotFound(f"No existe el programa '{program_id}'.")
    try:
        return load_program(program_id)
    except ProgramFileError:
        raise NotFound(f"No existe el programa '{program_id}'.") from None


def _limits(program: Program, stored: StoredOffer | None = None) -> list[LimitView]:
    """Each limit by its name and article; for an offer, a cap that is the same number for
    everyone (in shares, pesos, salaries or a share of the offer) with that number, at the
    price a filing received now pays."""
    return [
        LimitView(
            id=r.id,
            nombre=r.name,
            cita=cite(program, r.citation),
            acciones=_cap_shares(r, stored),
        )
        for r in program.limits
    ]


def _cap_shares(rule: LimitRule, stored: StoredOffer | None) -> str | None:
    if stored is None or rule.base is not None:
        return None
    try:
        shares = fixed_cap(rule, stored.filing_offer).shares
    except (AssertionError, KeyError, TypeError, ValueError):  # a parameter not yet set
        return None
    return count(shares, "acción", "acciones")


def _categories(program: Program) -> list[CategoryView]:
    return [CategoryView(id=c.id, nombre=c.name) for c in program.categories]


def program_view(program: Program) -> ProgramView:
    params = {}
    for name, param in program.parameters.items():
        if param.value is not None and name in PARAMETERS:
            params[name] = shown_value(name, make_offer_value(name, param.value))
        else:
            params[name] = "(lo fija la oferta)"
    return ProgramView(
        id=program.id,
        nombre=program.name,
        version=program.version,
        vendedor=program.seller.value,
        emisor=program.issuer.value,
        parametros=params,
        categorias=_categories(program),
        limites=_limits(program),
        metodo_adjudicacion=program.allocation.method,
    )


def all_programs() -> list[ProgramView]:
    return [program_view(load_program(p)) for p in bundled_program_ids()]


def offer_view(stored: StoredOffer, state: str | None = None) -> OfferView:
    program = stored.program
    return OfferView(
        codigo=stored.code,
        programa=program.id,
        programa_nombre=program.name,
        estado=state or stored.state,
        parametros={k: shown_value(k, v) for k, v in sorted(stored.offer.values.items())},
        precio_vigente=shown_value("precio", stored.price_in_force),
        categorias=_categories(program),
        limites=_limits(program, stored),
        ajustes_precio=[
            PriceView(precio=pesos(a.price), desde=f"{a.effective:%Y-%m-%d}", fundamento=a.basis)
            for a in stored.adjustments
        ],
    )


def offers(conn: Connection) -> list[OfferRow]:
    return [OfferRow(**{k: str(v) for k, v in row.items()}) for row in offer_list(conn)]


class PublicStage(BaseModel):
    """A later stage whose aviso is public (open or later): what the public pages link to."""

    codigo: str
    nombre: str  # "Segunda Fase", "Etapa Subsecuente 1"
    oferta: str  # the Primera Etapa's offer
    estado: str


def announced_stages(conn: Connection, offer_id: int | None = None) -> list[PublicStage]:
    """The later stages whose aviso is public (of one offer, or of all), offer by offer, in
    their order: each has its notice page (``/etapas/{etapa}``)."""
    return _stages(conn, offer_id, ANNOUNCED)


def published_stages(conn: Connection, offer_id: int | None = None) -> list[PublicStage]:
    """The later stages already published: their statistics, their package and their orders'
    results are public."""
    return _stages(conn, offer_id, ("publicada",))


def _stages(conn: Connection, offer_id: int | None, states: tuple[str, ...]) -> list[PublicStage]:
    query = (
        select(
            stages.c.codigo, stages.c.numero, offer_table.c.codigo.label("oferta"), stages.c.estado
        )
        .join(offer_table, offer_table.c.id == stages.c.oferta_id)
        .where(stages.c.estado.in_(states))
        .order_by(stages.c.oferta_id, stages.c.numero)
    )
    if offer_id is not None:
        query = query.where(stages.c.oferta_id == offer_id)
    programs: dict[str, Program] = {}  # each offer's program read once, not once per stage
    found = []
    for code, number, offer, state in conn.execute(query).all():
        if offer not in programs:
            programs[offer] = load_offer(conn, offer).program
        name = stage_name(programs[offer], number)
        found.append(PublicStage(codigo=code, nombre=name, oferta=offer, estado=state))
    return found
