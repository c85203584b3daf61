"""What each role may see of the offers' data: every query that returns acceptances.

Why here: a broker must never read another broker's acceptances, and acceptants' personal
and financial data (Ley 1581 de 2012) go only to the roles that need them: the broker that
filed them, the program office that adjudicates, and the auditors. Each function takes the
principal and filters in the query itself, so no handler can forget it; the public gets
only aggregate figures and, after publication, its own result by radicado plus ID.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import datetime
from typing import Any

import polars as pl
from sqlalchemy import Connection, Engine, select

from democratiza.compliance.ledger import acceptance_price
from democratiza.filing.reasons import stored_explanations
from democratiza.labels import later_stage_payments
from democratiza.money import pesos_cell
from democratiza.offers.lifecycle import OfferError, StoredOffer, load_offer
from democratiza.rules.engine import IDENTITY_COLUMNS
from democratiza.rules.explain import cite
from democratiza.rules.person import per_person, read_general
from democratiza.stages.lifecycle import load_stage
from democratiza.stages.terms import StageError, rules
from democratiza.storage.database import read_frame
from democratiza.storage.schema import (
    acceptances,
    adjudications,
    awards,
    batches,
    offers,
    order_awards,
    orders,
    sales,
    stage_allocations,
)
from democratiza.tables.cells import csv_text
from democratiza.verification.pseudonyms import offer_key, pseudonym
from democratiza.web.api.result_steps import result_steps
from democratiza.web.errors import NotFound
from democratiza.web.security.auth import BROKER, Principal
from democratiza.words import WITHDRAWN, decision_of

# What a broker, the office and the auditors see of an acceptance (personal data included).
ACCEPTANCE_FIELDS = [
    "radicado",
    "version",
    "estado",
    *(c for c in IDENTITY_COLUMNS if c != "fila"),  # the row number is the file's
    "cantidad",
    "forma_pago",
    "patrimonio_liquido",
    "ingresos_declaracion",
    "cantidad_permitida",
    "decision",
    "regla_limitante",
    "motivo",
]
PAGE = 200
# Stored in centavos; the CSV a person opens has them in pesos with two decimals (48000000.00).
AMOUNT_FIELDS = frozenset({"patrimonio_liquido", "ingresos_declaracion"})


def offer_or_404(conn: Connection, code: str) -> StoredOffer:
    try:
        return load_offer(conn, code)
    except OfferError as exc:
        raise NotFound(str(exc)) from None


def check_offer(engine: Engine, code: str) -> None:
    """404 unless the offer exists, before a service that would refuse it otherwise."""
    with engine.connect() as conn:
        offer_or_404(conn, code)


def _mine(who: Principal) -> Any:
    """The acceptances a principal may read: a broker's own, or all for office and auditors."""
    if who.role == BROKER:
        return acceptances.c.comisionista == who.broker
    return acceptances.c.id.is_not(None)


def plain(value: object) -> object:
    return value.isoformat() if isinstance(value, datetime) else value


def list_acceptances(
    conn: Connection,
    stored: StoredOffer,
    who: Principal,
    after: str | None = None,
    limit: int = PAGE,
    broker: str | None = None,
    batch: str | None = None,
) -> list[dict[str, object]]:
    """Current versions, by radicado, ``limit`` at a time after the radicado ``after``;
    ``batch``: only the rows of the batch its broker named so (with ``broker`` for the
    office, which sees every broker's)."""
    query = (
        select(*[acceptances.c[n] for n in ACCEPTANCE_FIELDS])
        .where(acceptances.c.oferta_id == stored.id, acceptances.c.vigente, _mine(who))
        .order_by(acceptances.c.radicado)
        .limit(limit)
    )
    if after:
        query = query.where(acceptances.c.radicado > after)
    if broker:
        query = query.where(acceptances.c.comisionista == broker)
    if batch:
        named = select(batches.c.id).where(
            batches.c.oferta_id == stored.id, batches.c.lote == batch
        )
        if broker:
            named = named.where(batches.c.comisionista == broker)
        query = query.where(acceptances.c.lote_id.in_(named))
    return [{k: plain(v) for k, v in r.items()} for r in conn.execute(query).mappings()]


def acceptances_csv(conn: Connection, stored: StoredOffer, who: Principal) -> bytes:
    """Every current acceptance a principal may read, as CSV (a broker: its own); amounts in
    pesos with two decimals."""
    query = (
        select(*[acceptances.c[n] for n in ACCEPTANCE_FIELDS])
        .where(acceptances.c.oferta_id == stored.id, acceptances.c.vigente, _mine(who))
        .order_by(acceptances.c.radicado)
    )
    rows = (
        [
            "" if v is None else pesos_cell(v) if name in AMOUNT_FIELDS else plain(v)
            for name, v in zip(ACCEPTANCE_FIELDS, row, strict=True)
        ]
        for row in conn.execute(query)
    )
    return csv_text(ACCEPTANCE_FIELDS, rows).encode()


