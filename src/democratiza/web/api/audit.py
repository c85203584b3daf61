"""The auditors' API: the audit log and the verification of its hash chain.

Why read-only: the control bodies the decrees name must see every change and check that
the record was not altered, and nothing they do may change it.
"""

from __future__ import annotations

from typing import cast

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel

from democratiza.storage import audit
from democratiza.web.api.office_answers import AuditEntry
from democratiza.web.api.views import plain
from democratiza.web.errors import ERROR_RESPONSES, Unprocessable
from democratiza.web.security.access import route

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
) -> list[AuditEntry]:
    """El registro de auditoría, lo más reciente primero."""
    with request.app.state.engine.connect() as conn:
        rows = audit.entries(conn, limite, antes_de)
    plain_rows = [{k: plain(v) for k, v in r.items()} for r in rows]
    return cast(list[AuditEntry], plain_rows)  # checked against it as it leaves


class AnchorAnswer(BaseModel):
    entradas: int
    huella: str
    ancla: str  # número:huella, para guardar fuera del sistema


@route(router, "GET", "/auditoria/verificacion", "api.auditoria.verificar")
def verify(
    request: Request,
    ancla: str | None = Query(
        None,
        max_length=100,
        description="Ancla guardada antes (número:huella): la cadena debe seguir llegando a ella",
    ),
) -> Verification:
    """Recorre la cadena de huellas desde la primera entrada y dice dónde se rompe, si se rompe."""
    try:
        anchored = audit.Anchor.parse(ancla) if ancla is not None else None
    except ValueError as exc:
        raise Unprocessable(str(exc)) from None
    with request.app.state.engine.connect() as conn:
        found = audit.verify(conn, anchored)
    return Verification(
        integra=found.ok, entradas=found.entries, rota_en=found.broken_at, detalle=found.message()
    )


@route(router, "GET", "/auditoria/ancla", "api.auditoria.ancla")
def anchor(request: Request) -> AnchorAnswer:
    """El ancla del registro ahora: número y huella de la última entrada, para guardarla fuera
    del sistema (el acta, el archivo del auditor) y verificar después con ella."""
    with request.app.state.engine.connect() as conn:
        found = audit.anchor(conn)
    return AnchorAnswer(entradas=found.entries, huella=found.last_hash, ancla=found.text())
