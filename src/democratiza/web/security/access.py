"""Who may call what: one declarative table, route name → roles, checked on every request.

Why a table: authorisation scattered in handlers is easy to forget on one route. Every
route is declared with ``route(...)``, which names it and attaches the gate; the gate looks
the name up here, so a route missing from the table fails closed, and the tests enumerate
the application's routes against this table and try each with every role and with no one.

What a role may *see* inside an allowed route (a broker only its own acceptances; personal
data only to the roles that need it, Ley 1581 de 2012) is decided by the queries in
``web.api.views``, which take the principal; the tests check that route by route as well.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool
from starlette.routing import BaseRoute

from democratiza.web.errors import CsrfRefused, NotAllowed, NotLoggedIn, WrongMediaType, for_api
from democratiza.web.security.auth import (
    ANONYMOUS,
    AUDITOR,
    BROKER,
    OFFICE,
    PUBLIC,
    Principal,
    session_principal,
)
from democratiza.web.security.clients import client_address

EVERYONE = frozenset({PUBLIC, OFFICE, BROKER, AUDITOR})
STAFF = frozenset({OFFICE, BROKER, AUDITOR})
OVERSIGHT = frozenset({OFFICE, AUDITOR})
ONLY_OFFICE = frozenset({OFFICE})
ONLY_BROKER = frozenset({BROKER})
ONLY_AUDITOR = frozenset({AUDITOR})

DRAFT = "borrador"


def hides_draft(who: Principal, state: str) -> bool:
    """Whether ``who`` must not see an offer or stage in this state: a draft is the office's
    (and the auditors') until it opens; to anyone else it does not exist (404, as if no such
    code), so that its minimum price, lot and dates are not public before its aviso."""
    return state == DRAFT and who.role not in OVERSIGHT


ACCESS: dict[str, frozenset[str]] = {
    # JSON API, public: programs, offer notices, the calculator, one's own published result.
    "api.programas": EVERYONE,
    "api.programa": EVERYONE,
    "api.ofertas": EVERYONE,
    "api.oferta": EVERYONE,
    "api.calculadora": EVERYONE,
    "api.resultado": EVERYONE,
    "api.documentacion": EVERYONE,
    # Filing is the brokers' alone.
    "api.lote.subir": ONLY_BROKER,
    "api.aceptacion.radicar": ONLY_BROKER,
    "api.aceptacion.retirar": ONLY_BROKER,
    # Acceptances and results: a broker its own, the office and auditors all.
    "api.lotes": STAFF,
    "api.aceptaciones": STAFF,
    "api.aceptaciones.archivo": STAFF,
    "api.aceptacion": STAFF,
    "api.resultados": STAFF,
    "api.adjudicacion.archivo": STAFF,
    "api.trabajo": STAFF,
    # The office administers offers and tokens.
    "api.oferta.crear": ONLY_OFFICE,
    "api.oferta.abrir": ONLY_OFFICE,
    "api.oferta.cerrar": ONLY_OFFICE,
    "api.oferta.adjudicar": ONLY_OFFICE,
    "api.oferta.publicar": ONLY_OFFICE,
    "api.oferta.interrumpir": ONLY_OFFICE,
    "api.oferta.desierta": ONLY_OFFICE,
    "api.token.crear": ONLY_OFFICE,
    "api.token.revocar": ONLY_OFFICE,
    # Read by the office and the auditors.
    "api.tablero": OVERSIGHT,
    "api.adjudicacion": OVERSIGHT,
    "api.informe": OVERSIGHT,
    "api.registro": OVERSIGHT,
    "api.tokens": OVERSIGHT,
    # The audit log is the auditors'.
    "api.auditoria": ONLY_AUDITOR,
    "api.auditoria.verificar": ONLY_AUDITOR,
    "api.auditoria.ancla": OVERSIGHT,  # the office writes it into the minutes too
    # Segunda Etapa and later stages: the notice is public; brokers file orders and read
    # their own; the office runs the stage; the book and the record are the office's and
    # the auditors'.
    "api.etapas": EVERYONE,
    "api.etapa": EVERYONE,
    "api.etapa.crear": ONLY_OFFICE,
    "api.etapa.abrir": ONLY_OFFICE,
    "api.etapa.cerrar": ONLY_OFFICE,
    "api.etapa.desierta": ONLY_OFFICE,
    "api.etapa.adjudicar": ONLY_OFFICE,
    "api.etapa.publicar": ONLY_OFFICE,
    "api.etapa.libro": OVERSIGHT,
    "api.etapa.adjudicacion": OVERSIGHT,
    "api.etapa.informe": OVERSIGHT,
    "api.etapa.registro": OVERSIGHT,
    "api.etapa.lote.subir": ONLY_BROKER,
    "api.etapa.orden.retirar": ONLY_BROKER,
    "api.etapa.ordenes": STAFF,
    "api.etapa.asignacion": STAFF,
    # After the sale: the office records; the office and auditors read and compute.
    "api.pagos.subir": ONLY_OFFICE,
    "api.pagos.cifras": OVERSIGHT,
    "api.pagos.liquidar": ONLY_OFFICE,
    "api.etapa.pagos.subir": ONLY_OFFICE,
    "api.etapa.pagos.liquidar": ONLY_OFFICE,
    "api.tenencia.evento": ONLY_OFFICE,
    "api.tenencia.ineficacia": ONLY_OFFICE,
    "api.tenencia": OVERSIGHT,
    "api.multa.estado": OVERSIGHT,
    "api.credito.verificar": OVERSIGHT,
    "api.credito.lineas": OVERSIGHT,
    "api.credito.registrar": ONLY_OFFICE,
    "api.credito.cuadro": OVERSIGHT,
    # Pages.
    "pag.inicio": EVERYONE,
    "pag.calculadora": EVERYONE,
    "pag.calculadora.calcular": EVERYONE,
    "pag.aviso": EVERYONE,
    "pag.resultado": EVERYONE,
    "pag.resultado.consultar": EVERYONE,
    "pag.estadisticas": EVERYONE,  # a published offer's figures and package: no one named
    "pag.estadisticas.paquete": EVERYONE,
    "pag.etapa.paquete": EVERYONE,  # a published later stage's package
    "pag.etapa.estadisticas": EVERYONE,  # its figures and demand curve: no one named
    "pag.etapa.aviso": EVERYONE,  # a later stage's aviso, from its opening on
    "pag.verificar": EVERYONE,  # anyone verifies a package: it names no one
    "pag.verificar.enviar": EVERYONE,
    "pag.entrar": EVERYONE,
    "pag.entrar.enviar": EVERYONE,
    "pag.salir": EVERYONE,
    "pag.comisionista": ONLY_BROKER,
    "pag.lote.subir": ONLY_BROKER,
    "pag.aceptacion.retirar": ONLY_BROKER,
    "pag.aceptaciones": STAFF,
    "pag.trabajo": STAFF,
    "pag.oficina": OVERSIGHT,
    "pag.tablero": OVERSIGHT,
    "pag.oferta.crear": ONLY_OFFICE,
    "pag.oferta.accion": ONLY_OFFICE,
    "pag.credito.registrar": ONLY_OFFICE,
    "pag.credito.corregir": ONLY_OFFICE,
    "pag.credito.retirar": ONLY_OFFICE,
    "pag.credito.serie": ONLY_OFFICE,
    "pag.oferta.desierta": ONLY_OFFICE,
    "pag.pagos.subir": ONLY_OFFICE,
    "pag.pagos.liquidar": ONLY_OFFICE,
    "pag.oferta.interrumpir": ONLY_OFFICE,
    "pag.tokens": OVERSIGHT,
    "pag.token.crear": ONLY_OFFICE,
    "pag.token.revocar": ONLY_OFFICE,
    "pag.etapas": OVERSIGHT,
    "pag.etapa": OVERSIGHT,
    "pag.etapa.crear": ONLY_OFFICE,
    "pag.etapa.accion": ONLY_OFFICE,
    "pag.etapa.pagos.subir": ONLY_OFFICE,
    "pag.etapa.pagos.liquidar": ONLY_OFFICE,
    "pag.etapa.comisionista": ONLY_BROKER,
    "pag.etapa.lote.subir": ONLY_BROKER,
    "pag.multas": OVERSIGHT,
    "pag.multa.calcular": OVERSIGHT,
    "pag.disenador": ONLY_OFFICE,  # the program designer: designs before the decree
    "pag.disenador.simular": ONLY_OFFICE,
    "pag.disenador.descarga": ONLY_OFFICE,
    "pag.auditoria": ONLY_AUDITOR,
    "pag.auditoria.verificar": ONLY_AUDITOR,
}

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SESSION_COOKIE = "democratiza_sesion"
CSRF_COOKIE = "democratiza_csrf"  # double-submit token for forms sent before logging in


def principal_of(request: Request) -> Principal:
    """The bearer token's broker, else the session's person, else the public (cached)."""
    cached = getattr(request.state, "principal", None)
    if isinstance(cached, Principal):
        return cached
    engine = request.app.state.engine
    found: Principal | None = None
    if token := bearer_token(request):
        found = request.app.state.tokens.principal(engine, token)
        if found is None:
            raise NotLoggedIn("El token no es válido o fue revocado.")
    elif cookie := request.cookies.get(SESSION_COOKIE):
        with engine.connect() as conn:
            found = session_principal(conn, cookie, datetime.now())
    request.state.principal = found or ANONYMOUS
    return request.state.principal  # type: ignore[no-any-return]


def bearer_token(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer …`` header, if the request has one."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def remembered_broker(request: Request) -> Principal | None:
    """The bearer token's broker if the token was found valid moments ago (else ``None``)."""
    token = bearer_token(request)
    if token is None:
        return None
    found: Principal | None = request.app.state.tokens.remembered(token)
    if found is not None:
        request.state.principal = found
    return found