def one_acceptance(
    conn: Connection, stored: StoredOffer, who: Principal, radicado: str
) -> dict[str, object]:
    """Every version of one acceptance, newest first; another broker's is 'not found'."""
    rows = conn.execute(
        select(*[acceptances.c[n] for n in ACCEPTANCE_FIELDS], acceptances.c.vigente)
        .where(
            acceptances.c.oferta_id == stored.id,
            acceptances.c.radicado == radicado,
            _mine(who),
        )
        .order_by(acceptances.c.version.desc())
    ).mappings()
    versions = [{k: plain(v) for k, v in r.items()} for r in rows]
    if not versions:
        raise NotFound(f"No hay una aceptación con radicado {radicado} visible para usted.")
    return {"radicado": radicado, "versiones": versions}


def list_batches(conn: Connection, stored: StoredOffer, who: Principal) -> list[dict[str, object]]:
    """The batches a principal may read, in the order received, each numbered among its
    broker's own (the database's ids would tell a broker how many others filed)."""
    query = select(
        batches.c.numero,
        batches.c.comisionista,
        batches.c.lote,
        batches.c.archivo,
        batches.c.filas,
        batches.c.recibido_en,
        batches.c.huella,
    ).where(batches.c.oferta_id == stored.id)
    if who.role == BROKER:
        query = query.where(batches.c.comisionista == who.broker)
    rows = conn.execute(query.order_by(batches.c.id)).mappings()
    return [{k: plain(v) for k, v in r.items()} for r in rows]


def offer_list(conn: Connection) -> list[dict[str, object]]:
    rows = conn.execute(
        select(offers.c.codigo, offers.c.programa, offers.c.estado, offers.c.creada_en).order_by(
            offers.c.id
        )
    ).mappings()
    return [{k: plain(v) for k, v in r.items()} for r in rows]


def typed_radicado(typed: str) -> str:
    """A radicado as its broker gave it, in any case and with spaces around: radicados are
    written in capitals (``storage.radicados``)."""
    return typed.strip().upper()


def typed_identification(typed: str) -> str:
    """An identification number as a person may type it, "1.020.304" or "1 020 304": the
    dots and spaces of its thousands are not part of it."""
    return "".join(typed.split()).replace(".", "")


def lookup_result(
    conn: Connection, code: str, radicado: str, id_type: str, id_number: str
) -> dict[str, object]:
    """The public's own result, after publication, by radicado plus identification.

    With it goes the filing's pseudonym under the offer's key, the one its public package
    names it by, so the person finds their own row there. The key is drawn the first time
    it is needed (here or for the package) and kept, so ``conn`` must be able to write.
    """
    missing = _missing()
    try:
        stored = load_offer(conn, code)
    except OfferError:
        raise missing from None
    if stored.state != "publicada":
        raise NotFound("Los resultados de esta oferta aún no se han publicado.")
    radicado, id_type, id_number = (
        typed_radicado(radicado),
        id_type.strip().upper(),
        typed_identification(id_number),
    )
    row = (
        conn.execute(
            select(
                acceptances.c.radicado,
                acceptances.c.cantidad,
                acceptances.c.cantidad_permitida,
                acceptances.c.tipo_identificacion,
                acceptances.c.numero_identificacion,
                acceptances.c.categoria,
                acceptances.c.estado,
                acceptances.c.decision.label("decision_al_radicar"),
                acceptances.c.regla_limitante.label("regla_al_radicar"),
                adjudications.c.registro,
                sales.c.fecha_enajenacion,
                sales.c.acciones_pagadas,
                sales.c.acciones_resueltas,
                awards.c.cantidad_persona,
                awards.c.adjudicada,
                acceptance_price(stored),  # what it pays, the adjusted price if so
            )
            .join(awards, awards.c.aceptacion_id == acceptances.c.id)
            .join(adjudications, adjudications.c.id == awards.c.adjudicacion_id)
            .outerjoin(sales, sales.c.aceptacion_id == acceptances.c.id)  # once settled
            .where(
                acceptances.c.oferta_id == stored.id,
                acceptances.c.radicado == radicado,
                acceptances.c.vigente,
                acceptances.c.tipo_identificacion == id_type,
                acceptances.c.numero_identificacion == id_number,
            )
        )
        .mappings()
        .first()
    )
    if row is None:
        raise missing
    # The decision and its rule are the adjudication's, through the person's filings.
    found = {**dict(row), **_as_adjudicated(conn, stored, radicado, id_type, id_number)}
    state = found.pop("estado")
    found["retirada"] = state == WITHDRAWN
    header = json.loads(str(found.pop("registro")))
    found["topes_que_limitaron"] = [
        str(cap["id"])
        for cap in header.get("topes_conjuntos", [])
        if int(cap["demanda_grupo"]) > int(cap["tope_acciones"])
    ]
    who = (found.pop("tipo_identificacion"), found.pop("numero_identificacion"))
    found["seudonimo"] = pseudonym(offer_key(conn, stored.id), *who)
    rule = found["regla_limitante"]
    if rule:
        limit = stored.program.limit(str(rule))
        found["regla_limitante_nombre"] = limit.name
        found["regla_limitante_cita"] = cite(stored.program, limit.citation)
    found["oferta"] = code
    found["oferta_nombre"] = stored.program.name
    if found["decision_al_radicar"] == "rechazada" and not found["retirada"]:
        explained = stored_explanations(conn, stored, [radicado]).get(radicado)
        found["causas_al_radicar"] = list(explained.causes) if explained else []
    found["pasos"] = [asdict(step) for step in result_steps(stored, found)]
    found["decision"] = decision_of(found["decision"], state)  # never "rechazada" if withdrawn
    return found


