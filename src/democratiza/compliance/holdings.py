"""After the adjudication: payments, the sale of what was paid, and events on the holdings.

- Each award is paid by its buyer (GEB art. 5: cash; credit lines and cesantías where the
  program allows). ``settle`` closes the payment period on the sale date: the shares paid for
  are sold (fecha de enajenación, from which the two years run); the unpaid ones are resolved
  (GEB art. 5, "dará lugar a la resolución") and return to the pool for the next stage.
- An event reported against sold shares within the two years (a sale, giving them in payment,
  another beneficial owner, a subrogation of the credit) opens a fine case: the band by the
  event's date, the base from the acquisition price and the consideration obtained.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

import polars as pl
from sqlalchemy import Connection, Engine, func, insert, select

from democratiza.compliance.bands import BandMatch, band_for
from democratiza.compliance.fines import FineAmount, FineTerms, fine_amount, fine_base
from democratiza.offers.lifecycle import OfferError, StoredOffer, load_offer
from democratiza.rules.vocabulary import NATURAL_CATEGORIES
from democratiza.storage.database import new_id, read_frame
from democratiza.storage.schema import (
    acceptances,
    adjudications,
    awards,
    holding_events,
    payments,
    sales,
)

EVENT_KINDS = {
    "venta": "negociación de las acciones",
    "dacion_en_pago": "dación en pago",
    "beneficiario_real": "otra persona como beneficiario real",
    "subrogacion": "subrogación del crédito",
}
AFTER_ADJUDICATION = ("adjudicada", "publicada")


def _award(conn: Connection, stored: StoredOffer, radicado: str) -> tuple[int, int, str]:
    """(acceptance id, shares awarded, category) of a current, awarded acceptance."""
    row = conn.execute(
        select(acceptances.c.id, awards.c.adjudicada, acceptances.c.categoria)
        .join(awards, awards.c.aceptacion_id == acceptances.c.id)
        .where(
            acceptances.c.oferta_id == stored.id,
            acceptances.c.radicado == radicado,
            acceptances.c.vigente,
        )
    ).first()
    if row is None or row.adjudicada <= 0:
        raise OfferError(f"El radicado {radicado} no tiene acciones adjudicadas.")
    return int(row.id), int(row.adjudicada), str(row.categoria)


def record_payment(
    engine: Engine,
    offer_code: str,
    radicado: str,
    day: date,
    centavos: int,
    method: str,
    who: str,
) -> None:
    """A buyer's payment for an award, by a method the program allows to that buyer."""
    if centavos <= 0:
        raise OfferError("El pago debe ser positivo.")
    with engine.begin() as conn:
        stored = load_offer(conn, offer_code)
        if stored.state not in AFTER_ADJUDICATION:
            raise OfferError(f"La oferta '{offer_code}' está {stored.state}; aún no hay qué pagar.")
        if conn.execute(
            select(sales.c.aceptacion_id)
            .join(acceptances, acceptances.c.id == sales.c.aceptacion_id)
            .where(acceptances.c.oferta_id == stored.id)
            .limit(1)
        ).first():
            raise OfferError("El periodo de pago ya se liquidó; no se reciben más pagos.")
        acceptance_id, _, category = _award(conn, stored, radicado)
        allowed = {m.id: m.only_for for m in stored.program.payment_methods}
        if method not in allowed:
            raise OfferError(f"La forma de pago '{method}' no está prevista en el programa.")
        natural = category in NATURAL_CATEGORIES
        if allowed[method] == "natural" and not natural:
            raise OfferError(f"La forma de pago '{method}' solo se admite a personas naturales.")
        conn.execute(
            insert(payments).values(
                aceptacion_id=acceptance_id,
                fecha=day,
                monto=centavos,
                forma=method,
                quien=who,
                registrado_en=datetime.now(),
            )
        )


@dataclass(frozen=True)
class Settlement:
    sale_date: date
    paid_shares: int
    resolved_shares: int  # unpaid: the sale is resolved and they return to the pool
    awards: int


