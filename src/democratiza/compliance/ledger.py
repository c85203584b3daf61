"""Where a stage's awards are paid and sold: the Primera Etapa's, or a later stage's.

Paying and settling are the same legal steps in every stage: each award is paid by its
buyer; the period is settled on the sale date, the shares paid for are sold and the unpaid
ones are resolved ("dará lugar a la resolución", GEB art. 5) and go back to be offered in a
later stage (GEB art. 3.2-3.3); only paid shares are registered for the depository (GEB
3.2: a stage is done with the "anotación en cuenta de las Acciones adjudicadas"). What
differs is only where: a ``Ledger`` names the awards (the Primera Etapa's acceptances or a
later stage's orders), the price they are paid at (the fixed price, or the stage's single
clearing price), the payment methods admitted and the tables. ``compliance.payment_batches``
and ``compliance.holdings.settle`` run the one rule over either.

A later stage admits the methods its program file gives it (``etapas_siguientes.formas_de_pago``,
with their article: cash in the four programs, as credit lines and cesantías are special
conditions of the Primera Etapa's destinatarios, not of the public; docs/lecturas.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

import polars as pl
from sqlalchemy import ColumnElement, Connection, Select, Table, func, literal, select

from democratiza.labels import later_stage_payments
from democratiza.money import EXACT_CENTAVOS, exact_centavos, price_text
from democratiza.offers.dates import sale_day_problems
from democratiza.offers.lifecycle import ADJUDICATED, OfferError, StoredOffer, load_offer
from democratiza.rules.explain import cite
from democratiza.stages.lifecycle import load_stage
from democratiza.stages.terms import StageError, rules
from democratiza.storage.database import read_frame
from democratiza.storage.schema import (
    acceptances,
    adjudications,
    awards,
    order_awards,
    orders,
    payment_batches,
    payments,
    sales,
    stage_allocations,
    stage_payment_batches,
    stage_payments,
    stage_sales,
)
from democratiza.vocabulary import NATURAL_CATEGORIES

STAGE_PAYABLE = ("adjudicada", "publicada")


@dataclass(frozen=True)
class Method:
    """A payment method a ledger admits, and whether only natural persons may use it."""

    id: str
    natural_only: bool
    citation: str


@dataclass(frozen=True)
class Ledger:
    """One stage's awards and the tables of their payments and sale."""

    title: str  # how a message names it: La oferta '<code>' or La etapa '<code>'
    entity: str  # the audit entry's entity: ofertas/<id> or etapas/<code>
    awards: Select[tuple[object, ...]]  # radicado, <key>, natural, adjudicada (> 0), precio
    key: str  # aceptacion_id or orden_id
    items: str  # what an award is, in the audit entry's entity: aceptaciones or ordenes
    owner: tuple[str, int]  # the payment batches' owner column and id
    batches: Table
    payments: Table
    sales: Table
    methods: tuple[Method, ...]
    refused_method: str  # why a method outside ``methods`` is refused
    actions: tuple[str, str, str]  # audit actions: a payment, a payment file, the settlement
    waiting: str | None  # the state that does not admit payments yet; None when it does
    sale_day_problems: Callable[[Connection, date], list[str]]  # why a sale date is refused

    def awarded(self, conn: Connection) -> pl.DataFrame:
        """radicado, key, natural, adjudicada and precio (centavos per share it pays) of
        every award with shares."""
        schema: dict[str, pl.DataType] = {
            "radicado": pl.String(),
            self.key: pl.Int64(),
            "natural": pl.Boolean(),
            "adjudicada": pl.Int64(),
            "precio": pl.Int64(),
        }
        return read_frame(conn, self.awards, schema)

    def paid(self, conn: Connection) -> pl.DataFrame:
        """key → centavos paid, for the awards that have any payment."""
        keys = select(self.awards.subquery().c[self.key])
        column = self.payments.c[self.key]
        statement = (
            select(column, func.sum(self.payments.c.monto)).where(column.in_(keys)).group_by(column)
        )
        return read_frame(conn, statement, {self.key: pl.Int64(), "pagado": pl.Int64()})

    def sold(self, conn: Connection) -> pl.DataFrame:
        """radicado → shares paid (and so sold), once the payment period is settled; no rows
        before (the registry then carries the shares awarded)."""
        awarded = self.awards.subquery()
        statement = select(awarded.c.radicado, self.sales.c.acciones_pagadas).join(
            self.sales, self.sales.c[self.key] == awarded.c[self.key]
        )
        return read_frame(
            conn, statement, {"radicado": pl.String(), "acciones_pagadas": pl.Int64()}
        )

    def summary(self, conn: Connection) -> dict[str, int | bool]:
        """What the office sees of the period: payments received and, once settled, the
        shares sold and resolved."""
        paid = self.paid(conn)
        keys = select(self.awards.subquery().c[self.key])
        sold = conn.execute(
            select(
                func.count(),
                func.coalesce(func.sum(self.sales.c.acciones_pagadas), 0),
                func.coalesce(func.sum(self.sales.c.acciones_resueltas), 0),
            ).where(self.sales.c[self.key].in_(keys))
        ).one()
        return {
            "adjudicaciones_con_pagos": paid.height,
            "pagado": int(paid["pagado"].sum() or 0),
            "liquidada": int(sold[0]) > 0,
            "acciones_pagadas": int(sold[1]),
            "acciones_resueltas": int(sold[2]),
        }

    def settled(self, conn: Connection) -> bool:
        keys = select(self.awards.subquery().c[self.key])
        column = self.sales.c[self.key]
        return conn.execute(select(column).where(column.in_(keys)).limit(1)).first() is not None


