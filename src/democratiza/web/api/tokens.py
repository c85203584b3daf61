"""Brokers' API tokens over HTTP: the office creates and revokes them, and auditors list them.

Why the token is shown once: only its SHA-256 is stored (``security.auth``), so a copy of
the database lets no one file as a broker; a revoked token stops working at once in this
service process and within seconds in the others (``security.token_cache``).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request
from pydantic import BaseModel, Field
from sqlalchemy import select

from democratiza.storage.schema import api_tokens
from democratiza.web.api import views
from democratiza.web.api.answers import Message
from democratiza.web.api.office_answers import TokenRow
from democratiza.web.errors import ERROR_RESPONSES, NotFound, Unprocessable
from democratiza.web.security import token_cache
from democratiza.web.security.access import current, route
from democratiza.web.security.auth import AuthError, create_token

router = APIRouter(prefix="/api", tags=["oficina del programa"], responses=ERROR_RESPONSES)


class NewToken(BaseModel):
    comisionista: str = Field(min_length=1, max_length=120)
    descripcion: str = Field("", max_length=200)


class TokenCreated(BaseModel):
    id: int
    comisionista: str
    token: str = Field(description="Se muestra una sola vez; no se guarda")


@route(router, "GET", "/tokens", "api.tokens")
def tokens(request: Request) -> list[TokenRow]:
    """Los tokens de los comisionistas (sin el token: solo se muestra al crearlo)."""
    with request.app.state.engine.connect() as conn:
        rows = conn.execute(
            select(
                api_tokens.c.id,
                api_tokens.c.comisionista,
                api_tokens.c.descripcion,
                api_tokens.c.creado_en,
                api_tokens.c.creado_por,
                api_tokens.c.revocado_en,
            ).order_by(api_tokens.c.id)
        ).mappings()
        return [TokenRow.model_validate({k: views.plain(v) for k, v in r.items()}) for r in rows]


@route(router, "POST", "/tokens", "api.token.crear", status_code=201)
def new_token(data: NewToken, request: Request) -> TokenCreated:
    """Crea un token para el sistema de un comisionista; se muestra una sola vez."""
    try:
        with request.app.state.engine.begin() as conn:
            token_id, token = create_token(
                conn, data.comisionista, data.descripcion, current(request).who
            )
    except AuthError as exc:
        raise Unprocessable(str(exc)) from None
    return TokenCreated(id=token_id, comisionista=data.comisionista, token=token)


@route(router, "POST", "/tokens/{token_id}/revocacion", "api.token.revocar")
def revoke(token_id: Annotated[int, Path(ge=1, le=2**31 - 1)], request: Request) -> Message:
    """Revoca un token: deja de servir de inmediato en este proceso del servicio y, en los
    demás, a lo sumo 2 segundos después."""
    state = request.app.state
    try:
        token_cache.revoke(state.engine, state.tokens, token_id, current(request).who)
    except AuthError as exc:
        raise NotFound(str(exc)) from None
    return Message(detalle=f"Token {token_id} revocado.")
