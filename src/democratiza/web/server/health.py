"""``/salud`` for a load balancer and ``/metricas`` for the operator: the service's own state.

Why outside the access table (``security.access``): neither is asked by a person with a
role. A load balancer has no session, so ``/salud`` answers anyone, and says nothing but
whether this process can serve: the database answers and its schema is at the latest
migration (a process started before ``democratiza`` was upgraded, or on a database not yet
migrated, must not be sent requests). ``/metricas`` answers only the operator: a request
carrying ``Authorization: Bearer`` with the token in ``DEMOCRATIZA_METRICAS_TOKEN``, or
one made from this machine itself (loopback) and not forwarded by a proxy (a proxy on the
same machine would make every request look local: one it forwarded carries
``X-Forwarded-For``). Neither carries personal data.
"""

from __future__ import annotations

import hmac
import os
from functools import cache

from sqlalchemy import Engine, text
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from democratiza.storage.database import MIGRATIONS
from democratiza.web.server import metrics

TOKEN_VARIABLE = "DEMOCRATIZA_METRICAS_TOKEN"
LOOPBACK = frozenset({"127.0.0.1", "::1"})
FORWARDED = ("x-forwarded-for", "forwarded", "x-real-ip")


@cache
def latest_migration() -> str:
    """The newest migration this code carries (read once: Alembic is slow to import)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None, "the package always carries its migrations"
    return head


def schema_state(engine: Engine) -> tuple[bool, dict[str, str | bool]]:
    """Whether this process can serve, and what it found (for the answer)."""
    latest = latest_migration()
    try:
        with engine.connect() as conn:
            found = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    except SQLAlchemyError:
        return False, {
            "vivo": True,
            "puede_servir": False,
            "detalle": "La base de datos no responde, o no tiene el esquema de democratiza.",
        }
    ready = list(found) == [latest]
    detail = (
        "En servicio: la base responde y su esquema está en la última migración."
        if ready
        else f"La base responde pero su esquema está en {', '.join(found) or 'ninguna'} y este "
        f"proceso espera {latest}: corra las migraciones (democratiza servir las corre) y "
        "reinicie los procesos."
    )
    return ready, {
        "vivo": True,
        "puede_servir": ready,
        "esquema": ", ".join(found),
        "esquema_esperado": latest,
        "detalle": detail,
    }


async def health(request: Request) -> Response:
    ready, body = await run_in_threadpool(schema_state, request.app.state.engine)
    return JSONResponse(body, status_code=200 if ready else 503)


def is_operator(request: Request) -> bool:
    expected = os.environ.get(TOKEN_VARIABLE, "")
    scheme, _, sent = request.headers.get("authorization", "").partition(" ")
    if expected and scheme.lower() == "bearer":
        return hmac.compare_digest(sent.strip().encode(), expected.encode())
    peer = request.client.host if request.client else ""
    return peer in LOOPBACK and not any(h in request.headers for h in FORWARDED)


async def metrics_page(request: Request) -> Response:
    if not is_operator(request):
        return JSONResponse(
            {
                "detalle": "Las métricas son solo para el operador: pídalas desde la misma "
                f"máquina o con el token de {TOKEN_VARIABLE}.",
                "errores": [],
                "total_errores": 0,
            },
            status_code=403,
        )
    return Response(metrics.exposition(), media_type=metrics.CONTENT_TYPE)


ROUTES = (
    Route("/salud", health, methods=["GET", "HEAD"], name="salud"),
    Route("/metricas", metrics_page, methods=["GET"], name="metricas"),
)
