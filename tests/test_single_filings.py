"""Single acceptances filed together (group commit) answer and store exactly as one by one.

Each filing in a group keeps its own batch, radicado, audit entry and answer; a bad one is
refused alone; a resent one creates nothing; many brokers filing at once lose nothing and
store nothing twice. Run on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import csv
import json
import threading
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any, cast

import polars as pl
import pytest
import yaml
from polars.testing import assert_frame_equal
from sqlalchemy import Engine, func, select

from democratiza.filing import singles
from democratiza.filing.batches import import_batch
from democratiza.filing.singles import FILE_NAME, SingleFiling, process_group, single_filing
from democratiza.filing.store import BatchResult
from democratiza.offers.lifecycle import OfferError, advance, create_offer, load_offer
from democratiza.rules.engine import CompiledProgram
from democratiza.storage import audit
from democratiza.storage.radicados import broker_tag
from democratiza.storage.schema import acceptances, audit_log, batches
from democratiza.tables.errors import InputRejected
from democratiza.tables.parse import parse
from democratiza.tables.readers import read_table
from democratiza.web.server import group_commit
from democratiza.web.server.filing_answers import batch_answer
from democratiza.web.server.group_commit import SingleIntake, file_single
from tests.storage_support import refuse_acceptances_where

SAMPLE = Path(__file__).parents[1] / "examples/primera-etapa"
PARAMS = yaml.safe_load((SAMPLE / "oferta.yaml").read_text(encoding="utf-8"))
BROKER = "Casa de Bolsa"
OTHER = "Acciones y Valores"


def open_offer(engine: Engine, code: str) -> None:
    with engine.begin() as conn:
        stored = create_offer(conn, code, "central-seguros-vida", PARAMS, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "apertura")


def sample_rows() -> list[dict[str, str]]:
    """The sample batch's rows as a broker's system would send them (blank cells left out)."""
    with (SAMPLE / "lote-1-casa-de-bolsa.csv").open(encoding="utf-8") as fh:
        return [{k: v for k, v in row.items() if v} for row in csv.DictReader(fh)]


def varied_rows(engine: Engine, per_decision: int) -> list[dict[str, str]]:
    """Rows of the sample with every decision: accepted, reduced and rejected."""
    with engine.connect() as conn:
        compiled = CompiledProgram(load_offer(conn, "central").offer)
    decided = compiled.evaluate(parse(read_table(SAMPLE / "lote-1-casa-de-bolsa.csv")))
    rows = sample_rows()
    chosen: list[dict[str, str]] = []
    for decision in ("aceptada", "reducida", "rechazada"):
        positions = decided["decision"].cast(pl.String).eq(decision).arg_true().to_list()
        assert len(positions) >= per_decision, decision
        chosen += [rows[k] for k in positions[:per_decision]]
    return chosen


def filing(row: dict[str, Any], batch: str | None = None, code: str = "central") -> SingleFiling:
    return single_filing(code, row, BROKER, batch, "token:1:Casa de Bolsa")


def alone_as_before(engine: Engine, code: str, row: dict[str, Any], tmp: Path) -> BatchResult:
    """What filing one acceptance did before grouping: a one-row JSON batch file."""
    f = filing(row, code=code)
    folder = tmp / f.digest[:16]
    folder.mkdir()
    path = folder / FILE_NAME
    text_ = json.dumps({"aceptaciones": [dict(f.acceptance)]}, ensure_ascii=False, sort_keys=True)
    path.write_text(text_, encoding="utf-8")
    return import_batch(engine, code, path, BROKER, f.batch, f.who)


def stored(engine: Engine, code: str) -> pl.DataFrame:
    """An offer's stored acceptances, without what differs by construction (ids, radicados)."""
    with engine.connect() as conn:
        offer_id = load_offer(conn, code).id
        rows = conn.execute(
            select(acceptances)
            .where(acceptances.c.oferta_id == offer_id)
            .order_by(acceptances.c.referencia)
        )
        frame = pl.DataFrame([dict(r) for r in rows.mappings()], infer_schema_length=None)
    return frame.drop("id", "oferta_id", "lote_id", "radicado", "recepcion")