def acceptance_price(stored: StoredOffer) -> ColumnElement[int]:
    """The price an acceptance was evaluated at and pays, as ``precio``: its own (the
    adjusted one after an interruption), or the offer's initial price for one filed before
    acceptances recorded theirs."""
    price = stored.offer.price
    initial = int(price) if price.denominator == 1 else None  # finer than a centavo: none
    return func.coalesce(acceptances.c.precio, initial).label("precio")


def finer_than_centavo(stored: StoredOffer) -> str | None:
    """Why an offer priced finer than a centavo takes no payments here, or None: payments
    are recorded per award in whole centavos per share, which such a price has not."""
    price = stored.offer.price
    if price.denominator == 1:
        return None
    return (
        f"el precio de {price_text(price)} por acción tiene fracciones de centavo y los pagos "
        "se registran a un precio en centavos enteros: esta versión no registra los pagos de "
        "esa oferta"
    )


def acceptance_terms(conn: Connection, stored: StoredOffer) -> pl.DataFrame:
    """radicado → the broker's ``referencia`` and the exact ``precio`` (centavos per share,
    a decimal: a decree's price may be finer than a centavo) each current acceptance pays,
    for the brokers' adjudication files (as a later stage's file has them). An acceptance
    that recorded no price of its own pays the offer's."""
    a = acceptances.c
    rows = conn.execute(
        select(a.radicado, a.referencia, a.precio).where(a.oferta_id == stored.id, a.vigente)
    ).all()
    initial = exact_centavos(stored.offer.price)
    return pl.DataFrame(
        [(r, ref, initial if own is None else Decimal(own)) for r, ref, own in rows],
        schema={"radicado": pl.String, "referencia": pl.String, "precio": EXACT_CENTAVOS},
        orient="row",
    )


def offer_ledger(conn: Connection, code: str) -> Ledger:
    """The Primera Etapa's awards: the offer's adjudicated acceptances, each at its price."""
    return ledger_of(load_offer(conn, code))


def ledger_of(stored: StoredOffer) -> Ledger:
    """``offer_ledger`` of an offer already loaded (a page that holds it reads it once)."""
    code = stored.code
    program = stored.program
    statement = (
        select(
            acceptances.c.radicado,
            acceptances.c.id.label("aceptacion_id"),
            acceptances.c.categoria.in_(sorted(NATURAL_CATEGORIES)).label("natural"),
            awards.c.adjudicada,
            acceptance_price(stored),
        )
        .join(awards, awards.c.aceptacion_id == acceptances.c.id)
        .join(adjudications, adjudications.c.id == awards.c.adjudicacion_id)
        .where(
            adjudications.c.oferta_id == stored.id,
            acceptances.c.vigente,
            awards.c.adjudicada > 0,
        )
    )
    title = f"La oferta '{code}'"
    return Ledger(
        title,
        f"ofertas/{stored.id}",
        statement,
        "aceptacion_id",
        "aceptaciones",
        ("oferta_id", stored.id),
        payment_batches,
        payments,
        sales,
        tuple(
            Method(m.id, m.only_for == "natural", cite(program, m.citation))
            for m in program.payment_methods
        ),
        "forma de pago no prevista en el programa",
        ("pago.registrar", "pagos.lote", "oferta.liquidar"),
        (None if stored.state in ADJUDICATED else f"{title} está {stored.state}")
        if finer_than_centavo(stored) is None
        else f"{title}: {finer_than_centavo(stored)}",
        lambda c, day: sale_day_problems(c, stored, day, date.today()),
    )


def stage_paid_shares(conn: Connection, code: str) -> pl.DataFrame:
    """radicado → shares paid of a later stage's allocations, once its payments are settled."""
    return stage_ledger(conn, code).sold(conn)


def stage_ledger(conn: Connection, code: str) -> Ledger:
    """A later stage's awards: its orders with shares allocated, at its clearing price."""
    try:
        stage = load_stage(conn, code)
    except StageError as exc:
        raise OfferError(str(exc)) from None
    program = stage.program
    price = conn.execute(
        select(stage_allocations.c.precio).where(stage_allocations.c.etapa_id == stage.id)
    ).scalar_one_or_none()
    statement = (
        select(
            orders.c.radicado,
            orders.c.id.label("orden_id"),
            (orders.c.tipo_persona == "natural").label("natural"),
            order_awards.c.asignada.label("adjudicada"),
            literal(int(price or 0)).label("precio"),
        )
        .join(order_awards, order_awards.c.orden_id == orders.c.id)
        .join(stage_allocations, stage_allocations.c.id == order_awards.c.adjudicacion_id)
        .where(stage_allocations.c.etapa_id == stage.id, order_awards.c.asignada > 0)
    )
    rule = rules(program).payments  # a stage exists only where the program has these rules
    methods = tuple(Method(m, False, cite(program, rule.citation)) for m in rule.methods)
    payable = stage.state in STAGE_PAYABLE and price is not None
    title = f"La etapa '{code}'"
    return Ledger(
        title,
        f"etapas/{code}",
        statement,
        "orden_id",
        "ordenes",
        ("etapa_id", stage.id),
        stage_payment_batches,
        stage_payments,
        stage_sales,
        methods,
        f"en la {stage.name} solo se paga {later_stage_payments(program, rules(program))}: "
        "el crédito y las cesantías son condiciones especiales de la Primera Etapa",
        ("etapa.pago.registrar", "etapa.pagos.lote", "etapa.liquidar"),
        None if payable else f"{title} está {stage.state}",
        lambda c, day: [],  # a later stage's dates are its own terms' (docs/etapas.md)
    )
