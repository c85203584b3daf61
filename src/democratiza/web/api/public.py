"""The public API: programs, offer notices, the calculator and one's own published result.

Why public: the aviso de oferta and the decree's limits are public; the calculator lets
anyone ask what they could buy; the result lookup needs the radicado *and* the
identification, so it reveals nothing about anyone else (Ley 1581 de 2012). The same lookup
answers a Primera Etapa acceptance and a later stage's order: an order's radicado starts
with ``O-`` (``storage.radicados``), and then ``oferta`` names the stage.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from democratiza.programs.parameters import Offer, OfferParameterError, make_offer
from democratiza.storage.radicados import is_order
from democratiza.web.api import catalog
from democratiza.web.api.calculator import CalculatorInput, CalculatorResult, calculate
from democratiza.web.api.views import lookup_order_result, lookup_result, offer_or_404
from democratiza.web.errors import ERROR_RESPONSES, ErrorItem, NotFound, Unprocessable
from democratiza.web.security.access import current, hides_draft, route

router = APIRouter(prefix="/api", tags=["público"], responses=ERROR_RESPONSES)


class ResultQuery(BaseModel):
    oferta: str = Field(
        max_length=80,
        description="la oferta (Primera Etapa) o, para una orden (radicado O-…), la etapa",
    )
    radicado: str = Field(max_length=40)
    tipo_identificacion: str = Field(max_length=10)
    numero_identificacion: str = Field(max_length=40)


class ResultStep(BaseModel):
    paso: str
    acciones: int
    por_que: str


class ResultAnswer(BaseModel):
    oferta: str
    radicado: str
    cantidad: int
    cantidad_permitida: int
    decision: str
    regla_limitante: str | None
    regla_limitante_nombre: str | None = None
    regla_limitante_cita: str | None = None
    consumido_por: str | None = None  # the person's filings that used the limit before it
    cantidad_persona: int
    adjudicada: int
    seudonimo: str = Field(description="el seudónimo con que el paquete público la nombra")
    precio: int = Field(
        description="Precio por acción a pagar, en centavos (el ajustado si lo hubo)"
    )
    retirada: bool = Field(False, description="retirada por su comisionista antes del cierre")
    pasos: list[ResultStep] = Field(
        default_factory=list, description="cada paso que cambió la cantidad, con su regla"
    )


class OrderResultAnswer(BaseModel):
    """Una orden de una etapa siguiente: lo que pidió, su decisión y lo que se le asignó."""

    etapa: str
    etapa_nombre: str
    oferta: str = Field(description="la oferta de la Primera Etapa de la que viene la etapa")
    radicado: str
    decision: str = Field(description="valida o rechazada (al radicarla)")
    motivo: str | None = Field(description="por qué se rechazó, con su fuente")
    cantidad: int = Field(description="acciones pedidas")
    precio: int = Field(description="precio por acción ofrecido, en centavos")
    precio_adjudicacion: int = Field(description="el precio único de la etapa, en centavos")
    asignada: int = Field(description="acciones asignadas al precio único")
    valor_a_pagar: int = Field(description="asignadas × precio único, en centavos")
    seudonimo: str = Field(description="el seudónimo con que el paquete de la etapa la nombra")


@route(router, "GET", "/programas", "api.programas")
def programs() -> list[catalog.ProgramView]:
    """Los programas con sus parámetros, categorías y límites, cada uno con su cita."""
    return catalog.all_programs()


@route(router, "GET", "/programas/{programa}", "api.programa")
def program(programa: str) -> catalog.ProgramView:
    """Un programa."""
    return catalog.program_view(catalog.program_or_404(programa))


@route(router, "GET", "/ofertas", "api.ofertas")
def offers(request: Request) -> list[catalog.OfferRow]:
    """Las ofertas y su estado."""
    with request.app.state.engine.connect() as conn:
        found = catalog.offers(conn)
    who = current(request)
    return [o for o in found if not hides_draft(who, o.estado)]


@route(router, "GET", "/ofertas/{codigo}", "api.oferta")
def offer(codigo: str, request: Request) -> catalog.OfferView:
    """El aviso de una oferta: programa, parámetros, categorías y límites."""
    with request.app.state.engine.connect() as conn:
        stored = offer_or_404(conn, codigo)
        if hides_draft(current(request), stored.state):
            raise NotFound(f"No existe la oferta '{codigo}'.")
        return catalog.offer_view(stored)


def resolve_offer(request: Request, data: CalculatorInput) -> Offer:
    if data.oferta:
        with request.app.state.engine.connect() as conn:
            return offer_or_404(conn, data.oferta).filing_offer  # at the price in force
    if not data.programa:
        raise Unprocessable(
            "Indique el programa o la oferta.",
            [ErrorItem(columna="programa", mensaje="falta el programa o la oferta")],
        )
    try:
        return make_offer(catalog.program_or_404(data.programa), {})
    except OfferParameterError as exc:
        raise Unprocessable(
            "Este programa necesita parámetros que fija la oferta; elija una oferta.",
            [ErrorItem(mensaje=m) for m in exc.messages],
        ) from None


@route(router, "POST", "/calculadora", "api.calculadora")
def calculator(data: CalculatorInput, request: Request) -> CalculatorResult:
    """¿Cuántas acciones puedo comprar? Cada límite, el que determina el máximo y su artículo."""
    return calculate(resolve_offer(request, data), data)


@route(router, "POST", "/resultados/consulta", "api.resultado")
def result(data: ResultQuery, request: Request) -> ResultAnswer | OrderResultAnswer:
    """El resultado propio, una vez publicado: con el radicado y la identificación.

    Una aceptación de la Primera Etapa (``oferta``: la oferta) o una orden de una etapa
    siguiente (radicado ``O-…``; ``oferta``: la etapa), una vez publicada su asignación."""
    order = is_order(data.radicado)
    lookup = lookup_order_result if order else lookup_result
    with request.app.state.engine.begin() as conn:  # may draw the offer's pseudonym key
        found = lookup(
            conn, data.oferta, data.radicado, data.tipo_identificacion, data.numero_identificacion
        )
    if order:
        return OrderResultAnswer.model_validate(found)
    return ResultAnswer.model_validate(found)
