"""Payments of the Primera Etapa's awards, received from a file in one all-or-nothing batch.

Brokers and the program office report payments by the thousand; entering them one by one
(``democratiza pago registrar``) does not scale. A payment file has one row per payment:
``radicado`` of the award, ``fecha``, ``monto`` in pesos and ``forma`` (contado, credito,
cesantias, cuotas). It is read and typed by the shared intake code, and refused whole, with every
bad row named by file, row and column, when:

- a radicado has no current award in the offer;
- the program does not provide the method, or the method is cesantías for a legal person
  (only natural persons where the program's ``formas_de_pago`` says so, with its citation);
- an amount is not positive.

(offer, batch id) is unique: the same batch sent again stores nothing and says so; the same
id with other content is refused. Payments are received until the period is settled.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

import polars as pl
from sqlalchemy import Engine, insert, select
from sqlalchemy.exc import IntegrityError

from democratiza.money import pesos
from democratiza.offers.lifecycle import ADJUDICATED, OfferError, StoredOffer, load_offer
from democratiza.rules.explain import cite
from democratiza.storage import audit
from democratiza.storage.bulk import write_rows
from democratiza.storage.database import new_id, read_frame
from democratiza.storage.receipts import file_hash
from democratiza.storage.schema import acceptances, awards, payment_batches, payments, sales
from democratiza.tables.errors import InputError, InputRejected
from democratiza.tables.parse import parse
from democratiza.tables.payments import PAYMENTS
from democratiza.tables.readers import read_table
from democratiza.vocabulary import NATURAL_CATEGORIES


@dataclass(frozen=True)
class PaymentBatchResult:
    created: bool
    rows: int
    total: int  # centavos
    message: str


def _awards(engine: Engine, stored: StoredOffer) -> pl.DataFrame:
    with engine.connect() as conn:
        return read_frame(
            conn,
            select(acceptances.c.radicado, acceptances.c.id, acceptances.c.categoria)
            .join(awards, awards.c.aceptacion_id == acceptances.c.id)
            .where(
                acceptances.c.oferta_id == stored.id,
                acceptances.c.vigente,
                awards.c.adjudicada > 0,
            ),
            {"radicado": pl.String(), "aceptacion_id": pl.Int64(), "categoria": pl.String()},
        )


def _row_errors(path: Path, stored: StoredOffer, frame: pl.DataFrame) -> list[InputError]:
    program = stored.program
    natural = pl.col("categoria").is_in(sorted(NATURAL_CATEGORIES))
    checks = [
        (
            pl.col("aceptacion_id").is_null(),
            "radicado",
            "el radicado no tiene acciones adjudicadas",
        ),
        (
            ~pl.col("forma").is_in([m.id for m in program.payment_methods]),
            "forma",
            "forma de pago no prevista en el programa",
        ),
        # A method the program file reserves to natural persons, with the file's citation.
        *(
            (
                (pl.col("forma") == m.id) & ~natural,
                "forma",
                f"la forma de pago {m.id} solo se admite a personas naturales "
                f"({cite(program, m.citation)})",
            )
            for m in program.payment_methods
            if m.only_for == "natural"
        ),
        (pl.col("monto") <= 0, "monto", "el pago debe ser positivo"),
    ]
    errors = []
    for bad, column, message in checks:
        for row in frame.filter(bad.fill_null(False))["fila"]:
            errors.append(InputError(str(path), row, column, message))
    return sorted(errors, key=lambda e: (e.row or 0, e.column or ""))


def _open_for_payments(engine: Engine, offer_code: str) -> StoredOffer:
    with engine.connect() as conn:
        stored = load_offer(conn, offer_code)
        settled = conn.execute(
            select(sales.c.aceptacion_id)
            .join(acceptances, acceptances.c.id == sales.c.aceptacion_id)
            .where(acceptances.c.oferta_id == stored.id)
            .limit(1)
        ).first()
    if stored.state not in ADJUDICATED:
        raise OfferError(f"La oferta '{offer_code}' está {stored.state}; aún no hay qué pagar.")
    if settled is not None:
        raise OfferError("El periodo de pago ya se liquidó; no se reciben más pagos.")
    return stored


def _checked(
    engine: Engine, stored: StoredOffer, frame: pl.DataFrame, source: Path
) -> pl.DataFrame:
    """The payments joined to their awards, or ``InputRejected`` naming every bad row."""
    frame = frame.with_columns(pl.col("forma").cast(pl.String)).join(
        _awards(engine, stored), on="radicado", how="left", maintain_order="left"
    )
    errors = _row_errors(source, stored, frame)
    if errors:
        raise InputRejected(errors)
    return frame


def _rows(frame: pl.DataFrame, who: str, now: datetime) -> pl.DataFrame:
    return frame.select(
        "aceptacion_id",
        "fecha",
        "monto",
        "forma",
        pl.lit(who).alias("quien"),
        pl.lit(now).alias("registrado_en"),
    )


def record_payment(
    engine: Engine,
    offer_code: str,
    radicado: str,
    day: date,
    centavos: int,
    method: str,
    who: str,
) -> None:
    """One payment for an award, checked by the same rules as a payment file."""
    stored = _open_for_payments(engine, offer_code)
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
        checked = _checked(engine, stored, frame, Path("pago"))
    except InputRejected as exc:
        raise OfferError(
            f"Pago de {radicado}: " + "; ".join(e.message for e in exc.errors)
        ) from None
    with engine.begin() as conn:
        write_rows(conn, payments, _rows(checked, who, datetime.now()))
        audit.append(
            conn,
            who,
            "pago.registrar",
            f"ofertas/{stored.id}/aceptaciones/{radicado}",
            None,
            {"fecha": day, "monto": centavos, "forma": method},
        )


def import_payments(
    engine: Engine, offer_code: str, path: Path, batch: str, who: str
) -> PaymentBatchResult:
    """Receive a payment file for the offer's awards: all or nothing, once only."""
    digest = file_hash(path)
    with engine.connect() as conn:
        offer_id = load_offer(conn, offer_code).id
        done = conn.execute(
            select(payment_batches.c.huella, payment_batches.c.filas).where(
                payment_batches.c.oferta_id == offer_id, payment_batches.c.lote == batch
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
    stored = _open_for_payments(engine, offer_code)
    frame = _checked(engine, stored, parse(read_table(path), PAYMENTS), path)
    now = datetime.now()
    total = int(frame["monto"].sum())
    try:
        with engine.begin() as conn:
            new_id(
                conn.execute(
                    insert(payment_batches).values(
                        oferta_id=stored.id,
                        lote=batch,
                        archivo=path.name,
                        huella=digest,
                        filas=frame.height,
                        recibido_en=now,
                        quien=who,
                    )
                )
            )
            write_rows(conn, payments, _rows(frame, who, now))
            audit.append(
                conn,
                who,
                "pagos.lote",
                f"ofertas/{stored.id}/pagos/{batch}",
                None,
                {"archivo": path.name, "huella": digest, "filas": frame.height, "total": total},
            )
    except IntegrityError:  # the same batch stored by another process meanwhile
        return import_payments(engine, offer_code, path, batch, who)
    return PaymentBatchResult(
        True,
        frame.height,
        total,
        f"Lote de pagos '{batch}' recibido: {frame.height} pagos por {pesos(total)}.",
    )
