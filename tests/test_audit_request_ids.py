"""The audit entry a request caused carries that request's id (``auditoria.solicitud``).

Worked example: nginx sends ``X-Request-Id: abc-0001`` with Casa de Bolsa's 750-row batch;
the service answers with that id and stores it in the batch's ``lote.recibir`` entry, also
when the batch is filed in the bulk lane's own process and when it is uploaded from the
broker's page (a background job). A single acceptance, filed in a group with others by
another thread, keeps its own request's id. The id is inside the entry's hash, and an entry
without one (the command line, every entry written before the column) hashes exactly as
entries always did, so old chains verify unchanged.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import time
from datetime import datetime
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import Engine, select, update

from democratiza.filing.singles import process_group, single_filing
from democratiza.storage import audit
from democratiza.storage.audit_export import export_chunks, export_lines
from democratiza.storage.schema import audit_log
from democratiza.web.app import create_app
from democratiza.web.server.bulk_lane import BulkLane
from tests.test_web_support import (
    BROKER_A,
    CODE,
    SAMPLE,
    add_people,
    bearer,
    log_in,
    open_offer,
)

GOOD = (SAMPLE / "lote-1-casa-de-bolsa.csv").read_bytes()


def requests_of(engine: Engine, action: str) -> list[str | None]:
    with engine.connect() as conn:
        return list(
            conn.execute(
                select(audit_log.c.solicitud)
                .where(audit_log.c.accion == action)
                .order_by(audit_log.c.id)
            ).scalars()
        )


def upload(client: TestClient, batch: str, request_id: str) -> int:
    answer = client.post(
        f"/api/ofertas/{CODE}/lotes",
        files={"archivo": ("lote-1.csv", GOOD)},
        data={"lote": batch},
        headers={"X-Request-Id": request_id},
    )
    assert answer.headers["x-request-id"] == request_id
    status: int = answer.status_code
    return status


def test_a_batch_filed_in_the_lane_carries_its_request_id(engine: Engine) -> None:
    open_offer(engine)
    lane = BulkLane(engine.url.render_as_string(hide_password=False))
    with TestClient(create_app(engine, lane=lane), headers=bearer(engine, BROKER_A)) as client:
        assert upload(client, "L1", "abc-0001") == 201
        assert upload(client, "L1", "abc-0002") == 201  # the same batch again: stored once
    assert lane.started == 1  # filed in the lane's own process
    assert requests_of(engine, "lote.recibir") == ["abc-0001"]  # the resend wrote nothing
    with engine.connect() as conn:
        assert audit.verify(conn).ok
        # The offer created and opened outside a request (as by the command line): no id.
        others = conn.execute(
            select(audit_log.c.solicitud).where(audit_log.c.accion != "lote.recibir")
        ).scalars()
        assert set(others) == {None}


def sample_rows(count: int) -> list[dict[str, str]]:
    """Rows of a sample batch as a broker's system sends them (blank cells left out)."""
    text = (SAMPLE / "lote-1-casa-de-bolsa.csv").read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))[-count:]
    return [{k: v for k, v in row.items() if v} for row in rows]


def test_single_acceptances_filed_by_the_service_keep_each_their_request_id(
    engine: Engine,
) -> None:
    open_offer(engine)
    client = TestClient(create_app(engine), headers=bearer(engine, BROKER_A))
    for n, row in enumerate(sample_rows(3)):
        answer = client.post(
            f"/api/ofertas/{CODE}/aceptaciones",
            json={"lote": f"S{n}", "aceptacion": row},
            headers={"X-Request-Id": f"suelta-000{n}"},
        )
        assert answer.status_code == 201, answer.text
    assert requests_of(engine, "lote.recibir") == ["suelta-0000", "suelta-0001", "suelta-0002"]


def test_single_acceptances_stored_in_one_group_keep_each_their_request_id(
    engine: Engine,
) -> None:
    """The group is stored by another thread, in one transaction and one write of the audit
    log; each filing carries the id of the request it was made in."""
    open_offer(engine)
    filings = []
    for n, row in enumerate(sample_rows(3)):
        with audit.acting_as(f"grupo-000{n}"):
            filings.append(single_filing(CODE, row, BROKER_A, f"G{n}", "token:1:Casa de Bolsa"))
    outcomes = process_group(engine, filings)
    assert all(not isinstance(o, Exception) and o.created for o in outcomes)
    assert requests_of(engine, "lote.recibir") == ["grupo-0000", "grupo-0001", "grupo-0002"]
    with engine.connect() as conn:
        assert audit.verify(conn).ok