async def _check_csrf(request: Request, who: Principal) -> None:
    """A request a browser could send with the person's cookie must carry the CSRF token.

    The token comes from the ``X-CSRF-Token`` header or the ``csrf`` of the address's
    query, else from a form's field. Anyone may post a multipart form (the public
    verifier's package): from someone anonymous such a body is never read for its token,
    which must come in the address (the verifier's form puts it there), so a request
    without it is refused before a byte of its body is held.
    """
    if who.via == "token":
        return
    is_page = not for_api(request.scope)
    if who.via == "anonimo" and not is_page:
        return  # the public API carries no credential a third site could borrow
    expected = who.csrf if who.via == "sesion" else request.cookies.get(CSRF_COOKIE)
    if not expected:
        raise CsrfRefused()
    sent = request.headers.get("x-csrf-token") or request.query_params.get("csrf")
    content_type = request.headers.get("content-type", "")
    is_form = content_type.startswith("application/x-www-form-urlencoded") or (
        content_type.startswith("multipart/form-data") and who.via != "anonimo"
    )
    if sent is None and is_form:
        value = (await request.form()).get("csrf")
        sent = value if isinstance(value, str) else None
    if not sent or not hmac.compare_digest(expected, sent):
        raise CsrfRefused()


def gate(name: str) -> Callable[[Request], Awaitable[Principal]]:
    roles = ACCESS.get(name, frozenset())  # a route missing from the table admits no one

    async def check(request: Request) -> Principal:
        # A remembered token needs no database, so no worker thread either.
        who = remembered_broker(request)
        if who is None:
            who = await run_in_threadpool(principal_of, request)
        if who.role not in roles:
            if who.via == "anonimo":
                raise NotLoggedIn("Debe iniciar sesión para ver esto.")
            raise NotAllowed()
        if request.method not in SAFE_METHODS:
            # Counted first: an attempt without its token is still an attempt.
            address = client_address(request, request.app.state.proxies)
            request.app.state.throttle.attempt(name, address)
            await _check_csrf(request, who)
        return who

    return check


