"""Single acceptances decided and stored as one group, each still its own one-row batch.

``process_group`` takes filings of one offer that arrived together (the web service
collects them: ``web.server.group_commit``), types them in one frame by ``tables.parse``,
decides them in one call of the very same ``CompiledProgram.evaluate`` that decides a
million-row batch (no rule is written twice), and stores them in one transaction. Each
filing keeps what it would have had filed alone:

- its own batch (a ``lotes`` row with its own id, name and hash): a filing sent again is
  recognised and answered from what was stored, exactly as a resent batch;
- its own radicado (``<batch>-000001``) and its own audit entry;
- its own answer: a bad filing is refused alone with the errors it would have had on its
  own (row 1 of its own file), and the others of its group are not affected;
- once-only storage: if the group's transaction fails (say another process took one
  filing's batch id meanwhile), the group is stored again one filing at a time, each in
  its own transaction, so no filing is lost or stored twice.

Two filings that could interfere in one frame (the same batch id of a broker, or the same
reference, which the format requires to be unique in a file) never share a group
(``without_conflicts``): the later one goes in the next group, which then sees the first
as stored.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import polars as pl
from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError, IntegrityError

from democratiza.filing.batches import already_received
from democratiza.filing.compiled import compiled_program
from democratiza.filing.store import BatchResult, Decided, store_batches
from democratiza.offers.lifecycle import OfferError, StoredOffer, current_offer
from democratiza.programs.parameters import OfferParameterError
from democratiza.rules.engine import CompiledProgram
from democratiza.rules.explain import Explanation, explainer_for
from democratiza.storage import audit
from democratiza.storage.bulk import rows_with_keys
from democratiza.storage.receipts import StorageError, refused_write
from democratiza.storage.schema import batches
from democratiza.tables.acceptances import ACCEPTANCES
from democratiza.tables.brokers import foreign_row
from democratiza.tables.errors import InputError, InputRejected
from democratiza.tables.parse import column_errors, parse_rows
from democratiza.tables.readers import cell_key, read_records

FILE_NAME = "aceptacion.json"  # the ``archivo`` of a single filing's batch, as before grouping


@dataclass(frozen=True)
class SingleFiling:
    """One acceptance filed alone by a broker, with the identity it keeps in any group."""

    offer_code: str
    broker: str
    batch: str  # the broker's batch id (given, or derived from the content)
    acceptance: Mapping[str, Any]  # the row as filed, ``comisionista`` included
    digest: str  # SHA-256 of the canonical text: a resend of the same content is recognised
    who: str  # who files (audit log)
    source: str  # the name this filing's errors carry
    # The web request that filed it, taken where it is filed: the group is stored in
    # another thread, and each filing's audit entry carries its own request's id.
    request: str | None = field(default_factory=audit.request_now)


def single_filing(
    offer_code: str,
    acceptance: Mapping[str, Any],
    broker: str,
    batch: str | None,
    who: str,
    source: str = FILE_NAME,
) -> SingleFiling:
    """A filing as a one-row batch: its canonical text gives its hash and its default id.

    The text (and so the hash and the default batch id) is the same one single filings
    have always had, so a filing resent across versions is still recognised. The row is
    the broker's, unless the client names another broker, which is then refused.
    """
    row = {"comisionista": broker, **acceptance}
    text = json.dumps({"aceptaciones": [row]}, ensure_ascii=False, sort_keys=True)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    batch = batch or "web-" + digest[:24]
    return SingleFiling(offer_code, broker, batch, row, digest, who, source)


Outcome = BatchResult | Exception
T = TypeVar("T")


def process_group(engine: Engine, filings: Sequence[SingleFiling]) -> list[Outcome]:
    """Decide and store filings of one offer together; one outcome per filing, in order.

    An outcome is the filing's ``BatchResult`` or the exception that refuses it
    (``InputRejected``, ``OfferError`` or ``StorageError``), exactly as ``import_batch``
    would have answered the filing alone. Filings that would interfere (see
    ``without_conflicts``) are processed in a later round, after the earlier ones.
    """
    assert len({f.offer_code for f in filings}) == 1, "a group is of one offer"
    outcomes: list[Outcome | None] = [None] * len(filings)
    remaining = list(range(len(filings)))
    while remaining:
        now, remaining = without_conflicts(remaining, lambda i: filings[i], len(remaining))
        for i, outcome in zip(now, _process_once(engine, [filings[i] for i in now]), strict=True):
            outcomes[i] = outcome
    return [o for o in outcomes if o is not None]


def _process_once(engine: Engine, filings: Sequence[SingleFiling]) -> list[Outcome]:
    """``process_group`` for filings that do not interfere with each other."""
    outcomes: dict[int, Outcome] = {}
    try:
        # Two reads, each its own statement: no transaction around them (on PostgreSQL a
        # BEGIN and a ROLLBACK are two more round trips, for every group).
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            stored = current_offer(conn, filings[0].offer_code)
            _answer_resent(conn, stored, filings, outcomes)
    except OfferError as exc:
        # One exception per filing: each is raised in its own caller's thread.
        return [OfferError(str(exc)) for _ in filings]
    if stored.state != "abierta":
        closed = f"La oferta '{stored.code}' está {stored.state}; no recibe aceptaciones."
        for i in range(len(filings)):
            outcomes.setdefault(i, OfferError(closed))
    pending = [i for i in range(len(filings)) if i not in outcomes]
    if pending:
        typed, owners = _typed(filings, pending, outcomes)
        if owners:
            compiled = compiled_program(stored)
            rows, results, decided = _decided(compiled, typed, owners, outcomes)
            if decided:
                explained = explainer_for(compiled).explain_not_accepted(results, rows)
                _store(
                    engine, stored, filings, (compiled, rows, results, explained), decided, outcomes
                )
    return [outcomes[i] for i in range(len(filings))]


def _answer_resent(
    conn: Connection,
    stored: StoredOffer,
    filings: Sequence[SingleFiling],
    outcomes: dict[int, Outcome],
) -> None:
    """Filings whose batch id is already stored: answered as a resent batch (or refused).

    Looked up by (broker, batch id), each one probe of the unique index on (offer, broker,
    batch id): with the batch ids alone the server read every batch of the offer, and each
    single acceptance is a batch, so every group cost more than the last.
    """
    pairs = sorted({(f.broker, f.batch) for f in filings})
    keys = pl.DataFrame(pairs, schema=["comisionista", "lote"], orient="row")
    found = rows_with_keys(conn, batches, keys, ["comisionista", "lote"], {"oferta_id": stored.id})
    known = {(r.comisionista, r.lote) for r in found}
    for i, f in enumerate(filings):
        if (f.broker, f.batch) in known:
            try:
                done = already_received(conn, stored, f.broker, f.batch, f.digest, f.source)
            except InputRejected as exc:
                outcomes[i] = exc
                continue
            if done is not None:
                outcomes[i] = done


def _typed(
    filings: Sequence[SingleFiling], pending: list[int], outcomes: dict[int, Outcome]
) -> tuple[pl.DataFrame, list[int]]:
    """The pending filings typed in one frame; each bad one refused with its own errors.

    Returns the typed rows (row 1 each, as alone) and, per row, the filing it belongs to.
    """
    columns_ok = []
    for i in pending:
        f = filings[i]
        names = list(f.acceptance)
        errors = column_errors(f.source, names, ACCEPTANCES)
        if "fila" in names:  # the row number is the reader's, never a column of the file
            errors.append(InputError(f.source, 1, "fila", "columna desconocida"))
        if errors:
            outcomes[i] = InputRejected(errors)
        else:
            columns_ok.append(i)
    if not columns_ok:
        return pl.DataFrame(), []
    raw = read_records("", [filings[i].acceptance for i in columns_ok])
    typed, errors = parse_rows(raw, ACCEPTANCES)
    by_row: dict[int, list[InputError]] = {}
    for e in errors:
        assert e.row is not None, "cell errors name their row"
        by_row.setdefault(e.row, []).append(e)
    for row, found in by_row.items():
        f_index = columns_ok[row - 1]
        source = filings[f_index].source
        outcomes[f_index] = InputRejected(
            [InputError(source, 1, e.column, e.message) for e in found]
        )
    owners = [columns_ok[row - 1] for row in typed["fila"].to_list()]
    foreign = []
    for k, (i, broker) in enumerate(zip(owners, typed["comisionista"].to_list(), strict=True)):
        f = filings[i]
        if broker != f.broker:
            outcomes[i] = InputRejected([foreign_row(f.source, 1, f.broker)])
            foreign.append(k)
    if foreign:
        keep = pl.Series([k not in foreign for k in range(typed.height)])
        typed = typed.filter(keep)
        owners = [i for k, i in enumerate(owners) if k not in foreign]
    # Every filing is row 1 of its own one-row batch, as when filed alone.
    return typed.with_columns(pl.lit(1, dtype=pl.Int64).alias("fila")), owners


def _decided(
    compiled: CompiledProgram,
    typed: pl.DataFrame,
    owners: list[int],
    outcomes: dict[int, Outcome],
) -> tuple[pl.DataFrame, pl.DataFrame, list[int]]:
    """The engine's decisions for the typed rows, in one call for the group.

    Returns (typed rows, their decisions, their filings). An offer parameter missing for
    some row refuses the whole call; then each row is decided alone, so that only the
    filings that need the missing parameter are refused.
    """
    try:
        return typed, compiled.evaluate(typed), owners
    except OfferParameterError:
        pass
    results, kept = [], []
    for k, i in enumerate(owners):
        try:
            results.append(compiled.evaluate(typed.slice(k, 1)))
        except OfferParameterError as exc:
            outcomes[i] = OfferError("\n".join(exc.messages))
            continue
        kept.append(k)
    if not kept:
        return typed.clear(), pl.DataFrame(), []
    rows = typed[kept]
    return rows, pl.concat(results), [owners[k] for k in kept]


Evaluated = tuple[CompiledProgram, pl.DataFrame, pl.DataFrame, list[Explanation | None]]


def _store(
    engine: Engine,
    stored: StoredOffer,
    filings: Sequence[SingleFiling],
    evaluated: Evaluated,
    owners: list[int],
    outcomes: dict[int, Outcome],
) -> None:
    """One transaction for the group; if it fails, one transaction per filing."""
    compiled, typed, results, explained = evaluated
    decided = [
        Decided(
            filings[i].broker,
            filings[i].batch,
            FILE_NAME,
            filings[i].digest,
            filings[i].who,
            typed.slice(k, 1),
            results.slice(k, 1),
            filings[i].request,
        )
        for k, i in enumerate(owners)
    ]
    try:
        with engine.begin() as conn:
            answers = store_batches(conn, stored, decided, numbers_apart=False)
    except (DBAPIError, StorageError):
        # Stored one by one: each filing gets its own answer (stored, resent or refused).
        for k, (d, i) in enumerate(zip(decided, owners, strict=True)):
            alone = _store_alone(engine, stored, d, filings[i].source)
            outcomes[i] = _with_evaluation(alone, compiled, d, explained[k])
        return
    for k, (d, i, answer) in enumerate(zip(decided, owners, answers, strict=True)):
        outcomes[i] = _with_evaluation(answer, compiled, d, explained[k])


def _with_evaluation(
    outcome: Outcome, compiled: CompiledProgram, d: Decided, explanation: Explanation | None
) -> Outcome:
    """A newly stored filing's result carries its evaluation, as ``import_batch``'s does."""
    if isinstance(outcome, Exception) or not outcome.created:
        return outcome
    return replace(outcome, evaluated=(compiled, d.results, d.frame), explanations=(explanation,))


def _store_alone(engine: Engine, stored: StoredOffer, d: Decided, source: str) -> Outcome:
    """One filing in its own transaction, answered as ``import_batch`` answers a batch."""
    try:
        with engine.begin() as conn:
            return store_batches(conn, stored, [d])[0]
    except StorageError as exc:
        return exc
    except IntegrityError as exc:
        try:
            with engine.connect() as conn:
                done = already_received(conn, stored, d.broker, d.batch, d.digest, source)
        except InputRejected as rejection:
            return rejection
        return done if done is not None else StorageError(refused_write(exc))
    except DBAPIError as exc:
        return StorageError(refused_write(exc))


def without_conflicts(
    items: list[T], filing_of: Callable[[T], SingleFiling], max_rows: int
) -> tuple[list[T], list[T]]:
    """(group, the rest): the group never holds two filings that would interfere.

    Those are two with the same batch id of the same broker (the second must be answered
    as a resend) or the same reference in the same offer (references are unique in a file,
    and a second filing of a reference corrects the first, so it must see it stored).
    """
    group: list[T] = []
    later: list[T] = []
    batches_seen: set[tuple[str, str, str]] = set()
    references_seen: set[tuple[str, str | None]] = set()
    for item in items:
        f = filing_of(item)
        batch_key = (f.offer_code, f.broker, f.batch)
        reference_key = (f.offer_code, cell_key(f.acceptance.get("referencia")))
        if len(group) >= max_rows or batch_key in batches_seen or reference_key in references_seen:
            later.append(item)
            continue
        batches_seen.add(batch_key)
        references_seen.add(reference_key)
        group.append(item)
    return group, later
