"""The public statistics of a published offer and its public package, with no login.

Why public: once the results are published anyone may see how the sale went and check the
adjudication (``docs/verificacion.md``); the page shows counts of shares and acceptances
only, and the package names each filing by its pseudonym (Ley 1581 de 2012).

Why a cache: the figures come from the stored record, recomputed and checked against its
hash (``stored_adjudication``), which takes seconds on a large offer; a published
adjudication never changes, so its page and its package are kept per process, keyed by the
record's result hash (a later stage's package, by the stage's code). Building a package
records its manifest's hash in the audit log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy import select

from democratiza.adjudication.record import stored_adjudication
from democratiza.reports.adjudication_figures import build_figures, report_input
from democratiza.reports.exports import slug
from democratiza.reports.public_statistics import PublicStatistics, public_statistics
from democratiza.stages.lifecycle import load_stage
from democratiza.stages.terms import StageError
from democratiza.storage.schema import adjudications, stages
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


def _published(request: Request, code: str) -> tuple[Any, Published]:
    engine = request.app.state.engine
    with engine.connect() as conn:
        stored = views.offer_or_404(conn, code)
        result_hash = conn.execute(
            select(adjudications.c.huella_resultado).where(adjudications.c.oferta_id == stored.id)
        ).scalar_one_or_none()
    if stored.state != "publicada" or result_hash is None:
        raise Conflict(
            f"La oferta '{code}' está {stored.state}: sus estadísticas y su paquete público "
            "se publican con los resultados."
        )
    cache: dict[tuple[str, str], Published] = request.app.state.published
    key = (code, str(result_hash))
    if key not in cache:
        inp = report_input(stored, stored_adjudication(engine, code))
        package = offer_package(engine, code, WHO)
        if len(cache) >= KEPT:
            cache.pop(next(iter(cache)))
        cache[key] = Published(
            public_statistics(inp, build_figures(inp)),
            zipped(package.files),
            package.manifest_digest,
            stored.program_sha256,
        )
    return stored, cache[key]


def _published_stages(request: Request, offer_id: int) -> list[tuple[str, str]]:
    """(code, name) of the offer's later stages already published, in their order."""
    with request.app.state.engine.connect() as conn:
        codes = conn.execute(
            select(stages.c.codigo)
            .where(stages.c.oferta_id == offer_id, stages.c.estado == "publicada")
            .order_by(stages.c.numero)
        ).scalars()
        return [(code, load_stage(conn, code).name) for code in codes]


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


@route(router, "GET", "/ofertas/{codigo}/paquete.zip", "pag.estadisticas.paquete")
def package(codigo: str, request: Request) -> Response:
    _, published = _published(request, codigo)
    return _zip(published.package_zip, f"paquete-{slug(codigo)}.zip")


@route(router, "GET", "/etapas/{etapa}/paquete.zip", "pag.etapa.paquete")
def stage_package(etapa: str, request: Request) -> Response:
    """A published later stage's package (a published stage never changes: kept by code)."""
    cache: dict[str, bytes] = request.app.state.published_stages
    if etapa not in cache:
        with request.app.state.engine.connect() as conn:
            try:
                load_stage(conn, etapa)
            except StageError as exc:
                raise NotFound(str(exc)) from None
        try:
            built = stage_package_of(request.app.state.engine, etapa, WHO)
        except StageError as exc:
            raise Conflict(str(exc)) from None
        if len(cache) >= KEPT:
            cache.pop(next(iter(cache)))
        cache[etapa] = zipped(built.files)
    return _zip(cache[etapa], f"paquete-{slug(etapa)}.zip")


def _zip(data: bytes, name: str) -> Response:
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    return Response(data, media_type="application/zip", headers=headers)
