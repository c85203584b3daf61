"""The web service: ``create_app(engine)`` builds the FastAPI application on a database.

Why a factory: tests build one per database (SQLite and PostgreSQL) and the command
``democratiza servir`` one for the database it is given; nothing is global but the
templates. The application carries the engine, the background job runner, the limits
per address and the trusted proxies in ``app.state``; bodies are counted as they are read
and cut at their limit; every response carries headers that keep pages from being
framed, sniffed or stored.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from sqlalchemy import Engine

from democratiza.web import errors
from democratiza.web.api import acceptances as api_acceptances
from democratiza.web.api import audit as api_audit
from democratiza.web.api import credit as api_credit
from democratiza.web.api import filing as api_filing
from democratiza.web.api import fines as api_fines
from democratiza.web.api import holdings as api_holdings
from democratiza.web.api import offers as api_offers
from democratiza.web.api import payments as api_payments
from democratiza.web.api import public as api_public
from democratiza.web.api import stages as api_stages
from democratiza.web.api import tokens as api_tokens
from democratiza.web.api.uploads import MAX_UPLOAD, UPLOAD_ROUTES
from democratiza.web.pages import api_docs as pages_api_docs
from democratiza.web.pages import audit as pages_audit
from democratiza.web.pages import broker as pages_broker
from democratiza.web.pages import calculator as pages_calculator
from democratiza.web.pages import credit_lines as pages_credit
from democratiza.web.pages import dashboard as pages_dashboard
from democratiza.web.pages import designer as pages_designer
from democratiza.web.pages import fines as pages_fines
from democratiza.web.pages import offer_payments as pages_offer_payments
from democratiza.web.pages import office as pages_office
from democratiza.web.pages import public as pages_public
from democratiza.web.pages import stage_page as pages_stage
from democratiza.web.pages import stages as pages_stages
from democratiza.web.pages import statistics as pages_statistics
from democratiza.web.pages import tokens as pages_tokens
from democratiza.web.pages import verifier as pages_verifier
from democratiza.web.pages.templating import error_page
from democratiza.web.security.access import declared_routes
from democratiza.web.security.clients import (
    Network,
    proxies_from_environment,
    secure_cookies_from_environment,
)
from democratiza.web.security.shared_limits import limits_for
from democratiza.web.security.token_cache import RevocationListener, TokenCache
from democratiza.web.server import health, heap
from democratiza.web.server.bulk_lane import BulkLane
from democratiza.web.server.jobs import JobRunner
from democratiza.web.server.middleware import LimitsAndHeaders
from democratiza.web.server.observability import Observed, configure_logs
from democratiza.web.server.shared_budget import budget_for

DESCRIPTION = """
Programas de democratización accionaria (Ley 226 de 1995): avisos de oferta y calculadora
(público), radicación de lotes y aceptaciones (comisionistas, con token `Bearer`),
administración de ofertas y adjudicación (oficina del programa), y registro de auditoría
(auditores). Los errores tienen siempre la forma `{detalle, errores: [{archivo, fila,
columna, mensaje}], total_errores}`.
"""


def create_app(
    engine: Engine,
    job_workers: int = 2,
    max_upload: int = MAX_UPLOAD,
    lane: BulkLane | None = None,
    proxies: Sequence[Network] = (),
    secure_cookies: bool = False,
) -> FastAPI:
    """The application; ``lane`` files batches in a process of their own (``server.bulk_lane``);
    ``proxies`` are the proxies whose ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are
    believed (``security.clients``); ``secure_cookies`` makes every cookie ``Secure``."""
    runner = JobRunner(engine, job_workers)
    tokens = TokenCache()
    revocations = RevocationListener(engine, tokens)  # PostgreSQL: revoked in any process

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        revocations.start()
        yield
        revocations.stop()
        runner.shutdown()
        if lane is not None:
            lane.shutdown()

    app = FastAPI(
        # We export no telemetry; left on, FastAPI looked for OpenTelemetry providers (and
        # read the environment) on every request.
        telemetry={"tracing": False, "metrics": False, "logs": False},
        title="democratiza",
        description=DESCRIPTION,
        version="0.1.0",
        lifespan=lifespan,
        docs_url=None,  # Swagger UI loads its scripts from a CDN: the page is our own
        redoc_url=None,
        openapi_url="/api/openapi.json",
        # Each operation named as the access table names its route (api.lote.subir is
        # api_lote_subir): the names a generated client gives its functions.
        generate_unique_id_function=lambda r: r.name.replace(".", "_"),
    )
    app.state.engine = engine
    app.state.jobs = runner
    app.state.lane = lane
    app.state.max_upload = max_upload  # a batch's, and a population the designer takes
    app.state.tokens = tokens
    # In memory on SQLite (one machine); in the database on PostgreSQL (every process).
    app.state.lockout, app.state.throttle = limits_for(engine)
    app.state.anonymous_uploads = budget_for(engine)  # per machine on PostgreSQL
    app.state.proxies = tuple(proxies)
    app.state.secure_cookies = secure_cookies
    app.state.published = {}  # public statistics and packages, by offer and result hash
    app.state.published_stages = {}  # later stages' public figures and packages, by stage
    errors.install(app, error_page, lambda request: allowed_methods(app, request.url.path))
    # In the order the routes must be tried: a path two routes could match goes to the first.
    for router in (
        api_public.router,
        api_filing.router,
        api_acceptances.router,
        api_offers.router,
        api_tokens.router,
        api_audit.router,
        api_stages.router,
        api_payments.router,
        api_holdings.router,
        api_fines.router,
        api_credit.router,
        pages_api_docs.router,
        pages_public.router,
        pages_statistics.router,
        pages_verifier.router,
        pages_calculator.router,
        pages_broker.router,
        pages_office.router,
        pages_dashboard.router,
        pages_credit.router,
        pages_offer_payments.router,
        pages_tokens.router,
        pages_audit.router,
        pages_stages.router,
        pages_stage.router,
        pages_fines.router,
        pages_designer.router,
    ):
        app.include_router(router)
    # The load balancer's and the operator's: outside the roles' table (``server.health``).
    app.router.routes.extend(health.ROUTES)
    static = Path(__file__).parent / "static"
    app.mount("/estaticos", StaticFiles(directory=str(static)), name="estaticos")

    uploads = [r for r in api_routes(app) if r.name in UPLOAD_ROUTES]
    app.add_middleware(LimitsAndHeaders, max_upload=max_upload, uploads=uploads)
    app.add_middleware(Observed)  # outermost: it times and tells everything, refusals too
    return app


def api_routes(app: FastAPI) -> list[APIRoute]:
    """Every route of the application, walking into included routers (for the tests)."""
    return declared_routes(app.routes)


def from_environment() -> FastAPI:
    """The application for the database in DEMOCRATIZA_DB (uvicorn's factory, per process)."""
    from democratiza.storage.database import database_url, make_engine

    url = database_url()
    configure_logs()
    health.latest_migration()  # read now, not on the load balancer's first question
    app = create_app(
        make_engine(url),
        lane=BulkLane(url),
        proxies=proxies_from_environment(),
        secure_cookies=secure_cookies_from_environment(),
    )
    heap.keep_started()
    return app


def allowed_methods(app: FastAPI, path: str) -> list[str]:
    """The methods some route of the application accepts on this path."""
    methods = {m for r in api_routes(app) if r.path_regex.match(path) for m in r.methods or ()}
    return sorted(methods)