def counts(engine: Engine) -> tuple[int, int, int]:
    with engine.connect() as conn:
        return tuple(  # type: ignore[return-value]
            int(conn.execute(select(func.count()).select_from(t)).scalar_one())
            for t in (batches, acceptances, audit_log)
        )


def without_identity(answer: dict[str, Any]) -> dict[str, Any]:
    rows = [{k: v for k, v in r.items() if k != "radicado"} for r in answer["resultado"]]
    return {**answer, "numero_lote": None, "resultado": rows}


@pytest.fixture
def offer(engine: Engine) -> Engine:
    open_offer(engine, "central")
    return engine


def test_a_group_decides_and_stores_exactly_as_filing_one_by_one(
    offer: Engine, tmp_path: Path
) -> None:
    open_offer(offer, "uno-a-uno")
    rows = varied_rows(offer, 5)
    grouped = process_group(offer, [filing(r) for r in rows])
    alone = [alone_as_before(offer, "uno-a-uno", r, tmp_path) for r in rows]

    assert all(isinstance(g, BatchResult) and g.created for g in grouped)
    for g, a in zip(grouped, alone, strict=True):
        assert isinstance(g, BatchResult) and g.evaluated and a.evaluated
        assert_frame_equal(g.evaluated[1], a.evaluated[1])  # the engine's whole result
        assert_frame_equal(g.evaluated[2], a.evaluated[2])  # the typed row
        assert without_identity(batch_answer(g)) == without_identity(batch_answer(a))
        # Its own radicado: the broker's tag, its own count of batches, row 1.
        assert g.decisions["radicado"].to_list() == [f"{broker_tag(BROKER)}-{g.number:06d}-0000001"]
    decisions = {batch_answer(g)["resultado"][0]["decision"] for g in grouped}  # type: ignore[arg-type]
    assert decisions == {"aceptada", "reducida", "rechazada"}
    assert_frame_equal(stored(offer, "central"), stored(offer, "uno-a-uno"))
    with offer.connect() as conn:
        assert audit.verify(conn).ok
        entries = conn.execute(
            select(audit_log.c.entidad, audit_log.c.despues).where(
                audit_log.c.accion == "lote.recibir"
            )
        ).all()
    # One audit entry per filing, naming its own batch.
    grouped_ids = {f"lotes/{g.batch_id}" for g in grouped if isinstance(g, BatchResult)}
    assert grouped_ids <= {e.entidad for e in entries}
    assert len(entries) == 2 * len(rows)


def test_a_bad_filing_is_refused_alone_with_the_errors_it_has_alone(
    offer: Engine, tmp_path: Path
) -> None:
    good = sample_rows()[:3]
    marciano = {**sample_rows()[3], "categoria": "marciano"}
    foreign = {**sample_rows()[4], "comisionista": OTHER}
    unknown = {**sample_rows()[5], "color": "azul"}
    group = [good[0], marciano, good[1], foreign, unknown, good[2]]
    outcomes = process_group(offer, [filing(r) for r in group])

    created = [o for o in outcomes if isinstance(o, BatchResult)]
    assert [o.created for o in created] == [True, True, True]
    refused = [o for o in outcomes if isinstance(o, InputRejected)]
    assert len(refused) == 3
    assert refused[0].errors[0].column == "categoria"
    assert refused[0].errors[0].message.startswith("valor desconocido 'marciano'")
    assert refused[1].errors[0].message.startswith("la fila es de otro comisionista")
    assert refused[2].errors[0].message == "columna desconocida"
    # Exactly the errors the same acceptance gets filed alone (row 1 of its own file).
    for row, group_refusal in zip((marciano, foreign, unknown), refused, strict=True):
        with pytest.raises(InputRejected) as alone:
            alone_as_before(offer, "central", row, tmp_path)
        as_alone = [(e.row, e.column, e.message) for e in alone.value.errors]
        assert [(e.row, e.column, e.message) for e in group_refusal.errors] == as_alone
        assert {e.file for e in group_refusal.errors} == {FILE_NAME}
    assert counts(offer)[:2] == (3, 3)