# A withdrawn order, as its buyer reads it: the stored reason is the broker's own note.
ORDER_WITHDRAWN = "su comisionista la retiró mientras la etapa recibía órdenes"


def _missing() -> NotFound:
    """The one answer for an unknown radicado and for a wrong identification alike: the
    lookup must never tell that a radicado exists (no oracle)."""
    return NotFound(
        "No hay un resultado publicado con ese radicado e identificación. Verifique los datos."
    )


def lookup_order_result(
    conn: Connection, code: str, radicado: str, id_type: str, id_number: str
) -> dict[str, object]:
    """A later stage's order, once the stage is published, by radicado plus identification:
    its decision at intake (and why it was refused), the shares and price asked, the shares
    allocated at the stage's single price and the pseudonym the stage's package names it by
    (under the offer's key, like the Primera Etapa's: ``verification.publish``). Same
    answers as ``lookup_result`` for what is not there; ``conn`` must be able to write."""
    try:
        stage = load_stage(conn, code)
    except StageError:
        raise _missing() from None
    if stage.state != "publicada":
        raise NotFound("Los resultados de esta etapa aún no se han publicado.")
    o = orders.c
    allocation = stage_allocations.c
    row = (
        conn.execute(
            select(
                o.radicado,
                o.tipo_identificacion,
                o.numero_identificacion,
                o.precio,
                o.cantidad,
                o.decision,
                o.motivo,
                o.estado,
                allocation.precio.label("precio_adjudicacion"),
                order_awards.c.asignada,
            )
            .select_from(orders)
            .join(stage_allocations, allocation.etapa_id == o.etapa_id)
            .outerjoin(
                order_awards,
                (order_awards.c.orden_id == o.id)
                & (order_awards.c.adjudicacion_id == allocation.id),
            )
            .where(
                o.etapa_id == stage.id,
                o.radicado == typed_radicado(radicado),  # as for an acceptance
                o.vigente,
                o.tipo_identificacion == id_type.strip().upper(),
                o.numero_identificacion == typed_identification(id_number),
            )
        )
        .mappings()
        .first()
    )
    if row is None:
        raise _missing()
    found = dict(row)
    who = (str(found.pop("tipo_identificacion")), str(found.pop("numero_identificacion")))
    if found.pop("estado") == WITHDRAWN:  # its stored reason names who withdrew it
        found["motivo"] = ORDER_WITHDRAWN
    assigned = int(found["asignada"] or 0)
    price = int(found["precio_adjudicacion"] or 0)
    return {
        **found,
        "asignada": assigned,
        "precio_adjudicacion": price,
        "valor_a_pagar": assigned * price,
        "motivo": found["motivo"] if found["decision"] != "valida" else None,
        "seudonimo": pseudonym(offer_key(conn, stage.first.id), *who),
        "etapa": stage.code,
        "etapa_nombre": stage.name,
        "oferta": stage.first.code,
        "oferta_nombre": stage.first.program.name,
        "formas_pago": later_stage_payments(stage.program, rules(stage.program)),
    }


def _as_adjudicated(
    conn: Connection, stored: StoredOffer, radicado: str, id_type: str, id_number: str
) -> dict[str, object]:
    """The decision and binding rule the adjudication gave this acceptance, and the filings
    that used the person's limit before it: the person's own acceptances, through the same
    per-person rule the adjudication ran (``rules.person``)."""
    a = acceptances.c
    schema: dict[str, pl.DataType] = {
        "radicado": pl.String(),
        "tipo_identificacion": pl.String(),
        "numero_identificacion": pl.String(),
        "cantidad_permitida": pl.Int64(),
        "limite_minimo": pl.Int64(),
        "regla_limite": pl.String(),
        "decision": pl.String(),
        "regla_limitante": pl.String(),
        "recepcion": pl.Int64(),
    }
    general = {"limite_general": pl.Int64(), "regla_general": pl.String()}
    schema.update((name, general[name]) for name in read_general(stored.program))
    own = read_frame(
        conn,
        select(*(a[c] for c in schema)).where(
            a.oferta_id == stored.id,
            a.vigente,
            a.tipo_identificacion == id_type.strip().upper(),
            a.numero_identificacion == id_number.strip(),
        ),
        schema,
    )
    mine = per_person(own).filter(pl.col("radicado") == radicado)
    return mine.select("decision", "regla_limitante", "consumido_por").row(0, named=True)