def settle(engine: Engine, offer_code: str, sale_date: date, who: str) -> Settlement:
    """Close the payment period: what was paid is sold on ``sale_date``; the rest resolved."""
    with engine.begin() as conn:
        stored = load_offer(conn, offer_code)
        if stored.state not in AFTER_ADJUDICATION:
            raise OfferError(f"La oferta '{offer_code}' está {stored.state}; no hay qué liquidar.")
        record = conn.execute(
            select(adjudications.c.id).where(adjudications.c.oferta_id == stored.id)
        ).scalar_one()
        awarded = read_frame(
            conn,
            select(awards.c.aceptacion_id, awards.c.adjudicada).where(
                awards.c.adjudicacion_id == record, awards.c.adjudicada > 0
            ),
            {"aceptacion_id": pl.Int64(), "adjudicada": pl.Int64()},
        )
        paid = read_frame(
            conn,
            select(payments.c.aceptacion_id, func.sum(payments.c.monto))
            .join(acceptances, acceptances.c.id == payments.c.aceptacion_id)
            .where(acceptances.c.oferta_id == stored.id)
            .group_by(payments.c.aceptacion_id),
            {"aceptacion_id": pl.Int64(), "pagado": pl.Int64()},
        )
        price = stored.offer.price_centavos
        # Whole shares paid for at the price; an award is never paid beyond its shares.
        rows = (
            awarded.join(paid, on="aceptacion_id", how="left")
            .with_columns(
                pl.min_horizontal("adjudicada", pl.col("pagado").fill_null(0) // price).alias(
                    "acciones_pagadas"
                ),
            )
            .with_columns(
                (pl.col("adjudicada") - pl.col("acciones_pagadas")).alias("acciones_resueltas")
            )
        )
        if conn.execute(
            select(sales.c.aceptacion_id).where(
                sales.c.aceptacion_id.in_(rows["aceptacion_id"].head(1).to_list())
            )
        ).first():
            raise OfferError(f"El periodo de pago de '{offer_code}' ya se liquidó.")
        values = rows.select("aceptacion_id", "acciones_pagadas", "acciones_resueltas")
        conn.execute(
            insert(sales), [{**r, "fecha_enajenacion": sale_date} for r in values.to_dicts()]
        )
    return Settlement(
        sale_date,
        int(rows["acciones_pagadas"].sum()),
        int(rows["acciones_resueltas"].sum()),
        rows.height,
    )


@dataclass(frozen=True)
class FineCase:
    event_id: int
    band: BandMatch
    fine: FineAmount | None  # None when the event falls in no band


def record_event(
    engine: Engine,
    offer_code: str,
    radicado: str,
    kind: str,
    day: date,
    shares: int,
    consideration_centavos: int | None,
    detail: str,
    who: str,
) -> FineCase:
    """An event on sold shares; within the two years it opens a fine case."""
    if kind not in EVENT_KINDS:
        raise OfferError(
            f"Tipo de evento desconocido '{kind}'; se admite: " + ", ".join(EVENT_KINDS)
        )
    with engine.begin() as conn:
        stored = load_offer(conn, offer_code)
        terms = FineTerms.from_program(stored.program)
        acceptance_id, _, _ = _award(conn, stored, radicado)
        sale = conn.execute(select(sales).where(sales.c.aceptacion_id == acceptance_id)).first()
        if sale is None or sale.acciones_pagadas == 0:
            raise OfferError(f"El radicado {radicado} no tiene acciones vendidas (pagadas).")
        if not 0 < shares <= sale.acciones_pagadas:
            raise OfferError(f"El evento debe afectar entre 1 y {sale.acciones_pagadas} acciones.")
        if terms.reference_label.endswith("adjudicación"):
            created = conn.execute(
                select(adjudications.c.creada_en).where(adjudications.c.oferta_id == stored.id)
            ).scalar_one()
            reference = created.date()
        else:
            reference = sale.fecha_enajenacion
        event_id = new_id(
            conn.execute(
                insert(holding_events).values(
                    aceptacion_id=acceptance_id,
                    tipo=kind,
                    fecha=day,
                    acciones=shares,
                    contraprestacion=consideration_centavos,
                    detalle=detail,
                    quien=who,
                    registrado_en=datetime.now(),
                )
            )
        )
    band = band_for(reference, day, terms.bands, terms.reference_label)
    if band.percent is None:
        return FineCase(event_id, band, None)
    base = fine_base(
        terms,
        {
            "precio_adquisicion": stored.offer.price_centavos,
            "contraprestacion": consideration_centavos,
            "precio_segunda_etapa": None,  # the Segunda Etapa is not run yet
        },
    )
    return FineCase(event_id, band, fine_amount(shares, base, band))


def paid_shares(conn: Connection, stored: StoredOffer) -> pl.DataFrame:
    """radicado → shares paid (and so sold), once the payment period is settled."""
    return read_frame(
        conn,
        select(acceptances.c.radicado, sales.c.acciones_pagadas)
        .join(sales, sales.c.aceptacion_id == acceptances.c.id)
        .where(acceptances.c.oferta_id == stored.id),
        {"radicado": pl.String(), "acciones_pagadas": pl.Int64()},
    )
