"""The API against its own OpenAPI description, with schemathesis (property-based).

Every operation is called with generated requests in every role: no one, a broker's
system (API token), a broker's person, the program office and the auditor (session cookie
and CSRF header), over HTTP to the service on the loopback, on SQLite and on PostgreSQL.
An offer's code is one of three real offers (open with the sample batches; adjudicated and
published with them; published with nothing awarded), so the routes do their work instead
of answering 404: a well-formed action is sent to each of them. No answer may be
a server error, whatever the input and the role; each must have a status, content type,
headers and body that the description declares. The examples per operation are few so the
whole run stays near a minute.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.checks import positive_data_acceptance
from sqlalchemy import Engine

from democratiza.adjudication.record import adjudicate
from democratiza.storage.database import make_engine, migrate
from democratiza.web.app import create_app
from democratiza.web.security.access import SESSION_COOKIE
from tests.conftest import fresh_postgres
from tests.test_web_support import (
    BROKER_A,
    CODE,
    add_people,
    bearer,
    file_samples,
    log_in,
    move,
    open_offer,
    serving,
)

# One worker runs this file (make test, pytest-xdist): its two services are started once.
pytestmark = pytest.mark.xdist_group("test_web_openapi")

EXAMPLES = int(os.environ.get("DEMOCRATIZA_EJEMPLOS", "6"))
PUBLISHED, NOTHING_AWARDED = "publicada-con-lotes", "publicada-sin-adjudicaciones"
ROLES = ["nadie", "token de comisionista", "comisionista_a", "oficina", "auditor"]
# "Schema-valid request rejected": a request can be well formed and still refused by the
# rules (a category the program does not have, an offer in another state, a file that is not
# CSV, XLSX or JSON); those answers are 4xx declared in the description, with the reason.
BUSINESS_REFUSALS = [positive_data_acceptance]
# The description does not depend on the database: read it from an application on none.
schema = schemathesis.openapi.from_dict(create_app(make_engine("sqlite://")).openapi())


def _offers(engine: Engine) -> None:
    """Open with the samples; published with them; published with nothing awarded."""
    for code in (CODE, PUBLISHED, NOTHING_AWARDED):
        open_offer(engine, code)
    for code in (CODE, PUBLISHED):
        file_samples(engine, code)
    for code in (PUBLISHED, NOTHING_AWARDED):
        move(engine, "cerrada", code)
        adjudicate(engine, code, "oficina", "adjudicación de prueba")
        move(engine, "publicada", code)


def _session(app: FastAPI, login: str) -> dict[str, str]:
    person = TestClient(app)
    csrf = log_in(person, login)
    return {"X-CSRF-Token": csrf, "Cookie": f"{SESSION_COOKIE}={person.cookies[SESSION_COOKIE]}"}


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def service(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, list[dict[str, str]]]]:
    """The service on each database: PostgreSQL refuses what SQLite stores (a NUL byte)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('api') / 'democratiza.db'}"
    else:
        url = request.getfixturevalue("pg_url")
        fresh_postgres(url)
    engine = make_engine(url)
    migrate(engine)
    add_people(engine)
    _offers(engine)
    app = create_app(engine)
    credentials = [{}, bearer(engine, BROKER_A)] + [_session(app, r) for r in ROLES[2:]]
    with serving(app) as url:
        yield url, credentials
    engine.dispose()


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    derandomize=True,  # the same cases on every run: CI answers for the code, not a draw
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_the_api_keeps_to_its_description(
    case: schemathesis.Case[Any], service: tuple[str, list[dict[str, str]]]
) -> None:
    url, credentials = service
    for code in _codes(case):
        if code is not None:
            case.path_parameters = {**(case.path_parameters or {}), "codigo": code}
        for role, headers in zip(ROLES, credentials, strict=True):
            # No time limit of its own: a loaded machine draws a PDF slowly; this is no timing.
            answer = case.call(base_url=url, headers=headers, timeout=300)
            assert answer.status_code < 500, (
                f"{role}: {case.method} {case.formatted_path} → {answer.status_code}\n"
                f"{case.as_curl_command()}\n{answer.text[:2000]}"
            )
            case.validate_response(answer, excluded_checks=BUSINESS_REFUSALS)


_TURN = itertools.cycle([CODE, PUBLISHED, NOTHING_AWARDED, None])


def _codes(case: schemathesis.Case[Any]) -> list[str | None]:
    """The offers a case is sent to (None: the code it was generated with).

    A well-formed request that acts (POST) goes to every real offer, so each action is tried
    in each state; any other request goes to the next offer in turn (a report drawn as PDF
    for every offer and role would take most of the run).
    """
    if "codigo" not in (case.path_parameters or {}):
        return [None]
    positive = case.meta is not None and case.meta.generation.mode == GenerationMode.POSITIVE
    if positive and case.method == "POST":
        return [None, CODE, PUBLISHED, NOTHING_AWARDED]
    return [next(_TURN)]