def test_a_resent_filing_creates_nothing_and_says_so(offer: Engine) -> None:
    row = sample_rows()[0]
    first = file_single(offer, filing(row))
    before = counts(offer)
    again = file_single(offer, filing(row))
    assert first.created and not again.created
    assert again.batch_id == first.batch_id
    assert "no se creó nada nuevo" in again.message
    assert again.decisions.to_dicts() == first.decisions.to_dicts()
    # Sent again in the same group as a new filing: still nothing new for it.
    fresh = sample_rows()[1]
    both = process_group(offer, [filing(row), filing(fresh)])
    assert [o.created for o in both if isinstance(o, BatchResult)] == [False, True]
    assert counts(offer) == (before[0] + 1, before[1] + 1, before[2] + 1)
    # The same batch id with other content is refused: the broker must use a new id.
    with pytest.raises(InputRejected) as other:
        file_single(offer, filing({**row, "cantidad": "1"}, batch=first_batch(first, offer)))
    assert "ya se recibió con otro contenido" in other.value.errors[0].message
    assert counts(offer) == (before[0] + 1, before[1] + 1, before[2] + 1)


def test_resent_filings_are_recognised_before_the_group_is_stored(
    offer: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resends are found by (broker, batch id) before storing, so the new filings of the
    group are still stored together, not one by one after a refused write."""
    rows = sample_rows()[:4]
    sent = [file_single(offer, filing(r)) for r in rows[:2]]

    def not_alone(*args: object) -> None:
        raise AssertionError("the group fell back to storing one by one")

    monkeypatch.setattr(singles, "_store_alone", not_alone)
    outcomes = process_group(offer, [filing(r) for r in rows])
    assert [isinstance(o, BatchResult) and o.created for o in outcomes] == [
        False,
        False,
        True,
        True,
    ]
    assert [o.batch_id for o in outcomes[:2] if isinstance(o, BatchResult)] == [
        s.batch_id for s in sent
    ]
    assert counts(offer)[:2] == (4, 4)


def first_batch(result: BatchResult, engine: Engine) -> str:
    with engine.connect() as conn:
        return str(
            conn.execute(select(batches.c.lote).where(batches.c.id == result.batch_id)).scalar()
        )


def test_a_closed_or_missing_offer_refuses_every_filing_of_the_group(offer: Engine) -> None:
    missing = process_group(offer, [filing(sample_rows()[0], code="no-existe")])
    assert isinstance(missing[0], OfferError) and "No existe la oferta" in str(missing[0])
    with offer.begin() as conn:
        advance(conn, load_offer(conn, "central"), "cerrada", "oficina", "cierre")
    closed = process_group(offer, [filing(r) for r in sample_rows()[:2]])
    assert all(isinstance(o, OfferError) and "no recibe" in str(o) for o in closed)
    assert counts(offer)[:2] == (0, 0)


def test_a_batch_id_taken_meanwhile_falls_back_to_one_by_one(
    offer: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = sample_rows()[:4]
    taken = file_single(offer, filing(rows[1]))  # "another process" stored it meanwhile
    # The group does not see it in its check, as if it was stored just after the check.
    monkeypatch.setattr(singles, "_answer_resent", lambda *args: None)
    outcomes = process_group(offer, [filing(r) for r in rows])
    assert [isinstance(o, BatchResult) and o.created for o in outcomes] == [
        True,
        False,
        True,
        True,
    ]
    assert isinstance(outcomes[1], BatchResult) and outcomes[1].batch_id == taken.batch_id
    assert counts(offer)[:2] == (4, 4)
    with offer.connect() as conn:
        assert audit.verify(conn).ok


def test_a_row_the_database_refuses_fails_alone(offer: Engine) -> None:
    refuse_acceptances_where(offer, "NEW.referencia = 'MALA-1'")
    rows = sample_rows()[:3]
    rows[1] = {**rows[1], "referencia": "MALA-1"}
    outcomes = process_group(offer, [filing(r) for r in rows])
    assert isinstance(outcomes[0], BatchResult) and outcomes[0].created
    assert isinstance(outcomes[2], BatchResult) and outcomes[2].created
    assert "disco lleno" in str(outcomes[1]) and "no se guardó nada" in str(outcomes[1])
    assert counts(offer)[:2] == (2, 2)


def test_many_brokers_filing_at_once_lose_nothing_and_store_nothing_twice(offer: Engine) -> None:
    rows = sample_rows()
    threads, per_thread = 12, 12
    answers: list[list[BatchResult]] = [[] for _ in range(threads)]
    failures: list[BaseException] = []
    intake = SingleIntake(offer, window=0.005, max_rows=20)

    def broker(n: int) -> None:
        try:
            for k in range(per_thread):
                row = {**rows[n * per_thread + k], "referencia": f"T{n}-{k}"}
                answers[n].append(intake.submit(filing(row, batch=f"h{n}-{k}")).result())
            # Each thread also resends its first filing: nothing new.
            first = {**rows[n * per_thread], "referencia": f"T{n}-0"}
            answers[n].append(intake.submit(filing(first, batch=f"h{n}-0")).result())
        except BaseException as exc:  # reported below, with the thread's failure
            failures.append(exc)

    workers = [threading.Thread(target=broker, args=(n,)) for n in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=300)
    assert not failures
    created = [a for thread in answers for a in thread if a.created]
    resent = [a for thread in answers for a in thread if not a.created]
    assert len(created) == threads * per_thread and len(resent) == threads
    radicados = [a.decisions["radicado"][0] for a in created]
    assert len(set(radicados)) == len(radicados)
    total = threads * per_thread
    assert counts(offer) == (total, total, counts(offer)[2])
    with offer.connect() as conn:
        assert audit.verify(conn).ok
        received = conn.execute(
            select(func.count()).where(audit_log.c.accion == "lote.recibir")
        ).scalar_one()
        per_reference = conn.execute(
            select(acceptances.c.referencia, func.count())
            .group_by(acceptances.c.referencia)
            .having(func.count() > 1)
        ).all()
    assert received == total and per_reference == []


def test_the_same_filing_sent_by_many_threads_at_once_is_stored_once(offer: Engine) -> None:
    row = sample_rows()[0]
    intake = SingleIntake(offer, window=0.02, max_rows=50)
    futures = [intake.submit(filing(row)) for _ in range(8)]
    results = [f.result(timeout=120) for f in futures]
    assert sum(r.created for r in results) == 1
    assert len({r.batch_id for r in results}) == 1
    assert counts(offer)[:2] == (1, 1)


def test_a_second_filing_of_a_reference_waits_and_corrects_the_first(offer: Engine) -> None:
    row = sample_rows()[0]
    intake = SingleIntake(offer, window=0.02, max_rows=50)
    first = intake.submit(filing(row, batch="c-1"))
    second = intake.submit(filing({**row, "cantidad": "10"}, batch="c-2"))
    a, b = first.result(timeout=120), second.result(timeout=120)
    assert a.created and b.created and a.batch_id != b.batch_id
    assert b.decisions["radicado"].to_list() == a.decisions["radicado"].to_list()
    with offer.connect() as conn:
        versions = conn.execute(
            select(acceptances.c.version, acceptances.c.estado, acceptances.c.vigente)
            .where(acceptances.c.referencia == row["referencia"])
            .order_by(acceptances.c.version)
        ).all()
    assert [tuple(v) for v in versions] == [(1, "radicada", False), (2, "corregida", True)]


def test_interfering_filings_given_together_are_processed_in_order(offer: Engine) -> None:
    row = sample_rows()[0]
    sent = [
        filing(row, batch="d-1"),
        filing(row, batch="d-1"),  # the same filing again: a resend
        filing({**row, "cantidad": "10"}, batch="d-2"),  # the same reference: a correction
    ]
    outcomes = process_group(offer, sent)
    assert all(isinstance(o, BatchResult) for o in outcomes)
    results = [o for o in outcomes if isinstance(o, BatchResult)]
    assert [r.created for r in results] == [True, False, True]
    assert results[1].batch_id == results[0].batch_id
    assert results[2].decisions["radicado"].to_list() == results[0].decisions["radicado"].to_list()
    assert counts(offer)[:2] == (2, 2)


def test_a_filing_that_needs_a_missing_offer_parameter_is_refused_alone(
    engine: Engine, tmp_path: Path
) -> None:
    # geb-2017 converts dollar incomes with the offer's TRM; this offer has none.
    dates: dict[str, object] = {"fecha_aviso": "2017-12-22", "fecha_cierre": "2018-02-26"}
    with engine.begin() as conn:
        stored_offer = create_offer(conn, "geb", "geb-2017", dates, "oficina", "aviso")
        advance(conn, stored_offer, "abierta", "oficina", "apertura")
    with (Path(__file__).parents[1] / "examples/aceptaciones-geb-2017.csv").open() as fh:
        rows = [{k: v for k, v in r.items() if v} for r in csv.DictReader(fh)]
    dollars = next(r for r in rows if "ingresos_usd" in r)
    pesos = [r for r in rows if "ingresos_usd" not in r][:2]
    group = [pesos[0], dollars, pesos[1]]
    outcomes = process_group(
        engine, [filing({**r, "comisionista": BROKER}, code="geb") for r in group]
    )
    assert isinstance(outcomes[0], BatchResult) and outcomes[0].created
    assert isinstance(outcomes[2], BatchResult) and outcomes[2].created
    assert isinstance(outcomes[1], OfferError) and "trm" in str(outcomes[1])
    # The same acceptance filed alone, as before grouping, is refused the same way.
    with pytest.raises(OfferError) as alone:
        alone_as_before(engine, "geb", {**dollars, "comisionista": BROKER}, tmp_path)
    assert str(alone.value) == str(outcomes[1])
    assert counts(engine)[:2] == (2, 2)


def test_under_load_a_group_gathers_its_whole_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """A lone filing waits only the short quiet time; right after a group of several (the
    service under load) the next group takes what comes within its window, gaps and all."""
    groups: list[int] = []

    def record(engine: Engine, filings: list[SingleFiling]) -> list[str]:
        groups.append(len(filings))
        return ["guardada"] * len(filings)

    monkeypatch.setattr(group_commit, "process_group", record)
    intake = SingleIntake(cast(Engine, None), window=0.6, quiet=0.02)
    rows = sample_rows()

    def send(k: int) -> Future[BatchResult]:
        return intake.submit(filing({**rows[k], "referencia": f"Q{k}"}, batch=f"q-{k}"))

    for f in [send(0), send(1), send(2)]:  # together: one group
        f.result(timeout=30)
    first = send(3)  # right after that group: under load
    time.sleep(0.25)  # a gap longer than the quiet time, within the window
    second = send(4)
    first.result(timeout=30), second.result(timeout=30)
    time.sleep(0.7)  # idle for longer than the window: no longer under load
    alone = send(5)
    time.sleep(0.25)
    after = send(6)
    alone.result(timeout=30), after.result(timeout=30)
    assert groups == [3, 2, 1, 1]


def test_a_filing_the_database_refuses_whole_fails_alone_in_its_group(offer: Engine) -> None:
    # PostgreSQL refuses NUL in any text: the group's lookup of resent batches fails whole.
    # (The web refuses NUL at the door; here a filing gets past it, as a fault would.)
    rows = sample_rows()[:4]
    intake = SingleIntake(offer, window=0.5, quiet=0.5, max_rows=50)
    names = ["g-0", "x\x00y", "g-2", "g-3"]
    futures = [intake.submit(filing(r, batch=n)) for r, n in zip(rows, names, strict=True)]
    for n in (0, 2, 3):
        assert futures[n].result(timeout=120).created
    if offer.dialect.name == "postgresql":
        with pytest.raises(Exception, match="u0000"):
            futures[1].result(timeout=120)
        assert counts(offer)[:2] == (3, 3)
