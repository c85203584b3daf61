"""The page of brokers' API tokens: the office creates and revokes them, auditors list them.

A new token is shown once, on the page that created it; only its SHA-256 is stored.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Path, Request
from fastapi.responses import Response
from sqlalchemy import select

from democratiza.storage.schema import api_tokens
from democratiza.web.errors import Conflict, Unprocessable
from democratiza.web.pages.forms import Text, back
from democratiza.web.pages.templating import render
from democratiza.web.security import token_cache
from democratiza.web.security.access import current, route
from democratiza.web.security.auth import AuthError, create_token

router = APIRouter(include_in_schema=False)


def _tokens_page(request: Request, new: dict[str, Any] | None) -> Response:
    with request.app.state.engine.connect() as conn:
        rows = conn.execute(select(api_tokens).order_by(api_tokens.c.id)).mappings().all()
    listed = [{k: v for k, v in r.items() if k != "huella"} for r in rows]
    return render(request, "tokens.html", {"tokens": listed, "nuevo": new})


@route(router, "GET", "/oficina/tokens", "pag.tokens")
def tokens_page(request: Request) -> Response:
    return _tokens_page(request, None)


@route(router, "POST", "/oficina/tokens", "pag.token.crear")
def token_create(
    request: Request,
    comisionista: Annotated[Text, Form(min_length=1, max_length=120)],
    descripcion: Annotated[Text, Form(max_length=200)] = "",
) -> Response:
    try:
        with request.app.state.engine.begin() as conn:
            token_id, token = create_token(conn, comisionista, descripcion, current(request).who)
    except AuthError as exc:
        raise Unprocessable(str(exc)) from None
    return _tokens_page(request, {"id": token_id, "comisionista": comisionista, "token": token})


@route(router, "POST", "/oficina/tokens/{token_id}/revocar", "pag.token.revocar")
def token_revoke(token_id: Annotated[int, Path(ge=1, le=2**31 - 1)], request: Request) -> Response:
    state = request.app.state
    try:
        token_cache.revoke(state.engine, state.tokens, token_id, current(request).who)
    except AuthError as exc:
        raise Conflict(str(exc)) from None
    return back("/oficina/tokens")