async def media_type(request: Request) -> None:
    """The API reads JSON, and batches as multipart uploads; anything else is refused (415).

    Runs after the gate, so someone not allowed learns nothing more than that. Async
    although it awaits nothing: FastAPI runs a plain function in a worker thread, a hop
    that cost more than the check itself on every request.
    """
    if request.method in SAFE_METHODS or not for_api(request.scope):
        return
    has_body = request.headers.get("content-length") not in (None, "0")
    if not has_body and "transfer-encoding" not in request.headers:
        return
    content_type = request.headers.get("content-type", "")
    if request.scope["path"].endswith("/lotes"):
        if not content_type.startswith("multipart/form-data"):
            raise WrongMediaType(
                "Envíe el lote como archivo (multipart/form-data, campo «archivo»)."
            )
    elif not content_type.startswith("application/json"):
        raise WrongMediaType("Envíe el cuerpo como JSON (Content-Type: application/json).")


class GatedRoute(APIRoute):
    """A route whose gate and media-type check run before its body is read.

    Why: FastAPI reads (and spools to disk) a body before it solves any dependency, so a
    gate that is only a dependency would let anyone make the service read a large upload
    before the 401. Here the gate runs first, and only here (the route declares no
    dependency that repeats it).
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()
        check = gate(self.name)

        async def gated(request: Request) -> Response:
            await check(request)
            await media_type(request)
            return await handle(request)

        return gated


def route(
    router: APIRouter, method: str, path: str, name: str, **options: Any
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare a route under its access-table name, with the gate in front of it."""

    def declare(endpoint: Callable[..., Any]) -> Callable[..., Any]:
        # The gate and the media-type check run in ``GatedRoute`` alone: as dependencies too
        # they ran a second time on every request, after the body, to find their own answer.
        router.add_api_route(
            path, endpoint, methods=[method], name=name, route_class_override=GatedRoute, **options
        )
        return endpoint

    return declare


def declared_routes(routes: Sequence[BaseRoute]) -> list[APIRoute]:
    """Every route among ``routes``, walking into included routers."""
    found: list[APIRoute] = []
    for r in routes:
        if isinstance(r, APIRoute):
            found.append(r)
        elif (inner := getattr(r, "original_router", None)) is not None:
            found += declared_routes(inner.routes)
    return found


def current(request: Request) -> Principal:
    """The principal the gate admitted (for handlers)."""
    return principal_of(request)
