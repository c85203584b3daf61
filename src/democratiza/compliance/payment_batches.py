"""Payments of a stage's awards, received from a file in one all-or-nothing batch.

Brokers and the program office report payments by the thousand; entering them one by one
(``democratiza pago registrar``) does not scale. A payment file has one row per payment:
``radicado`` of the award, ``fecha``, ``monto`` in pesos and ``forma`` (contado, credito,
cesantias, cuotas). It is read and typed by the shared intake code, and refused whole, with every
bad row named by file, row and column, when:

- a radicado has no current award in the offer (or the stage);
- the program does not provide the method, or the method is cesantías for a legal person
  (only natural persons where the program's ``formas_de_pago`` says so, with its citation);
  a later stage admits cash only (``compliance.ledger``);
- an amount is not positive.

(offer or stage, batch id) is unique: the same batch sent again stores nothing and says so;
the same id with other content is refused. Payments are received until the period is
settled. The Primera Etapa's and a later stage's payments run through this one code, each
over its ``Ledger``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

import polars as pl
from sqlalchemy import Connection, Engine, insert, select
from sqlalchemy.exc import IntegrityError

from democratiza.compliance.ledger import Ledger, offer_ledger
from democratiza.money import pesos
from democratiza.offers.lifecycle import OfferError
from democratiza.storage import audit
from democratiza.storage.bulk import write_rows
from democratiza.storage.database import new_id
from democratiza.storage.receipts import file_hash
from democratiza.tables.errors import InputError, InputRejected
from democratiza.tables.parse import parse
from democratiza.tables.payments import PAYMENTS
from democratiza.tables.readers import read_table
from democratiza.words import count

LedgerOf = Callable[[Connection, str], Ledger]  # ``offer_ledger`` or ``stage_ledger``


@dataclass(frozen=True)
class PaymentBatchResult:
    created: bool
    rows: int
    total: int  # centavos
    message: str


def _row_errors(path: Path, ledger: Ledger, frame: pl.DataFrame) -> list[InputError]:
    checks = [
        (
            pl.col(ledger.key).is_null(),
            "radicado",
            "el radicado no tiene acciones adjudicadas",
        ),
        (~pl.col("forma").is_in([m.id for m in ledger.methods]), "forma", ledger.refused_method),
        # A method the program file reserves to natural persons, with the file's citation.
        *(
            (
                (pl.col("forma") == m.id) & ~pl.col("natural"),
                "forma",
                f"la forma de pago {m.id} solo se admite a personas naturales ({m.citation})",
            )
            for m in ledger.methods
            if m.natural_only
        ),
        (pl.col("monto") <= 0, "monto", "el pago debe ser positivo"),
    ]
    errors = []
    for bad, column, message in checks:
        for row in frame.filter(bad.fill_null(False))["fila"]:
            errors.append(InputError(str(path), row, column, message))
    return sorted(errors, key=lambda e: (e.row or 0, e.column or ""))


def _open_for_payments(engine: Engine, code: str, ledger_of: LedgerOf) -> Ledger:
    with engine.connect() as conn:
        ledger = ledger_of(conn, code)
        if ledger.waiting is not None:
            raise OfferError(f"{ledger.waiting}; aún no hay qué pagar.")
        if ledger.settled(conn):
            raise OfferError("El periodo de pago ya se liquidó; no se reciben más pagos.")
    return ledger


def _checked(engine: Engine, ledger: Ledger, frame: pl.DataFrame, source: Path) -> pl.DataFrame:
    """The payments joined to their awards, or ``InputRejected`` naming every bad row."""
    with engine.connect() as conn:
        awarded = ledger.awarded(conn).select("radicado", ledger.key, "natural")
    frame = frame.with_columns(pl.col("forma").cast(pl.String)).join(
        awarded, on="radicado", how="left", maintain_order="left"
    )
    errors = _row_errors(source, ledger, frame)
    if errors:
        raise InputRejected(errors)
    return frame


def _rows(ledger: Ledger, frame: pl.DataFrame, who: str, now: datetime) -> pl.DataFrame:
    return frame.select(
        ledger.key,
        "fecha",
        "monto",
        "forma",
        pl.lit(who).alias("quien"),
        pl.lit(now).alias("registrado_en"),
    )


def record_payment(
    engine: Engine,
    code: str,
    radicado: str,
    day: date,
    centavos: int,
    method: str,
    who: str,
    ledger_of: LedgerOf = offer_ledger,
) -> None:
    """One payment for an award, checked by the same rules as a payment file."""
    ledger = _open_for_payments(engine, code, ledger_of)
    frame = pl.DataFrame(
        {
            "fila": [1],
            "radicado": [radicado],
            "fecha": [day],
            "monto": [centavos],
            "forma": [method],
        },
        schema={
            "fila": pl.Int64(),
            "radicado": pl.String(),
            "fecha": pl.Date(),
            "monto": pl.Int64(),
            "forma": pl.String(),
        },
    )
    try:
        checked = _checked(engine, ledger, frame, Path("pago"))
    except InputRejected as exc:
        raise OfferError(
            f"Pago de {radicado}: " + "; ".join(e.message for e in exc.errors)
        ) from None
    with engine.begin() as conn:
        write_rows(conn, ledger.payments, _rows(ledger, checked, who, datetime.now()))
        audit.append(
            conn,
            who,
            ledger.actions[0],
            f"{ledger.entity}/{ledger.items}/{radicado}",
            None,
            {"fecha": day, "monto": centavos, "forma": method},
        )


def import_payments(
    engine: Engine,
    code: str,
    path: Path,
    batch: str,
    who: str,
    ledger_of: LedgerOf = offer_ledger,
) -> PaymentBatchResult:
    """Receive a payment file for the offer's (or stage's) awards: all or nothing, once."""
    digest = file_hash(path)
    with engine.connect() as conn:
        ledger = ledger_of(conn, code)
        owner = ledger.batches.c[ledger.owner[0]] == ledger.owner[1]
        done = conn.execute(
            select(ledger.batches.c.huella, ledger.batches.c.filas).where(
                owner, ledger.batches.c.lote == batch
            )
        ).first()
    if done is not None:
        if done.huella != digest:
            raise OfferError(
                f"El lote de pagos '{batch}' ya se recibió con otro contenido; use otro "
                "identificador."
            )
        return PaymentBatchResult(
            False,
            done.filas,
            0,
            f"El lote de pagos '{batch}' ya se había recibido; no se creó nada nuevo.",
        )
    ledger = _open_for_payments(engine, code, ledger_of)
    frame = _checked(engine, ledger, parse(read_table(path), PAYMENTS), path)
    now = datetime.now()
    total = int(frame["monto"].sum())
    try:
        with engine.begin() as conn:
            new_id(
                conn.execute(
                    insert(ledger.batches).values(
                        **{ledger.owner[0]: ledger.owner[1]},
                        lote=batch,
                        archivo=path.name,
                        huella=digest,
                        filas=frame.height,
                        recibido_en=now,
                        quien=who,
                    )
                )
            )
            write_rows(conn, ledger.payments, _rows(ledger, frame, who, now))
            audit.append(
                conn,
                who,
                ledger.actions[1],
                f"{ledger.entity}/pagos/{batch}",
                None,
                {"archivo": path.name, "huella": digest, "filas": frame.height, "total": total},
            )
    except IntegrityError:  # the same batch stored by another process meanwhile
        return import_payments(engine, code, path, batch, who, ledger_of)
    return PaymentBatchResult(
        True,
        frame.height,
        total,
        f"Lote de pagos '{batch}' recibido: {count(frame.height, 'pago', 'pagos')} "
        f"por {pesos(total)}.",
    )
