"""The operator's view of the service: ``/salud``, ``/metricas``, request ids and JSON lines.

Worked example: a broker's system files the sample batch of Casa de Bolsa (750 rows) and
a malformed one; the figures count one batch filed, one refused and the 750 rows by
decision, the log says one line per request with the route's template, the role, the
status and the rows, and neither says a name, an identification number or an amount.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text

from democratiza.web.app import create_app
from democratiza.web.server import health
from tests.test_web_support import BROKER_A, CODE, SAMPLE, bearer, open_offer

LOCAL = ("127.0.0.1", 40000)
FAR = ("203.0.113.9", 40000)


def figure(page: str, name: str) -> float:
    """The value of one sample line (``name`` with its labels) of a metrics page, or 0."""
    for line in page.splitlines():
        if line.startswith(name + " "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_health_says_whether_the_process_can_serve(engine: Engine) -> None:
    client = TestClient(create_app(engine), client=FAR)  # a load balancer: anyone may ask
    answer = client.get("/salud")
    assert answer.status_code == 200
    assert answer.json()["puede_servir"] is True
    assert answer.json()["esquema"] == health.latest_migration()
    # A database one migration behind this code: alive, but not to be sent requests.
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '0012'"))
    behind = client.get("/salud")
    assert behind.status_code == 503
    assert behind.json()["vivo"] is True and behind.json()["puede_servir"] is False
    assert "corra las migraciones" in behind.json()["detalle"]
    # No schema at all (a database never migrated): 503 too, in words.
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE alembic_version"))
    gone = client.get("/salud")
    assert gone.status_code == 503 and "no tiene el esquema" in gone.json()["detalle"]


def test_metrics_only_for_the_operator(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    app = create_app(engine)
    monkeypatch.delenv(health.TOKEN_VARIABLE, raising=False)
    far = TestClient(app, client=FAR)
    assert far.get("/metricas").status_code == 403
    local = TestClient(app, client=LOCAL)
    assert local.get("/metricas").status_code == 200
    # A proxy on this same machine forwards everyone's requests from the loopback.
    forwarded = local.get("/metricas", headers={"X-Forwarded-For": "198.51.100.7"})
    assert forwarded.status_code == 403 and "solo para el operador" in forwarded.json()["detalle"]
    monkeypatch.setenv(health.TOKEN_VARIABLE, "secreto-del-operador")
    assert far.get("/metricas", headers={"Authorization": "Bearer otro"}).status_code == 403
    ok = far.get("/metricas", headers={"Authorization": "Bearer secreto-del-operador"})
    assert ok.status_code == 200 and ok.headers["content-type"].startswith("text/plain")
    assert "# HELP democratiza_solicitud_segundos" in ok.text


def test_filing_is_counted_logged_and_names_no_one(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    open_offer(engine)
    app = create_app(engine)
    broker = TestClient(app, headers=bearer(engine, BROKER_A))
    local = TestClient(app, client=LOCAL)
    before = local.get("/metricas").text
    sample = (SAMPLE / "lote-1-casa-de-bolsa.csv").read_bytes()
    with caplog.at_level(logging.INFO, logger="democratiza.solicitudes"):
        filed = broker.post(
            f"/api/ofertas/{CODE}/lotes",
            files={"archivo": ("lote-1.csv", sample)},
            data={"lote": "L1"},
            headers={"X-Request-Id": "balanceador-0001"},
        )
        bad = broker.post(
            f"/api/ofertas/{CODE}/lotes",
            files={"archivo": ("malo.csv", b"referencia\nAC-1\n")},
            data={"lote": "L2"},
            headers={"X-Request-Id": "no vale: espacios"},
        )
    assert filed.status_code == 201 and bad.status_code == 422
    # The id the proxy sent comes back; one that is not a plain token is replaced.
    assert filed.headers["x-request-id"] == "balanceador-0001"
    assert len(bad.headers["x-request-id"]) == 16 and " " not in bad.headers["x-request-id"]
    decisions = filed.json()["por_decision"]
    after = local.get("/metricas").text

    def grew(name: str) -> float:
        return figure(after, name) - figure(before, name)

    assert grew('democratiza_lotes_total{resultado="radicado"}') == 1
    assert grew('democratiza_lotes_total{resultado="rechazado"}') == 1
    for decision, rows in decisions.items():
        assert grew(f'democratiza_filas_radicadas_total{{decision="{decision}"}}') == rows
    assert grew("democratiza_filas_rechazadas_total") == decisions.get("rechazada", 0)
    route = 'ruta="/api/ofertas/{codigo}/lotes"'
    assert grew(f'democratiza_solicitudes_total{{estado="201",metodo="POST",{route}}}') == 1
    assert grew(f'democratiza_solicitudes_total{{estado="422",metodo="POST",{route}}}') == 1
    assert grew(f"democratiza_solicitud_segundos_count{{{route}}}") == 2

    lines = [json.loads(r.getMessage()) for r in caplog.records]
    assert [line["estado"] for line in lines] == [201, 422]
    first = lines[0]
    assert first["request_id"] == "balanceador-0001"
    assert first["ruta"] == "/api/ofertas/{codigo}/lotes" and first["metodo"] == "POST"
    assert first["rol"] == "comisionista" and first["filas"] == 750
    assert first["duracion_ms"] > 0 and first["cuando"].endswith("+00:00")
    # Neither the figures nor the lines carry a person's name, number or amount.
    people = list(csv.DictReader(io.StringIO(sample.decode())))
    told = after + "\n".join(r.getMessage() for r in caplog.records)
    for person in people[:50]:
        assert person["numero_identificacion"] not in told
        assert person["nombre"] not in told
        assert f":{person['cantidad']}," not in told


def test_a_job_tells_its_end_in_one_line_with_the_request_that_started_it(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    from democratiza.storage.audit import acting_as
    from democratiza.web.security.auth import BROKER, Principal

    app = create_app(engine)
    who = Principal(BROKER, BROKER_A, "pruebas", BROKER_A)
    with (
        acting_as("solicitud-del-trabajo"),
        caplog.at_level(logging.INFO, logger="democratiza.trabajos"),
    ):
        app.state.jobs.submit("lote", who, 1, "En cola.", lambda _: {"detalle": "", "filas": 3})
        app.state.jobs.shutdown()
    (line,) = [json.loads(r.getMessage()) for r in caplog.records]
    assert line["tipo"] == "lote" and line["estado"] == "terminado" and line["filas"] == 3
    assert line["request_id"] == "solicitud-del-trabajo" and line["rol"] == "comisionista"


def python(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``code`` run by a new interpreter, as a process of the service starts."""
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env=env,
    )


