"""Broker batches into the database: all or nothing, once only, evaluated at intake.

- A batch is parsed and evaluated completely before anything is written; a file with any
  bad row is refused whole with its row-by-row report.
- The batch and its acceptances are written in one transaction: a crash leaves nothing.
- (offer, broker, broker batch id) is unique in the database: a batch sent again, or by two
  processes at once, is stored once; the second send is told so.
- A row whose broker reference already has a current acceptance is a correction: it keeps
  the radicado, gets the next version, and the previous version stays as history.
- Radicados are ``<tag>-<the broker's batch number>-<row>`` and tell a broker nothing
  about other brokers; the order of receipt is kept apart (``storage.radicados``).

The write itself, shared with single acceptances, is ``filing.store``.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import polars as pl
from sqlalchemy import Connection, Engine, select

from democratiza.filing.compiled import compiled_program
from democratiza.filing.reasons import EXPLAINED_ROWS, resent_explanations
from democratiza.filing.store import BatchResult, Decided, store_batches
from democratiza.offers.lifecycle import OfferError, StoredOffer, load_offer
from democratiza.programs.parameters import OfferParameterError
from democratiza.rules.engine import CompiledProgram
from democratiza.storage.receipts import (
    look_up,
    previous_batch,
    store_once,
)
from democratiza.storage.schema import acceptances, batches
from democratiza.storage.versions import withdraw as withdraw_version
from democratiza.tables.acceptances import ACCEPTANCES
from democratiza.tables.brokers import read_broker_file

# Rows told done and to be done, for whoever shows them (``lote importar``'s bar).
Progress = Callable[[str, int, int], None]
# Rows evaluated at a time when someone watches: each acceptance is decided alone
# (``rules.engine``), so a batch decided in pieces is decided exactly as in one. Nobody
# watching (the service, a script), the batch is evaluated in one piece, as fast as it goes.
PIECE_ROWS = 50_000


def evaluate_in_pieces(
    compiled: CompiledProgram, frame: pl.DataFrame, progress: Progress | None = None
) -> pl.DataFrame:
    """``compiled.evaluate(frame)``, told to ``progress`` after each ``PIECE_ROWS`` rows."""
    if progress is None:
        return compiled.evaluate(frame)
    total = frame.height
    progress("Evaluando", 0, total)
    parts = []
    for start in range(0, max(total, 1), PIECE_ROWS):
        parts.append(compiled.evaluate(frame.slice(start, PIECE_ROWS)))
        progress("Evaluando", min(total, start + PIECE_ROWS), total)
    return pl.concat(parts) if len(parts) > 1 else parts[0]


# The versions a batch wrote when received; later versions of its rows (withdrawn, evaluated
# again at an adjusted price) keep its ``lote_id`` but are not what the batch was answered.
RECEIVED = acceptances.c.estado.in_(["radicada", "corregida"])


def already_received(
    conn: Connection,
    stored: StoredOffer,
    broker: str,
    batch: str,
    digest: str,
    source: Path | str,
    explain: bool = True,
) -> BatchResult | None:
    """The stored answer to a batch sent again (``None`` if new; other bytes refused), with
    each row's reason as its first answer gave it (``reasons.resent_explanations``).

    Why here: every path that answers a resent batch comes through this function (a batch
    from the web or the command line, a single acceptance sent again, the answer after a
    lane's process died), so none of them answers without the reasons. Only a caller that
    never shows them says so (``explain=False``: the command line, which writes the batch's
    files again from its own evaluation): explaining up to a thousand rows reads them again.
    """
    row = previous_batch(conn, batches, {"oferta_id": stored.id}, broker, batch, digest, source)
    if row is None:
        return None
    decisions = pl.DataFrame(
        conn.execute(
            select(
                acceptances.c.radicado,
                acceptances.c.referencia,
                acceptances.c.decision,
                acceptances.c.cantidad_permitida,
            )
            .where(acceptances.c.lote_id == row.id, RECEIVED)
            .order_by(acceptances.c.radicado)
        )
        .mappings()
        .all()
    )
    return BatchResult(
        row.id,
        row.numero,
        False,
        row.filas,
        decisions,
        f"El lote '{batch}' ya se había recibido; no se creó nada nuevo.",
        explanations=resent_explanations(conn, stored, decisions, EXPLAINED_ROWS)
        if explain
        else None,
    )


def import_batch(
    engine: Engine,
    offer_code: str,
    path: Path,
    broker: str,
    batch: str,
    who: str,
    before_commit: Callable[[], None] | None = None,
    exclusive: Callable[[], AbstractContextManager[object]] = nullcontext,
    progress: Progress | None = None,
    explain: bool = True,
) -> BatchResult:
    """Receive one broker batch. ``before_commit`` lets tests interrupt a transaction;
    ``progress`` is told the rows read, evaluated and stored, as each step goes;
    ``explain=False`` answers a resent batch without its rows' reasons (``already_received``).

    ``exclusive`` is held while the batch is evaluated and stored, not while its file is
    read: a service that files one batch at a time lets the next broker's batch go on
    while one broker's slow workbook is still being read.
    """
    stored, digest, done = look_up(
        engine,
        path,
        lambda conn: load_offer(conn, offer_code),
        lambda conn, offer, digest: already_received(
            conn, offer, broker, batch, digest, path, explain
        ),
    )
    if done:
        return done
    if stored.state != "abierta":
        raise OfferError(f"La oferta '{offer_code}' está {stored.state}; no recibe aceptaciones.")
    tell = progress or (lambda _step, _done, _total: None)
    tell("Leyendo el archivo", 0, 0)
    frame = read_broker_file(path, ACCEPTANCES, broker, datetime.now())
    with exclusive():
        compiled = compiled_program(stored)
        try:
            results = evaluate_in_pieces(compiled, frame, progress)
        except OfferParameterError as exc:
            raise OfferError("\n".join(exc.messages)) from None
        received = Decided(broker, batch, path.name, digest, who, frame, results)

        def store(conn: Connection) -> BatchResult:
            tell("Guardando", 0, frame.height)
            saving = None if progress is None else lambda done, n: progress("Guardando", done, n)
            [stored_batch] = store_batches(conn, stored, [received], before_commit, progress=saving)
            return replace(stored_batch, evaluated=(compiled, results, frame))

        def resent(conn: Connection) -> BatchResult | None:
            return already_received(conn, stored, broker, batch, digest, path, explain)

        return store_once(engine, store, resent)


def withdraw(engine: Engine, offer_code: str, radicado: str, who: str, why: str) -> None:
    """Withdraw an acceptance before the window closes, keeping every version."""
    with engine.begin() as conn:
        stored = load_offer(conn, offer_code)
        if stored.state != "abierta":
            raise OfferError(
                "Una aceptación solo se puede retirar mientras la oferta está abierta."
            )
        entry = ("aceptacion.retirar", f"ofertas/{stored.id}/aceptaciones/{radicado}")
        if not withdraw_version(
            conn,
            acceptances,
            {"oferta_id": stored.id},
            radicado,
            who,
            why,
            entry,
            cantidad_permitida=0,
            decision="rechazada",
            motivo=f"{why} ({who})",
        ):
            raise OfferError(f"No hay una aceptación vigente con radicado {radicado}.")
