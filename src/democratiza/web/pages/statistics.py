"""The public statistics of a published offer (or later stage) and its public package, with
no login.

Why public: once the results are published anyone may see how the sale went and check the
adjudication (``docs/verificacion.md``); the page shows counts of shares and acceptances
only, and the package names each filing by its pseudonym (Ley 1581 de 2012).

Why a cache: the figures come from the stored record, recomputed and checked against its
hash (``stored_adjudication``), which takes seconds on a large offer; a published
adjudication never changes, so its page and its package are kept per process, keyed by the
record's result hash (a later stage's page and package, by the stage's code: a published
stage never changes either). Building a package records its manifest's hash in the audit log;
the page shows the audit chain's head the package carries (number and hash of its last entry
at publication), for an auditor to check against the chain they hold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy import select

from democratiza.adjudication.figures import withdrawn
from democratiza.adjudication.record import acceptance_prices, stored_adjudication
from democratiza.labels import label
from democratiza.reports.adjudication_figures import build_figures, report_input
from democratiza.reports.exports import slug
from democratiza.reports.public_statistics import (
    PublicStageStatistics,
    PublicStatistics,
    public_statistics,
    stage_statistics,
)
from democratiza.stages.allocate import stored_allocation
from democratiza.stages.lifecycle import StoredStage, load_stage
from democratiza.stages.terms import StageError
from democratiza.storage.audit import Anchor
from democratiza.storage.schema import adjudications
from democratiza.verification.publish import offer_package, stage_package_of
from democratiza.verification.verify import zipped
from democratiza.web.api import catalog, views
from democratiza.web.errors import Conflict, NotFound
from democratiza.web.pages.charts import bar_chart
from democratiza.web.pages.templating import render
from democratiza.web.security.access import route

router = APIRouter(include_in_schema=False)
WHO = "público (estadísticas de la oferta)"
KEPT = 32  # published offers whose page stays in memory


@dataclass(frozen=True)
class Published:
    statistics: PublicStatistics
    package_zip: bytes
    manifest_digest: str
    program_digest: str
    head: Anchor | None  # the audit chain's head at publication, as the package carries it


def _published(request: Request, code: str) -> tuple[Any, Published]:
    engine = request.app.state.engine
    with engine.connect() as conn:
        stored = views.offer_or_404(conn, code)
        result_hash = conn.execute(
            select(adjudications.c.huella_resultado).where(adjudications.c.oferta_id == stored.id)
        ).scalar_one_or_none()
    if stored.state != "publicada" or result_hash is None:
        raise Conflict(
            f"La Primera Etapa del {stored.program.name_in_sentence} "
            f"está {label('estado_oferta', stored.state)}: sus estadísticas y su paquete "
            "público se publican con los resultados."
        )
    cache: dict[tuple[str, str], Published] = request.app.state.published
    key = (code, str(result_hash))
    if key not in cache:
        with engine.connect() as conn:
            prices = acceptance_prices(conn, stored)
            gone = withdrawn(conn, stored)
        inp = report_input(stored, stored_adjudication(engine, code), prices, gone)
        package = offer_package(engine, code, WHO)
        if len(cache) >= KEPT:
            cache.pop(next(iter(cache)))
        cache[key] = Published(
            public_statistics(inp, build_figures(inp)),
            zipped(package.files),
            package.manifest_digest,
            stored.program_sha256,
            package.head,
        )
    return stored, cache[key]


@route(router, "GET", "/ofertas/{codigo}/estadisticas", "pag.estadisticas")
def statistics(codigo: str, request: Request) -> Response:
    stored, published = _published(request, codigo)
    stats = published.statistics
    context = {
        "oferta": catalog.offer_view(stored),
        "estadisticas": stats,
        "colocacion": bar_chart("Colocación", list(stats.placement), "acción", "acciones"),
        "paquete": published,
        "etapas": _published_stages(request, stored.id),
    }
    return render(request, "estadisticas.html", context)


def _published_stages(request: Request, offer_id: int) -> list[catalog.PublicStage]:
    with request.app.state.engine.connect() as conn:
        return catalog.published_stages(conn, offer_id)


@route(router, "GET", "/ofertas/{codigo}/paquete.zip", "pag.estadisticas.paquete")
def package(codigo: str, request: Request) -> Response:
    _, published = _published(request, codigo)
    return _zip(published.package_zip, f"paquete-{slug(codigo)}.zip")


@dataclass(frozen=True)
class PublishedStage:
    stage: StoredStage
    statistics: PublicStageStatistics
    package_zip: bytes
    manifest_digest: str
    head: Anchor | None


def _published_stage(request: Request, code: str) -> PublishedStage:
    """A published later stage's figures and package (it never changes: kept by code)."""
    cache: dict[str, PublishedStage] = request.app.state.published_stages
    if code not in cache:
        engine = request.app.state.engine
        with engine.connect() as conn:
            try:
                load_stage(conn, code)
            except StageError as exc:
                raise NotFound(str(exc)) from None
        try:
            built = stage_package_of(engine, code, WHO)
        except StageError as exc:  # not published yet
            raise Conflict(str(exc)) from None
        with engine.connect() as conn:
            stage = load_stage(conn, code)  # as published
        stats = stage_statistics(stage, stored_allocation(engine, code))
        if len(cache) >= KEPT:
            cache.pop(next(iter(cache)))
        cache[code] = PublishedStage(
            stage, stats, zipped(built.files), built.manifest_digest, built.head
        )
    return cache[code]


@route(router, "GET", "/etapas/{etapa}/estadisticas", "pag.etapa.estadisticas")
def stage_statistics_page(etapa: str, request: Request) -> Response:
    """A published later stage's figures, its demand curve (and its table), its package."""
    published = _published_stage(request, etapa)
    stage = published.stage
    context = {
        "etapa": stage,
        "estadisticas": published.statistics,
        "paquete": published,
        "huella_programa": stage.first.program_sha256,
    }
    return render(request, "estadisticas_etapa.html", context)


@route(router, "GET", "/etapas/{etapa}/paquete.zip", "pag.etapa.paquete")
def stage_package(etapa: str, request: Request) -> Response:
    """A published later stage's package."""
    return _zip(_published_stage(request, etapa).package_zip, f"paquete-{slug(etapa)}.zip")


def _zip(data: bytes, name: str) -> Response:
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    return Response(data, media_type="application/zip", headers=headers)
