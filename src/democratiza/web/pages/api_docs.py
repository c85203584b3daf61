"""The API's operations as a page of this site, instead of Swagger UI.

Why: Swagger UI's page loaded its scripts from a CDN with no integrity check, so whoever
served them could run code with the service's origin. This page has no script: each
operation with its method and path, what it does (the first line of its description) and
who may call it (the access table). The full description, to generate a client or test
the API with, is ``/api/openapi.json``.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter, Request
from fastapi.responses import Response

from democratiza.labels import label
from democratiza.web.pages.templating import render
from democratiza.web.security.access import ACCESS, declared_routes, route
from democratiza.web.security.auth import ROLES

router = APIRouter(include_in_schema=False)


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    summary: str
    roles: str


def operations(request: Request) -> list[Operation]:
    found = []
    for r in declared_routes(request.app.routes):
        if not r.include_in_schema or not r.path.startswith("/api/"):
            continue
        lines = (r.description or "").strip().splitlines()
        allowed = ACCESS.get(r.name, frozenset())
        roles = (
            "cualquiera"
            if allowed >= set(ROLES)
            else ", ".join(label("rol", role) for role in ROLES if role in allowed)
        )
        for method in sorted(r.methods or ()):
            found.append(Operation(method, r.path, lines[0] if lines else "", roles))
    return found


@route(router, "GET", "/api/docs", "api.documentacion")
def api_docs(request: Request) -> Response:
    return render(request, "api.html", {"operaciones": operations(request)})
