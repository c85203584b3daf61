"""The auditors' API: the audit log and the verification of its hash chain.

Why read-only: the control bodies the decrees name must see every change and check that
the record was not altered, and nothing they do may change it.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel

from democratiza.storage import audit
from democratiza.web.access import route
from democratiza.web.errors import ERROR_RESPONSES
from democratiza.web.views import plain

router = APIRouter(prefix="/api", tags=["auditores"], responses=ERROR_RESPONSES)


class Verification(BaseModel):
    integra: bool
    entradas: int
    rota_en: int | None
    detalle: str


@route(router, "GET", "/auditoria", "api.auditoria")
def log(
    request: Request,
    antes_de: int | None = Query(None, ge=1, le=2**62, description="Entradas anteriores a esta"),
    limite: int = Query(100, ge=1, le=1_000),
) -> list[dict[str, Any]]:
    """El registro de auditoría, lo más reciente primero."""
    with request.app.state.engine.connect() as conn:
        rows = audit.entries(conn, limite, antes_de)
    return [{k: plain(v) for k, v in r.items()} for r in rows]


@route(router, "GET", "/auditoria/verificacion", "api.auditoria.verificar")
def verify(request: Request) -> Verification:
    """Recorre la cadena de huellas desde la primera entrada y dice dónde se rompe, si se rompe."""
    with request.app.state.engine.connect() as conn:
        found = audit.verify(conn)
    return Verification(
        integra=found.ok, entradas=found.entries, rota_en=found.broken_at, detalle=found.message()
    )