def test_a_batch_uploaded_from_the_page_carries_the_upload_request_id(engine: Engine) -> None:
    add_people(engine)
    open_offer(engine)
    page = TestClient(create_app(engine))
    csrf = log_in(page, "comisionista_a")
    answer = page.post(
        f"/comisionista/ofertas/{CODE}/lotes",
        files={"archivo": ("lote-1.csv", GOOD)},
        data={"lote": "P1", "csrf": csrf},
        headers={"X-Request-Id": "pagina-0001"},
        follow_redirects=False,
    )
    assert answer.status_code == 303
    job = answer.headers["location"].rsplit("/", 1)[1]
    for _ in range(400):  # the job runs in a background thread
        if page.get(f"/api/trabajos/{job}").json()["estado"] in ("terminado", "fallido"):
            break
        time.sleep(0.05)
    assert requests_of(engine, "lote.recibir") == ["pagina-0001"]
    # The auditors read it in the audit log's API.
    auditor = TestClient(page.app)
    log_in(auditor, "auditor")
    entries = auditor.get("/api/auditoria").json()
    assert [e["solicitud"] for e in entries if e["accion"] == "lote.recibir"] == ["pagina-0001"]


def old_hash(previous: str, entry_id: int, when: datetime, who: str) -> str:
    """The hash of an entry as it was computed before requests had ids (written out)."""
    body = json.dumps(
        {
            "id": entry_id,
            "cuando": when.isoformat(timespec="microseconds"),
            "quien": who,
            "accion": "oferta.abrir",
            "entidad": "ofertas/1",
            "antes": None,
            "despues": None,
        },
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(f"{previous}\n{body}".encode()).hexdigest()


def test_an_entry_without_an_id_hashes_as_before_and_the_id_is_inside_the_hash(
    engine: Engine,
) -> None:
    when = datetime(2026, 12, 2, 14, 3, 11, 482000)
    args = (audit.GENESIS, 1, when, "oficina", "oferta.abrir", "ofertas/1", None, None)
    assert audit.entry_hash(*args) == old_hash(audit.GENESIS, 1, when, "oficina")
    assert audit.entry_hash(*args, "abc-0001") != audit.entry_hash(*args)
    with engine.begin() as conn:
        audit.append(conn, "oficina", "oferta.abrir", "ofertas/1", None, None)
        with audit.acting_as("abc-0001"):
            audit.append(conn, "oficina", "oferta.cerrar", "ofertas/1", None, None)
        assert audit.request_now() is None  # reset after
    with engine.connect() as conn:
        first = conn.execute(select(audit_log).where(audit_log.c.id == 1)).one()
        assert first.solicitud is None
        assert first.huella == old_hash(audit.GENESIS, 1, first.cuando, "oficina")
        assert audit.verify(conn).ok
    # An id changed afterwards breaks the chain at its entry.
    with engine.begin() as conn:
        conn.execute(update(audit_log).where(audit_log.c.id == 2).values(solicitud="otra-0001"))
    with engine.connect() as conn:
        broken = audit.verify(conn)
    assert broken.broken_at == 2 and broken.reason == "su contenido no corresponde a su huella"


def test_an_export_carries_the_id_and_an_export_made_before_it_still_verifies(
    engine: Engine, tmp_path: Path
) -> None:
    with engine.begin() as conn:
        audit.append(conn, "oficina", "oferta.abrir", "ofertas/1", None, None)
        audit.append_many(
            conn,
            [audit.Change("oficina", "oferta.cerrar", "ofertas/1", None, None, "abc-0001")],
        )
    with engine.connect() as conn:
        lines = [json.loads(line) for line in export_lines(conn)]
    assert [line["solicitud"] for line in lines] == [None, "abc-0001"]
    exported = tmp_path / "cadena.jsonl"
    exported.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert audit.verify_entries(export_chunks(exported)).ok
    # A file exported before requests had ids: no such key, its entries have none.
    old = tmp_path / "cadena-anterior.jsonl"
    del lines[0]["solicitud"]
    old.write_text(json.dumps(lines[0]) + "\n", encoding="utf-8")
    assert audit.verify_entries(export_chunks(old)).ok
