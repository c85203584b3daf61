"""A stage after the Primera Etapa: created from what the previous stage left, then its life.

Where the shares come from (GEB art. 3.2-3.3):

- **Segunda Etapa** (number 2): the shares of the Primera Etapa not sold. Once the Primera
  Etapa is adjudicated, its payments must be settled (``democratiza pago liquidar``): only
  then is it known which awards were paid and which were resolved for non-payment and
  return. Available = offered − shares paid.
- **Etapas Subsecuentes** (3, 4, …): what the previous stage left: its available shares
  (including any held back by its tranche cap) − the shares paid for. Its payments are
  settled first (``democratiza etapa liquidar``), as the Primera Etapa's: an allocation not
  paid is resolved and its shares return.

States: borrador → abierta → cerrada → adjudicada → publicada; a stage can be declared void
(desierta) while open or closed, with its cause, and it is void by itself when no order
reaches the minimum price. Every change is an event (who, when, why) and an audit entry.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import datetime
from math import ceil
from typing import Any, cast

from sqlalchemy import Connection, func, insert, select

from democratiza.money import group
from democratiza.offers.lifecycle import ADJUDICATED, StoredOffer, load_offer
from democratiza.programs.schema import Program
from democratiza.stages.terms import NEXT, StageError, StageState, StageTerms, minimum_price, rules
from democratiza.stages.terms import shares_on_offer as capped
from democratiza.storage.database import new_id
from democratiza.storage.lifecycle import Life, Row, advance, canonical_json, move, record_event
from democratiza.storage.schema import (
    acceptances,
    adjudications,
    awards,
    offers,
    order_awards,
    orders,
    sales,
    stage_allocations,
    stage_events,
    stage_sales,
    stages,
)

STAGE_DONE = ("adjudicada", "publicada", "desierta")
# The states in which a stage's aviso is public: from its opening on. A draft is the office's
# work before the aviso; a stage declared void was open (or closed) first.
ANNOUNCED: tuple[StageState, ...] = ("abierta", "cerrada", "adjudicada", "desierta", "publicada")
LIFE = Life(stages, stage_events, "etapa_id", "etapa", "etapas/{code}", NEXT, StageError)


@dataclass(frozen=True)
class StoredStage:
    id: int
    code: str
    number: int
    state: StageState
    terms: StageTerms
    shares: int  # on offer in this stage
    minimum_price: int  # centavos
    origin: dict[str, Any]  # where the shares come from, and how the minimum was reached
    first: StoredOffer  # the Primera Etapa offer

    @property
    def program(self) -> Program:
        return self.first.program

    @property
    def name(self) -> str:
        return stage_name(self.program, self.number)


def stage_name(program: Program, number: int) -> str:
    """A later stage's name: the second as the program file calls it ('Segunda Fase'), the
    ones after it 'Etapa Subsecuente 1', 2…"""
    base = rules(program).name.value
    return base if number == 2 else f"Etapa Subsecuente {number - 2}"


def _first_stage_left(conn: Connection, first: StoredOffer) -> dict[str, Any]:
    # A Primera Etapa declared desierta adjudicated nothing: all its shares pass on.
    if first.state not in (*ADJUDICATED, "desierta"):
        raise StageError(
            f"La Primera Etapa '{first.code}' está {first.state}: la Segunda Etapa se crea "
            "cuando la primera está adjudicada o declarada desierta."
        )
    offered = first.offer.values["acciones_ofrecidas"]
    assert isinstance(offered, int)
    awarded = conn.execute(
        select(func.coalesce(func.sum(awards.c.adjudicada), 0))
        .join(adjudications, adjudications.c.id == awards.c.adjudicacion_id)
        .where(adjudications.c.oferta_id == first.id)
    ).scalar_one()
    settled = conn.execute(
        select(
            func.count(),
            func.coalesce(func.sum(sales.c.acciones_pagadas), 0),
            func.coalesce(func.sum(sales.c.acciones_resueltas), 0),
        )
        .select_from(sales)
        .join(acceptances, acceptances.c.id == sales.c.aceptacion_id)
        .where(acceptances.c.oferta_id == first.id)
    ).one()
    if int(awarded) > 0 and settled[0] == 0:
        raise StageError(
            "Liquide primero los pagos de la Primera Etapa (democratiza pago liquidar): "
            "hasta entonces no se sabe qué acciones adjudicadas vuelven por falta de pago."
        )
    paid, resolved = int(settled[1]), int(settled[2])
    return {
        "de": f"Primera Etapa {first.code}",
        "ofrecidas_primera_etapa": offered,
        "adjudicadas_primera_etapa": int(awarded),
        "pagadas": paid,
        "resueltas_por_no_pago": resolved,
        "disponibles": offered - paid,
    }


def _previous_stage_left(conn: Connection, previous: StoredStage) -> dict[str, Any]:
    """What a stage leaves: its available shares − the shares paid for (once its payments
    are settled, the unpaid ones are resolved and come back, as in the Primera Etapa)."""
    if previous.state not in STAGE_DONE:
        raise StageError(
            f"La etapa '{previous.code}' está {previous.state}: la siguiente se crea cuando "
            "esté adjudicada o declarada desierta."
        )
    allocated = conn.execute(
        select(func.coalesce(func.sum(order_awards.c.asignada), 0))
        .join(stage_allocations, stage_allocations.c.id == order_awards.c.adjudicacion_id)
        .where(stage_allocations.c.etapa_id == previous.id)
    ).scalar_one()
    settled = conn.execute(
        select(
            func.count(),
            func.coalesce(func.sum(stage_sales.c.acciones_pagadas), 0),
            func.coalesce(func.sum(stage_sales.c.acciones_resueltas), 0),
        )
        .select_from(stage_sales)
        .join(orders, orders.c.id == stage_sales.c.orden_id)
        .where(orders.c.etapa_id == previous.id)
    ).one()
    if int(allocated) > 0 and settled[0] == 0:
        raise StageError(
            f"Liquide primero los pagos de la etapa '{previous.code}' (democratiza etapa "
            "liquidar): hasta entonces no se sabe qué acciones asignadas vuelven por falta "
            "de pago."
        )
    available = int(previous.origin["disponibles"])
    return {
        "de": f"{previous.name} {previous.code}",
        "disponibles_etapa_anterior": available,
        "asignadas_etapa_anterior": int(allocated),
        "pagadas": int(settled[1]),
        "resueltas_por_no_pago": int(settled[2]),
        "disponibles": available - int(settled[1]),
    }


def create_stage(
    conn: Connection, code: str, offer_code: str, terms: StageTerms, who: str, why: str
) -> StoredStage:
    """The next stage of the program that ``offer_code`` started, in draft."""
    first = load_offer(conn, offer_code)
    program = first.program
    rules(program)
    if conn.execute(select(stages.c.id).where(stages.c.codigo == code)).first():
        raise StageError(f"Ya existe una etapa con el código '{code}'.")
    last = conn.execute(
        select(stages.c.codigo)
        .where(stages.c.oferta_id == first.id)
        .order_by(stages.c.numero.desc())
        .limit(1)
    ).scalar()
    if last is None:
        number, origin = 2, _first_stage_left(conn, first)
    else:
        previous = load_stage(conn, last)
        number, origin = previous.number + 1, _previous_stage_left(conn, previous)
    if origin["disponibles"] <= 0:
        raise StageError("No quedan acciones por vender: no hay etapa que crear.")
    announced = first.offer.day("fecha_aviso")
    if announced is None:
        raise StageError("La Primera Etapa no tiene fecha_aviso; hace falta para el precio.")
    # The Primera Etapa's fixed price as it ended: the adjusted one after an interruption.
    # Orders are priced in centavos: a fixed price finer than a centavo floors the stage at
    # the first whole centavo not below it.
    price = minimum_price(program, ceil(first.price_in_force), announced, terms)
    shares = capped(origin["disponibles"], terms)
    origin["precio_minimo_pasos"] = list(price.steps)
    if shares < origin["disponibles"]:
        origin["tope"] = (
            f"Tope del tramo: {terms.tranche_cap_percent} % de {group(origin['disponibles'])} "
            f"= {group(shares)} acciones; las demás pasan a la etapa siguiente."
        )
    stage_id = new_id(
        conn.execute(
            insert(stages).values(
                codigo=code,
                oferta_id=first.id,
                numero=number,
                estado="borrador",
                terminos=terms.model_dump_json(by_alias=True),
                acciones=shares,
                precio_minimo=price.centavos,
                origen=canonical_json(origin),
                creada_en=datetime.now(),
            )
        )
    )
    stored = StoredStage(
        stage_id, code, number, "borrador", terms, shares, price.centavos, origin, first
    )
    record_event(conn, LIFE, Row(stage_id, code), "creacion", (None, "borrador"), who, why)
    return stored


def load_stage(conn: Connection, code: str) -> StoredStage:
    row = conn.execute(select(stages).where(stages.c.codigo == code)).mappings().first()
    if row is None:
        raise StageError(f"No existe la etapa '{code}'.")
    first_code = conn.execute(
        select(offers.c.codigo).where(offers.c.id == row["oferta_id"])
    ).scalar_one()
    return StoredStage(
        row["id"],
        code,
        row["numero"],
        cast(StageState, row["estado"]),
        StageTerms.model_validate_json(row["terminos"]),
        row["acciones"],
        row["precio_minimo"],
        json.loads(row["origen"]),
        load_offer(conn, first_code),
    )


def advance_stage(
    conn: Connection, stage: StoredStage, target: StageState, who: str, why: str
) -> StoredStage:
    """Move the stage to its next state; any other move is refused and nothing changes."""
    advance(conn, LIFE, Row(stage.id, stage.code), (stage.state, target), who, why)
    return replace(stage, state=target)


def declare_void(conn: Connection, stage: StoredStage, who: str, why: str) -> StoredStage:
    """Declare the stage void (desierta) with its cause; its shares pass to the next stage."""
    if stage.state not in ("abierta", "cerrada"):
        raise StageError(
            f"La etapa '{stage.code}' está {stage.state}: solo se declara desierta abierta o "
            "cerrada."
        )
    rule = rules(stage.program).void
    cite = stage.program.cite(rule.citation)
    row, states = Row(stage.id, stage.code), (stage.state, "desierta")
    move(conn, LIFE, row, states, who, f"{why} ({cite})", "desierta")
    return replace(stage, state="desierta")


def stage_history(conn: Connection, stage: StoredStage) -> list[dict[str, Any]]:
    rows = conn.execute(
        select(stage_events).where(stage_events.c.etapa_id == stage.id).order_by(stage_events.c.id)
    ).mappings()
    return [dict(r) for r in rows]


def second_stage_price(conn: Connection, offer_id: int) -> int | None:
    """The price per share the seller received in the Segunda Etapa, once it is adjudicated.

    A base of the fines (GEB art. 11 lit. c; Central de Seguros, inciso «El incumplimiento…»
    (iii)); ``None`` while that stage is not adjudicated, or was void.
    """
    price = conn.execute(
        select(stage_allocations.c.precio)
        .join(stages, stages.c.id == stage_allocations.c.etapa_id)
        .where(
            stages.c.oferta_id == offer_id,
            stages.c.numero == 2,
            stage_allocations.c.desierta.is_(False),
        )
    ).scalar_one_or_none()
    return None if price is None else int(price)
