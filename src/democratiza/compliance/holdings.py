"""After the adjudication: payments, the sale of what was paid, and events on the holdings.

- Each award is paid by its buyer (GEB art. 5: cash; credit lines and cesantías where the
  program allows). ``settle`` closes the payment period on the sale date: the shares paid for
  are sold (fecha de enajenación, from which the two years run); the unpaid ones are resolved
  (GEB art. 5, "dará lugar a la resolución") and return to the pool for the next stage.
- An event reported against sold shares within the two years (a sale, giving them in payment,
  another beneficial owner, a subrogation of the credit) opens a fine case: the band by the
  event's date, the base from the acquisition price and the consideration obtained.
- An acquisition found contrary to the real-beneficiary rules is ineffective ("el negocio será
  ineficaz", Ley 226 art. 14 inciso 2; GEB Decreto 706/2017 arts. 8.2.6, 9.4 and 11.4). The
  program office flags it (``flag_ineffective``) as a holding event of kind ``ineficacia``;
  from then on the award's shares are no longer validly the awardee's, so the paid-shares view
  (``paid_shares``, which the depository's registry is built from) counts none for it. What is
  restituted, and how, is the program office's: see docs/multas.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import polars as pl
from sqlalchemy import Connection, Engine, Row, case, insert, select

from democratiza.compliance.fines.amount import FineAmount, fine_for
from democratiza.compliance.fines.bands import BandMatch
from democratiza.compliance.fines.terms import FineTerms
from democratiza.compliance.ledger import acceptance_price, offer_ledger
from democratiza.compliance.payment_batches import LedgerOf
from democratiza.money import group
from democratiza.offers.dates import business_dates
from democratiza.offers.lifecycle import OfferError, StoredOffer, load_offer
from democratiza.programs.schema import FineBaseKey, Program, missing_section
from democratiza.rules.explain import cite
from democratiza.stages.lifecycle import second_stage_price
from democratiza.storage import audit
from democratiza.storage.database import new_id, read_frame
from democratiza.storage.schema import (
    acceptances,
    awards,
    holding_events,
    sales,
)

EVENT_KINDS = {
    "venta": "negociación de las acciones",
    "dacion_en_pago": "dación en pago",
    "beneficiario_real": "otra persona como beneficiario real",
    "subrogacion": "subrogación del crédito",
}
INEFFECTIVE = "ineficacia"  # the kind of the event that flags an acquisition as ineffective


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


def _sale(conn: Connection, acceptance_id: int) -> Row[Any] | None:
    """The sale of an award's paid shares; None before the payment period is settled."""
    return conn.execute(select(sales).where(sales.c.aceptacion_id == acceptance_id)).first()


@dataclass(frozen=True)
class Settlement:
    sale_date: date
    paid_shares: int
    resolved_shares: int  # unpaid: the sale is resolved and they return to the pool
    awards: int