COUNT_ONE = "from democratiza.web.server import metrics; metrics.count_refusal()"
SHOW = (
    "import sys; from democratiza.web.server import metrics; "
    "sys.stdout.buffer.write(metrics.exposition())"
)


def test_several_processes_add_up_in_one_page(tmp_path: Path) -> None:
    """Two processes count a refused batch each; a third one's page says two."""
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    for _ in range(2):
        python(COUNT_ONE, env)
    page = python(SHOW, env).stdout
    assert figure(page, 'democratiza_lotes_total{resultado="rechazado"}') == 2


def test_the_service_empties_the_operators_metrics_folder_of_a_previous_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from democratiza.web.server.processes import METRICS_VARIABLE, prepare_metrics_folder

    stale = tmp_path / "counter_4242.db"
    stale.write_bytes(b"cifras de una corrida anterior")
    monkeypatch.setenv(METRICS_VARIABLE, str(tmp_path))
    assert prepare_metrics_folder() == str(tmp_path) and not stale.exists()
    monkeypatch.delenv(METRICS_VARIABLE)
    own = prepare_metrics_folder()  # none given: a private folder, for every process started
    assert os.environ[METRICS_VARIABLE] == own and Path(own).is_dir()
    Path(own).rmdir()
    monkeypatch.delenv(METRICS_VARIABLE)


def test_the_service_lines_are_written_apart_and_none_is_lost_at_exit() -> None:
    """The lines go to standard error from a thread of their own (a slow reader of standard
    error never holds a request back), and the ones still queued are written at exit."""
    code = (
        "from democratiza.web.server.observability import REQUEST_LOG, configure_logs, log_line\n"
        "import threading\n"
        "configure_logs(); configure_logs()  # twice, as two applications in one process\n"
        "for n in range(500): log_line(REQUEST_LOG, {'estado': 201, 'n': n})\n"
        "print(threading.active_count())\n"
    )
    done = python(code)
    lines = [json.loads(line) for line in done.stderr.splitlines()]
    assert [line["n"] for line in lines] == list(range(500))  # each once, in order
    assert done.stdout.split() == ["2"]  # the main thread and the one that writes, once


def test_a_logger_given_another_handler_still_gets_each_line_as_a_record() -> None:
    """The service's lines skip the log record only while the writer is the logger's one way
    out; an operator's own handler (here a list) gets every line, and the writer too."""
    code = (
        "import json, logging\n"
        "from democratiza.web.server.observability import REQUEST_LOG, configure_logs, log_line\n"
        "configure_logs()\n"
        "log_line(REQUEST_LOG, {'n': 1})\n"
        "seen = []\n"
        "class Kept(logging.Handler):\n"
        "    def emit(self, record): seen.append(json.loads(record.getMessage())['n'])\n"
        "REQUEST_LOG.addHandler(Kept())\n"
        "log_line(REQUEST_LOG, {'n': 2})\n"
        "print(seen)\n"
    )
    done = python(code)
    assert [json.loads(line)["n"] for line in done.stderr.splitlines()] == [1, 2]
    assert done.stdout.split() == ["[2]"]


def test_request_ids_differ_between_processes() -> None:
    """A new request id is sixteen hexadecimal digits, and two processes started alike
    (two of the service's) do not draw the same ones."""
    code = (
        "from democratiza.web.server.observability import new_request_id\n"
        "print(new_request_id(), new_request_id())\n"
    )
    drawn = [python(code).stdout.split() for _ in range(2)]
    ids = drawn[0] + drawn[1]
    assert len(set(ids)) == 4
    assert all(len(i) == 16 and set(i) <= set("0123456789abcdef") for i in ids)


def test_a_started_service_keeps_what_it_holds_out_of_the_collectors_full_passes(
    tmp_path: Path,
) -> None:
    """The application built as a process of the service builds it (``from_environment``)
    leaves the objects alive then out of the garbage collector's full passes."""
    code = (
        "import gc\n"
        "from democratiza.web.app import from_environment\n"
        "print(gc.get_freeze_count())\n"
        "from_environment()\n"
        "print(gc.get_freeze_count())\n"
    )
    env = {**os.environ, "DEMOCRATIZA_DB": f"sqlite:///{tmp_path / 'servicio.db'}"}
    done = python(code, env)
    before, after = (int(n) for n in done.stdout.split())
    assert before == 0 and after > 100_000, done.stderr
