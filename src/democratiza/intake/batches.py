"""Broker batches into the database: all or nothing, once only, evaluated at intake.

- A batch is parsed and evaluated completely before anything is written; a file with any
  bad row is refused whole with its row-by-row report.
- The batch and its acceptances are written in one transaction: a crash leaves nothing.
- (offer, broker, broker batch id) is unique in the database: a batch sent again, or by two
  processes at once, is stored once; the second send is told so.
- A row whose broker reference already has a current acceptance is a correction: it keeps
  the radicado, gets the next version, and the previous version stays as history.
- Radicados are ``<batch>-<row>``, so concurrent batches never compete for numbers.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

import polars as pl
from sqlalchemy import Connection, Engine, and_, insert, select, update
from sqlalchemy.exc import IntegrityError

from democratiza.intake.errors import InputError, InputRejected
from democratiza.intake.parse import parse
from democratiza.intake.readers import read_table
from democratiza.offers.lifecycle import OfferError, StoredOffer, load_offer
from democratiza.programs.parameters import OfferParameterError
from democratiza.rules.engine import CompiledProgram
from democratiza.storage.database import new_id
from democratiza.storage.schema import acceptances, batches

INSERT_CHUNK = 20_000


@dataclass(frozen=True)
class BatchResult:
    batch_id: int
    created: bool  # False when the same batch had already been received
    rows: int
    decisions: pl.DataFrame  # radicado, referencia, decision, cantidad_permitida, ...
    message: str


def file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _json_value(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    return value


def canonical_rows(frame: pl.DataFrame) -> list[str]:
    """Each typed acceptance as canonical JSON (the record of what was filed)."""
    columns = [c for c in frame.columns if c != "fila"]
    return [
        json.dumps(
            {k: _json_value(v) for k, v in zip(columns, row, strict=True)},
            sort_keys=True,
            ensure_ascii=False,
        )
        for row in frame.select(columns).iter_rows()
    ]


def _already_received(
    conn: Connection, offer_id: int, broker: str, batch: str, digest: str, path: Path
) -> BatchResult | None:
    row = conn.execute(
        select(batches.c.id, batches.c.huella, batches.c.filas).where(
            batches.c.oferta_id == offer_id,
            batches.c.comisionista == broker,
            batches.c.lote == batch,
        )
    ).first()
    if row is None:
        return None
    if row.huella != digest:
        raise InputRejected(
            [
                InputError(
                    str(path),
                    None,
                    None,
                    f"el lote '{batch}' de {broker} ya se recibió con otro contenido; "
                    "use un identificador de lote nuevo",
                )
            ]
        )
    decisions = pl.DataFrame(
        conn.execute(
            select(
                acceptances.c.radicado,
                acceptances.c.referencia,
                acceptances.c.decision,
                acceptances.c.cantidad_permitida,
            )
            .where(acceptances.c.lote_id == row.id)
            .order_by(acceptances.c.radicado)
        )
        .mappings()
        .all()
    )
    return BatchResult(
        row.id,
        False,
        row.filas,
        decisions,
        f"El lote '{batch}' ya se había recibido; no se creó nada nuevo.",
    )


def import_batch(
    engine: Engine,
    offer_code: str,
    path: Path,
    broker: str,
    batch: str,
    who: str,
    before_commit: Callable[[], None] | None = None,
) -> BatchResult:
    """Receive one broker batch. ``before_commit`` lets tests interrupt a transaction."""
    digest = file_hash(path)
    with engine.connect() as conn:
        stored = load_offer(conn, offer_code)
        done = _already_received(conn, stored.id, broker, batch, digest, path)
        if done:
            return done
    if stored.state != "abierta":
        raise OfferError(f"La oferta '{offer_code}' está {stored.state}; no recibe aceptaciones.")
    frame = parse(read_table(path))
    foreign = frame.filter(pl.col("comisionista") != broker)
    if foreign.height:
        raise InputRejected(
            [
                InputError(
                    str(path),
                    row,
                    "comisionista",
                    f"la fila es de otro comisionista; el lote es de {broker}",
                )
                for row in foreign["fila"]
            ]
        )
    compiled = CompiledProgram(stored.offer)
    try:
        results = compiled.evaluate(frame)
    except OfferParameterError as exc:
        raise OfferError("\n".join(exc.messages)) from None
    try:
        with engine.begin() as conn:
            return _store(
                conn, stored, frame, results, path, broker, batch, digest, who, before_commit
            )
    except IntegrityError:
        # Another process stored the same batch between our check and our insert.
        with engine.connect() as conn:
            done = _already_received(conn, stored.id, broker, batch, digest, path)
        if done is None:
            raise
        return done


def _store(
    conn: Connection,
    stored: StoredOffer,
    frame: pl.DataFrame,
    results: pl.DataFrame,
    path: Path,
    broker: str,
    batch: str,
    digest: str,
    who: str,
    before_commit: Callable[[], None] | None,
) -> BatchResult:
    now = datetime.now()
    batch_id = new_id(
        conn.execute(
            insert(batches).values(
                oferta_id=stored.id,
                comisionista=broker,
                lote=batch,
                archivo=path.name,
                huella=digest,
                filas=frame.height,
                recibido_en=now,
                quien=who,
            )
        )
    )
    current = {
        r.referencia: (r.id, r.radicado, r.version)
        for r in conn.execute(
            select(
                acceptances.c.id,
                acceptances.c.referencia,
                acceptances.c.radicado,
                acceptances.c.version,
            ).where(
                and_(
                    acceptances.c.oferta_id == stored.id,
                    acceptances.c.comisionista == broker,
                    acceptances.c.vigente,
                    acceptances.c.referencia.in_(frame["referencia"].to_list()),
                )
            )
        )
    }
    corrected = [current[ref][0] for ref in frame["referencia"] if ref in current]
    for start in range(0, len(corrected), INSERT_CHUNK):
        conn.execute(
            update(acceptances)
            .where(acceptances.c.id.in_(corrected[start : start + INSERT_CHUNK]))
            .values(vigente=False)
        )
    records = canonical_rows(frame)
    rows = []
    for i, (res, data) in enumerate(zip(results.iter_rows(named=True), records, strict=True)):
        previous = current.get(res["referencia"])
        rows.append(
            {
                "oferta_id": stored.id,
                "lote_id": batch_id,
                "radicado": previous[1] if previous else f"{batch_id:06d}-{i + 1:06d}",
                "version": previous[2] + 1 if previous else 1,
                "vigente": True,
                "estado": "corregida" if previous else "radicada",
                "comisionista": broker,
                "referencia": res["referencia"],
                "tipo_identificacion": res["tipo_identificacion"],
                "numero_identificacion": res["numero_identificacion"],
                "nombre": res["nombre"],
                "categoria": res["categoria"],
                "fecha_radicacion": res["fecha_radicacion"],
                "cantidad": res["cantidad"],
                "cantidad_permitida": res["cantidad_permitida"],
                "limite_minimo": res["limite_minimo"],
                "decision": res["decision"],
                "regla_limitante": res["regla_limitante"],
                "causas": res["causas"],
                "datos": data,
            }
        )
    for start in range(0, len(rows), INSERT_CHUNK):
        conn.execute(insert(acceptances), rows[start : start + INSERT_CHUNK])
    if before_commit:
        before_commit()
    decisions = pl.DataFrame(
        [
            {k: r[k] for k in ("radicado", "referencia", "decision", "cantidad_permitida")}
            for r in rows
        ]
    )
    return BatchResult(
        batch_id,
        True,
        frame.height,
        decisions,
        f"Lote '{batch}' recibido: {frame.height} aceptaciones radicadas.",
    )


def withdraw(engine: Engine, offer_code: str, radicado: str, who: str, why: str) -> None:
    """Withdraw an acceptance before the window closes, keeping every version."""
    with engine.begin() as conn:
        stored = load_offer(conn, offer_code)
        if stored.state != "abierta":
            raise OfferError(
                "Una aceptación solo se puede retirar mientras la oferta está abierta."
            )
        row = (
            conn.execute(
                select(acceptances).where(
                    acceptances.c.oferta_id == stored.id,
                    acceptances.c.radicado == radicado,
                    acceptances.c.vigente,
                )
            )
            .mappings()
            .first()
        )
        if row is None:
            raise OfferError(f"No hay una aceptación vigente con radicado {radicado}.")
        conn.execute(update(acceptances).where(acceptances.c.id == row["id"]).values(vigente=False))
        new = {k: v for k, v in row.items() if k != "id"}
        new.update(
            version=row["version"] + 1,
            estado="retirada",
            vigente=True,
            cantidad_permitida=0,
            decision="rechazada",
            datos=json.dumps({"retiro": why, "quien": who}, ensure_ascii=False),
        )
        conn.execute(insert(acceptances).values(**new))