def settle(
    engine: Engine,
    code: str,
    sale_date: date,
    who: str,
    ledger_of: LedgerOf = offer_ledger,
) -> Settlement:
    """Close the payment period: what was paid is sold on ``sale_date``; the rest resolved.

    The same for the Primera Etapa (``offer_ledger``) and a later stage (``stage_ledger``):
    whole shares paid for at the stage's price, an award never paid beyond its shares.
    """
    with engine.begin() as conn:
        ledger = ledger_of(conn, code)
        if ledger.waiting is not None:
            raise OfferError(f"{ledger.waiting}; no hay qué liquidar.")
        if ledger.settled(conn):
            raise OfferError(f"El periodo de pago de '{code}' ya se liquidó.")
        awarded = ledger.awarded(conn)
        if awarded.height == 0:
            # Nothing was awarded, so nothing was sold nor resolved: there is no period to
            # close (and an empty insert would record a sale of nothing, with no date).
            raise OfferError(
                f"{ledger.title} no tiene acciones adjudicadas; no hay nada que liquidar."
            )
        problems = ledger.sale_day_problems(conn, sale_date)
        if problems:
            raise OfferError("\n".join(problems))
        key = ledger.key
        # Whole shares paid for at the award's own price (an acceptance's adjusted price
        # after an interruption, Ley 226 art. 11 num. 2); never paid beyond its shares.
        paid_for = pl.col("pagado").fill_null(0) // pl.col("precio")
        rows = (
            awarded.select(key, "adjudicada", "precio")
            .join(ledger.paid(conn), on=key, how="left")
            .with_columns(pl.min_horizontal("adjudicada", paid_for).alias("acciones_pagadas"))
            .with_columns(
                (pl.col("adjudicada") - pl.col("acciones_pagadas")).alias("acciones_resueltas")
            )
        )
        values = rows.select(key, "acciones_pagadas", "acciones_resueltas")
        conn.execute(
            insert(ledger.sales),
            [{**r, "fecha_enajenacion": sale_date} for r in values.to_dicts()],
        )
        audit.append(
            conn,
            who,
            ledger.actions[2],
            ledger.entity,
            None,
            {
                "fecha_enajenacion": sale_date,
                "acciones_pagadas": int(rows["acciones_pagadas"].sum()),
                "acciones_resueltas": int(rows["acciones_resueltas"].sum()),
            },
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
        acquisition_price = conn.execute(
            select(acceptance_price(stored)).where(acceptances.c.id == acceptance_id)
        ).scalar_one()
        second_stage = second_stage_price(conn, stored.id)
        sale = _sale(conn, acceptance_id)
        if sale is None or sale.acciones_pagadas == 0:
            raise OfferError(f"El radicado {radicado} no tiene acciones vendidas (pagadas).")
        if not 0 < shares <= sale.acciones_pagadas:
            raise OfferError(f"El evento debe afectar entre 1 y {sale.acciones_pagadas} acciones.")
        if terms.reference == "adjudicacion":
            # The adjudication's business date, not when it was recorded (offers.dates).
            closing = stored.offer.day("fecha_cierre")
            adjudicated = business_dates(conn, stored.id, closing).adjudication
            assert adjudicated is not None, "an award exists only once adjudicated"
            reference = adjudicated
        else:
            reference = sale.fecha_enajenacion
        event_id = _insert_event(
            conn,
            acceptance_id,
            kind=kind,
            day=day,
            shares=shares,
            consideration=consideration_centavos,
            detail=detail,
            who=who,
            action="tenencia.evento",
            logged={
                "oferta": stored.code,
                "radicado": radicado,
                "tipo": kind,
                "fecha": day,
                "acciones": shares,
                "contraprestacion": consideration_centavos,
            },
        )
    values: dict[FineBaseKey, int | None] = {
        "precio_adquisicion": acquisition_price,
        "contraprestacion": consideration_centavos,
        "precio_segunda_etapa": second_stage,  # None until it is adjudicated
    }
    band, fine = fine_for(terms, reference, day, shares, values)
    return FineCase(event_id, band, fine)


def _insert_event(
    conn: Connection,
    acceptance_id: int,
    *,
    kind: str,
    day: date,
    shares: int,
    consideration: int | None,
    detail: str,
    who: str,
    action: str,
    logged: dict[str, object],
) -> int:
    """Store one holding event and its audit entry (``action``, ``logged`` as the after)."""
    event_id = new_id(
        conn.execute(
            insert(holding_events).values(
                aceptacion_id=acceptance_id,
                tipo=kind,
                fecha=day,
                acciones=shares,
                contraprestacion=consideration,
                detalle=detail,
                quien=who,
                registrado_en=datetime.now(),
            )
        )
    )
    audit.append(conn, who, action, f"eventos_tenencia/{event_id}", None, logged)
    return event_id


def paid_shares(conn: Connection, stored: StoredOffer) -> pl.DataFrame:
    """radicado → shares paid (and so sold) and validly held, once the payment period is settled.

    An award flagged ineffective (Ley 226 art. 14 inciso 2) counts 0: its acquisition has no
    effect, so its shares do not go to the depository's registry as the awardee's.
    """
    flagged = (
        select(holding_events.c.aceptacion_id)
        .where(holding_events.c.tipo == INEFFECTIVE)
        .scalar_subquery()
    )
    return read_frame(
        conn,
        select(
            acceptances.c.radicado,
            case((sales.c.aceptacion_id.in_(flagged), 0), else_=sales.c.acciones_pagadas),
        )
        .join(sales, sales.c.aceptacion_id == acceptances.c.id)
        .where(acceptances.c.oferta_id == stored.id),
        {"radicado": pl.String(), "acciones_pagadas": pl.Int64()},
    )


# --- ineffective acquisitions (Ley 226 art. 14 inciso 2) ----------------------------------


def ineffectiveness_citation(program: Program) -> str:
    """The articles the program file gives for the rule (``ineficacia``): the law, and the
    program's own where its text repeats it."""
    if not program.ineffectiveness:
        raise OfferError(
            missing_section(program, "ineficacia", "declarar ineficaz una adquisición sin su cita")
        )
    return "; ".join(cite(program, c) for c in program.ineffectiveness)


@dataclass(frozen=True)
class Ineffectiveness:
    """An acquisition declared ineffective: its shares are not validly the awardee's.

    ``shares`` are the shares the awardee acquired (paid and sold to it); they leave the
    registry view. ``day`` is the day the contravention was determined ("si en cualquier
    momento se determina"), which has no time limit.
    """

    event_id: int
    radicado: str
    day: date
    shares: int
    sale_date: date
    reason: str
    who: str
    citation: str

    def explain(self) -> str:
        return (
            f"La adquisición del radicado {self.radicado} ({group(self.shares)} acciones "
            f"vendidas el {self.sale_date:%Y-%m-%d}) es ineficaz desde el {self.day:%Y-%m-%d}, "
            f"por contravenir las reglas sobre el beneficiario o adquirente real "
            f"({self.citation}). Motivo: {self.reason}. Registrado por: {self.who}. "
            "Sus acciones dejan de figurar como del adjudicatario en el registro para el "
            "depósito; la restitución del precio y de las acciones la decide la oficina del "
            "programa."
        )


def _ineffective_event(conn: Connection, acceptance_id: int) -> Row[Any] | None:
    return conn.execute(
        select(holding_events).where(
            holding_events.c.aceptacion_id == acceptance_id,
            holding_events.c.tipo == INEFFECTIVE,
        )
    ).first()


def flag_ineffective(
    engine: Engine,
    offer_code: str,
    radicado: str,
    day: date,
    reason: str,
    who: str,
) -> Ineffectiveness:
    """Flag a sold award's acquisition as ineffective (Ley 226 art. 14 inciso 2).

    The acquisition must exist: an award whose shares were paid and sold (before the sale
    there is no acquisition yet, and unpaid shares were resolved). It is flagged once; the
    day cannot precede the sale. Every refusal cites the article.
    """
    reason = reason.strip()
    with engine.begin() as conn:
        stored = load_offer(conn, offer_code)
        citation = ineffectiveness_citation(stored.program)
        if not reason:
            raise OfferError(f"Diga el motivo de la ineficacia ({citation}).")
        try:
            acceptance_id, _, _ = _award(conn, stored, radicado)
        except OfferError as exc:
            raise OfferError(
                f"{exc} No hay adquisición que declarar ineficaz ({citation})."
            ) from None
        # Lock the acceptance so that two clerks cannot flag it at the same time.
        conn.execute(
            select(acceptances.c.id).where(acceptances.c.id == acceptance_id).with_for_update()
        )
        sale = _sale(conn, acceptance_id)
        if sale is None or sale.acciones_pagadas == 0:
            raise OfferError(
                f"El radicado {radicado} no adquirió acciones: "
                + (
                    "el periodo de pago no se ha liquidado"
                    if sale is None
                    else "no pagó ninguna y su venta se resolvió"
                )
                + f"; la ineficacia recae sobre una adquisición hecha ({citation})."
            )
        if day < sale.fecha_enajenacion:
            raise OfferError(
                f"La ineficacia del {day:%Y-%m-%d} no puede ser anterior a la venta del "
                f"{sale.fecha_enajenacion:%Y-%m-%d} ({citation})."
            )
        earlier = _ineffective_event(conn, acceptance_id)
        if earlier is not None:
            raise OfferError(
                f"La adquisición del radicado {radicado} ya fue declarada ineficaz el "
                f"{earlier.fecha:%Y-%m-%d} por {earlier.quien} ({citation})."
            )
        event_id = _insert_event(
            conn,
            acceptance_id,
            kind=INEFFECTIVE,
            day=day,
            shares=int(sale.acciones_pagadas),
            consideration=None,
            detail=reason,
            who=who,
            action="tenencia.ineficacia",
            logged={
                "oferta": stored.code,
                "radicado": radicado,
                "fecha": day,
                "acciones": int(sale.acciones_pagadas),
                "motivo": reason,
                "norma": citation,
            },
        )
    return Ineffectiveness(
        event_id,
        radicado,
        day,
        int(sale.acciones_pagadas),
        sale.fecha_enajenacion,
        reason,
        who,
        citation,
    )


@dataclass(frozen=True)
class HoldingEvent:
    """One recorded event on an award's shares (``kind`` ``ineficacia`` for ineffectiveness)."""

    event_id: int
    kind: str
    day: date
    shares: int
    consideration: int | None  # centavos per share
    detail: str
    who: str

    @property
    def label(self) -> str:
        if self.kind == INEFFECTIVE:
            return "adquisición ineficaz"
        return EVENT_KINDS.get(self.kind, self.kind)


@dataclass(frozen=True)
class HoldingView:
    """An award after the sale: what was sold, the events, and whether it is ineffective."""

    radicado: str
    awarded: int
    sale_date: date | None  # None: payment period not settled yet
    paid: int
    resolved: int
    events: tuple[HoldingEvent, ...]
    citation: str  # of the ineffectiveness rule, for showing it

    @property
    def ineffective(self) -> HoldingEvent | None:
        return next((e for e in self.events if e.kind == INEFFECTIVE), None)

    @property
    def registered(self) -> int:
        """Shares the registry for the depository carries for this award."""
        if self.sale_date is None:
            return self.awarded
        return 0 if self.ineffective is not None else self.paid


def holding_view(engine: Engine, offer_code: str, radicado: str) -> HoldingView:
    """The award's sale and its events, oldest first."""
    with engine.connect() as conn:
        stored = load_offer(conn, offer_code)
        acceptance_id, awarded, _ = _award(conn, stored, radicado)
        sale = _sale(conn, acceptance_id)
        rows = conn.execute(
            select(holding_events)
            .where(holding_events.c.aceptacion_id == acceptance_id)
            .order_by(holding_events.c.fecha, holding_events.c.id)
        ).all()
    return HoldingView(
        radicado,
        awarded,
        None if sale is None else sale.fecha_enajenacion,
        0 if sale is None else int(sale.acciones_pagadas),
        0 if sale is None else int(sale.acciones_resueltas),
        tuple(
            HoldingEvent(
                int(r.id),
                str(r.tipo),
                r.fecha,
                int(r.acciones),
                None if r.contraprestacion is None else int(r.contraprestacion),
                str(r.detalle),
                str(r.quien),
            )
            for r in rows
        ),
        ineffectiveness_citation(stored.program),
    )
