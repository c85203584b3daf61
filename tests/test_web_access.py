"""The authorisation matrix: every route of the application, tried by every role and by no one.

The routes are enumerated from the application itself and checked against the declarative
table ``web.access.ACCESS``: a route not in the table, or a table entry with no route,
fails the first test; the second tries each (route, principal) pair and expects a refusal
exactly where the table says so.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from httpx import Response
from sqlalchemy import Engine, select

from democratiza.storage.schema import acceptances
from democratiza.web.app import api_routes, create_app
from democratiza.web.security.access import ACCESS, CSRF_COOKIE, GatedRoute
from democratiza.web.security.auth import AUDITOR, BROKER, OFFICE, PUBLIC, Principal
from tests.test_web_support import (
    BROKER_A,
    CODE,
    add_people,
    bearer,
    csrf_of,
    file_samples,
    log_in,
    open_offer,
)


def routes(client: TestClient) -> list[APIRoute]:
    app = client.app
    assert isinstance(app, FastAPI)
    found = api_routes(app)
    # Logging out ends the session the next requests use: try it last.
    return sorted(found, key=lambda r: r.name == "pag.salir")


def test_every_route_is_in_the_table_and_gated(engine: Engine) -> None:
    client = TestClient(create_app(engine))
    names = [r.name for r in routes(client)]
    assert len(names) == len(set(names)), "dos rutas con el mismo nombre"
    assert set(names) == set(ACCESS)
    for r in routes(client):
        # The gate runs in the route's own handler, before the body is read, and only there.
        assert isinstance(r, GatedRoute), r.name
        gates = [getattr(d.call, "__qualname__", "") for d in r.dependant.dependencies]
        assert "gate.<locals>.check" not in gates, r.name
    assert client.get("/estaticos/estilo.css").status_code == 200


def refused(response: Response, is_page: bool, anonymous: bool) -> bool:
    if is_page:
        to_login = response.status_code == 303 and response.headers["location"].startswith(
            "/entrar"
        )
        return to_login if anonymous else response.status_code == 403
    return response.status_code == (401 if anonymous else 403)


def test_each_role_and_no_one_get_exactly_what_the_table_allows(engine: Engine) -> None:
    add_people(engine)
    open_offer(engine)
    file_samples(engine)
    app = create_app(engine)
    with engine.connect() as conn:
        radicado = conn.execute(
            select(acceptances.c.radicado).where(acceptances.c.comisionista == BROKER_A).limit(1)
        ).scalar_one()
    broker = Principal(BROKER, BROKER_A, "pruebas", BROKER_A)
    job = app.state.jobs.submit("lote", broker, 1, "prueba", lambda _: {"detalle": "hecho"})
    values = {
        "codigo": CODE,
        "programa": "geb-2017",
        "radicado": radicado,
        "trabajo": job,
        "token_id": "999",
        "formato": "html",
        "etapa": "segunda",
        "simulacion": "0" * 32,
        "numero": "1",
    }
    principals: dict[str, tuple[str, TestClient, dict[str, str]]] = {}
    nobody = TestClient(app)
    csrf_of(nobody, "/entrar")  # the double-submit cookie a browser would have
    principals["nadie"] = (PUBLIC, nobody, {"X-CSRF-Token": nobody.cookies[CSRF_COOKIE]})
    for login, role in [("oficina", OFFICE), ("auditor", AUDITOR), ("comisionista_a", BROKER)]:
        client = TestClient(app)
        principals[login] = (role, client, {"X-CSRF-Token": log_in(client, login)})
    principals["token"] = (BROKER, TestClient(app), bearer(engine, BROKER_A))

    tried = 0
    for r in routes(nobody):
        path = r.path_format.format(**{k: v for k, v in values.items() if f"{{{k}}}" in r.path})
        is_page = not path.startswith("/api/")
        for method in sorted(r.methods or ()):
            for label, (role, client, headers) in principals.items():
                if method == "GET":
                    answer = client.get(path, headers=headers, follow_redirects=False)
                elif is_page:
                    answer = client.post(path, headers=headers, data={}, follow_redirects=False)
                else:
                    answer = client.post(path, headers=headers, json={}, follow_redirects=False)
                allowed = role in ACCESS[r.name]
                where = f"{method} {path} como {label}: {answer.status_code} {answer.text[:200]}"
                assert answer.status_code < 500, where
                assert refused(answer, is_page, role == PUBLIC) != allowed, where
                tried += 1
    assert tried == 5 * sum(len(r.methods or ()) for r in routes(nobody))
