"""The public statistics of a published offer and its public package, with no login.

Why public: once the results are published anyone may see how the sale went and check the
adjudication (``docs/verificacion.md``); the page shows counts of shares and acceptances
only, and the package names each filing by its pseudonym (Ley 1581 de 2012).

Why a cache: the figures come from the stored record, recomputed and checked against its
hash (``stored_adjudication``), which takes seconds on a large offer; a published
adjudication never changes, so its page and its package are kept per process, keyed by the
record's result hash. Building the package records its manifest's hash in the audit log.
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
from democratiza.storage.schema import adjudications
from democratiza.verification.publish import offer_package
from democratiza.verification.verify import zipped
from democratiza.web.api import catalog, views
from democratiza.web.errors import Conflict
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


@route(router, "GET", "/ofertas/{codigo}/estadisticas", "pag.estadisticas")
def statistics(codigo: str, request: Request) -> Response:
    stored, published = _published(request, codigo)
    stats = published.statistics
    context = {
        "oferta": catalog.offer_view(stored),
        "estadisticas": stats,
        "colocacion": bar_chart("Colocación", list(stats.placement), "acción", "acciones"),
        "paquete": published,
    }
    return render(request, "estadisticas.html", context)


@route(router, "GET", "/ofertas/{codigo}/paquete.zip", "pag.estadisticas.paquete")
def package(codigo: str, request: Request) -> Response:
    _, published = _published(request, codigo)
    name = f"paquete-{slug(codigo)}.zip"
    return Response(
        published.package_zip,
        media_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )
