"""The API against its own OpenAPI description, with schemathesis (property-based).

Every operation is called with generated requests, as a broker's system (API token) and
as the program office (session cookie and CSRF header), over HTTP to the service on the
loopback, on an open offer with the sample batches; each answer must be no server error
and have a status, content type, headers and body that the description declares. The
examples per operation are few so the whole run stays near a minute.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import positive_data_acceptance

from democratiza.storage.database import make_engine, migrate
from democratiza.web.app import create_app
from democratiza.web.security.access import SESSION_COOKIE
from tests.test_web_support import (
    BROKER_A,
    add_people,
    bearer,
    file_samples,
    log_in,
    open_offer,
    serving,
)

EXAMPLES = int(os.environ.get("DEMOCRATIZA_EJEMPLOS", "12"))
# "Schema-valid request rejected": a request can be well formed and still refused by the
# rules (a category the program does not have, an offer in another state, a file that is not
# CSV, XLSX or JSON); those answers are 4xx declared in the description, with the reason.
BUSINESS_REFUSALS = [positive_data_acceptance]
# The description does not depend on the database: read it from an application on none.
schema = schemathesis.openapi.from_dict(create_app(make_engine("sqlite://")).openapi())


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[dict[str, str]]]]:
    engine = make_engine(f"sqlite:///{tmp_path_factory.mktemp('api') / 'democratiza.db'}")
    migrate(engine)
    add_people(engine)
    open_offer(engine)
    file_samples(engine)
    app = create_app(engine)
    office = TestClient(app)
    csrf = log_in(office, "oficina")
    cookie = f"{SESSION_COOKIE}={office.cookies[SESSION_COOKIE]}"
    credentials = [bearer(engine, BROKER_A), {"X-CSRF-Token": csrf, "Cookie": cookie}]
    with serving(app) as url:
        yield url, credentials
    engine.dispose()


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_the_api_keeps_to_its_description(
    case: schemathesis.Case[Any], service: tuple[str, list[dict[str, str]]]
) -> None:
    url, credentials = service
    for headers in credentials:
        case.call_and_validate(base_url=url, headers=headers, excluded_checks=BUSINESS_REFUSALS)
