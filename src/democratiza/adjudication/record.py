"""The adjudication of a closed offer, as a stored, reproducible record.

Inputs, in the order of receipt (``recepcion``: ``storage.radicados``, the
tie-break the program file's remainder rule refers to): every current, valid acceptance with
what the person's limits leave for it. The record keeps the program version and the SHA-256
of the program file the offer keeps, the offer's parameters, the method, a SHA-256 of the
canonical inputs and of the canonical results;
running it again on the same database gives byte-identical results.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime

import numpy as np
import polars as pl
from sqlalchemy import ColumnElement, Connection, Engine, insert, select

from democratiza.adjudication.joint import allocate_with_caps, cap_notes
from democratiza.offers.dates import adjudication_day, publication_days, record_dates
from democratiza.offers.lifecycle import OfferError, StoredOffer, advance, load_offer
from democratiza.programs.schema import Program
from democratiza.rules.explain import cite
from democratiza.rules.person import ORDER, PERSON_KEY, per_person, person_keys, read_general
from democratiza.storage import audit
from democratiza.storage.bulk import write_rows
from democratiza.storage.database import new_id, read_frame
from democratiza.storage.records import digest, verified
from democratiza.storage.schema import acceptances, adjudications, awards

INPUT_COLUMNS = ["radicado", "tipo_identificacion", "numero_identificacion", "cantidad_persona"]
RESULT_COLUMNS = [
    "radicado",
    "comisionista",
    "tipo_identificacion",
    "numero_identificacion",
    "nombre",
    "categoria",
    "fecha_radicacion",
    "cantidad",
    "cantidad_permitida",
    "decision",
    "regla_limitante",
    "cantidad_persona",
    "consumido_por",
    "adjudicada",
]


@dataclass(frozen=True)
class Adjudication:
    offer_code: str
    header: dict[str, object]
    results: pl.DataFrame  # RESULT_COLUMNS, in filing order


DATETIMES = "%Y-%m-%dT%H:%M:%S"  # filing times in the hashed CSV: to the second


def current_acceptances(conn: Connection, stored: StoredOffer) -> pl.DataFrame:
    """The offer's current version of every acceptance (withdrawn ones included, as such)."""
    text, whole = pl.String(), pl.Int64()
    schema: dict[str, pl.DataType] = {
        "id": whole,
        "radicado": text,
        "estado": text,
        "comisionista": text,
        "tipo_identificacion": text,
        "numero_identificacion": text,
        "nombre": text,
        "categoria": text,
        "fecha_radicacion": pl.Datetime("us"),
        "cantidad": whole,
        "cantidad_permitida": whole,
        "limite_minimo": whole,
        "decision": text,
        "regla_limitante": text,
        "regla_limite": text,
        "recepcion": whole,
    }
    general = {"limite_general": whole, "regla_general": text}
    schema.update((name, general[name]) for name in read_general(stored.program))
    columns = [acceptances.c[name] for name in schema]
    statement = select(*columns).where(acceptances.c.oferta_id == stored.id, acceptances.c.vigente)
    return read_frame(conn, statement, schema)


def own_price(stored: StoredOffer) -> list[ColumnElement[bool]]:
    """An acceptance's recorded price is its own when it is not the initial one (an initial
    price finer than a centavo is never recorded: ``StoredOffer.recorded_price``)."""
    price = stored.offer.price
    return [] if price.denominator != 1 else [acceptances.c.precio != int(price)]


def acceptance_prices(conn: Connection, stored: StoredOffer) -> pl.DataFrame:
    """radicado → precio of the current acceptances that pay another price than the offer's
    initial one (evaluated after an interruption with an adjusted price); empty if none."""
    a = acceptances.c
    statement = select(a.radicado, a.precio).where(
        a.oferta_id == stored.id,
        a.vigente,
        a.precio.is_not(None),
        *own_price(stored),
    )
    return read_frame(conn, statement, {"radicado": pl.String(), "precio": pl.Int64()})


def compute(stored: StoredOffer, current: pl.DataFrame) -> Adjudication:
    """Pure: the adjudication of these acceptances under this offer (no database)."""
    program, offer = stored.program, stored.offer
    supply = offer.values.get("acciones_ofrecidas")
    if not isinstance(supply, int):
        raise OfferError("La oferta no tiene el parámetro acciones_ofrecidas.")
    # The persons numbered once, for the person rule and the allocation alike (one acceptant
    # per person, whatever the broker), as the designer does.
    people = per_person(current.with_columns(person_keys(current))).sort(ORDER)
    demand = people["cantidad_persona"].to_numpy().astype(np.int64)
    # Only joint caps read the categories.
    categories = (
        people["categoria"].cast(pl.String).to_list() if program.allocation.joint_caps else []
    )
    keys = people[PERSON_KEY].to_numpy()
    result, caps = allocate_with_caps(demand, keys, categories, supply, program)
    results = people.with_columns(pl.Series("adjudicada", result.awards)).select(RESULT_COLUMNS)
    header: dict[str, object] = {
        "oferta": stored.code,
        "programa": program.id,
        "version_programa": program.version,
        "huella_programa": stored.program_sha256,
        "parametros": {k: str(v) for k, v in sorted(offer.values.items())},
        "metodo": program.allocation.method,
        "residuo": program.allocation.remainder,
        "lote_acciones": program.allocation.unit_shares,
        "orden": "orden de recepción (radicado)",
        "acciones_ofrecidas": supply,
        "demanda_valida": int(demand.sum()),
        "adjudicadas": int(result.awards.sum()),
        "sobredemanda": bool(result.oversubscribed),
        "nivel": result.level,
        "notas": [*_person_notes(program, people), *result.notes],
        "huella_entradas": digest(people.select(INPUT_COLUMNS), DATETIMES),
        "huella_resultado": digest(results, DATETIMES),
    }
    if caps:  # only where the file has them: the records of other programs are unchanged
        header["topes_conjuntos"] = [
            {
                "id": cap.id,
                "categorias": list(cap.categories),
                "tope_acciones": outcome.cap,
                "demanda_grupo": outcome.demand,
                "notas": cap_notes(program, cap, outcome),
            }
            for cap, outcome in caps
        ]
    return Adjudication(stored.code, header, results)


def _person_notes(program: Program, people: pl.DataFrame) -> list[str]:
    """One note per rule that reduced acceptances across a person's filings, with its
    article and the radicados; none when no person's filings added up past a limit. A filing
    cut by a smaller limit another of the person's filings brought, with none received
    before it, is said so: no earlier filing used anything."""
    reduced = people.filter(pl.col("consumido_por").is_not_null())
    notes = []
    for (rule,), rows in reduced.group_by("regla_limitante", maintain_order=True):
        limit = program.limit(str(rule)) if rule else None
        named = (
            f"el límite «{limit.name}» ({cite(program, limit.citation)})" if limit else "su límite"
        )
        used = rows.filter(pl.col("consumido_por") != "")
        if used.height:
            notes.append(
                f"Reducidas en la adjudicación porque las radicaciones anteriores de la misma "
                f"persona usaron {named}: {', '.join(used['radicado'])}."
            )
        first = rows.filter(pl.col("consumido_por") == "")
        if first.height:  # the person's smallest limit came with a filing received later
            notes.append(
                f"Reducidas en la adjudicación por {named}, el menor que traen las "
                f"radicaciones de la misma persona (se toma el menor monto), sin radicaciones "
                f"anteriores que lo usaran: {', '.join(first['radicado'])}."
            )
    return notes


def adjudicate(
    engine: Engine, offer_code: str, who: str, why: str, day: date | None = None
) -> Adjudication:
    """Adjudicate a closed offer once, store the record and move the offer to adjudicada.

    ``day`` is the adjudication's business date (today if not given; ``offers.dates``)."""
    with engine.begin() as conn:
        stored = load_offer(conn, offer_code)
        if stored.state != "cerrada":
            raise OfferError(f"La oferta '{offer_code}' está {stored.state}; se adjudica cerrada.")
        record_dates(
            conn, stored.id, fecha_adjudicacion=adjudication_day(stored, day, date.today())
        )
        current = current_acceptances(conn, stored)
        done = compute(stored, current)
        record_id = new_id(
            conn.execute(
                insert(adjudications).values(
                    oferta_id=stored.id,
                    version_programa=stored.program.version,
                    huella_programa=stored.program_sha256,
                    parametros=json.dumps(done.header["parametros"], sort_keys=True),
                    metodo=stored.program.allocation.method,
                    residuo=stored.program.allocation.remainder,
                    huella_entradas=done.header["huella_entradas"],
                    huella_resultado=done.header["huella_resultado"],
                    registro=json.dumps(done.header, sort_keys=True, ensure_ascii=False),
                    creada_en=datetime.now(),
                    quien=who,
                )
            )
        )
        ids = current.select("radicado", pl.col("id").alias("aceptacion_id"))
        rows = (
            done.results.select("radicado", "cantidad_persona", "adjudicada")
            .join(ids, on="radicado", how="left", validate="1:1", maintain_order="left")
            .select(
                pl.lit(record_id, pl.Int64).alias("adjudicacion_id"),
                "aceptacion_id",
                "cantidad_persona",
                "adjudicada",
            )
        )
        write_rows(conn, awards, rows)  # COPY on PostgreSQL: a million awards in seconds
        audit.append(
            conn,
            who,
            "oferta.adjudicar",
            f"adjudicaciones/{record_id}",
            None,
            {
                k: done.header[k]
                for k in (
                    "oferta",
                    "huella_programa",
                    "metodo",
                    "acciones_ofrecidas",
                    "demanda_valida",
                    "adjudicadas",
                    "huella_entradas",
                    "huella_resultado",
                )
            },
        )
        advance(conn, stored, "adjudicada", who, why)
    return done


def stored_adjudication(engine: Engine, offer_code: str) -> Adjudication:
    """The stored record, recomputed from the stored inputs and checked against its hashes."""
    with engine.connect() as conn:
        stored = load_offer(conn, offer_code)
        header, again = verified(
            conn,
            adjudications,
            ("oferta_id", stored.id),
            lambda _: compute(stored, current_acceptances(conn, stored)),
            (
                OfferError(f"La oferta '{offer_code}' no se ha adjudicado."),
                OfferError("La adjudicación recalculada no coincide con la registrada."),
            ),
        )
    return Adjudication(offer_code, header, again.results)


def publish(
    engine: Engine,
    offer_code: str,
    who: str,
    why: str,
    day: date | None = None,
    payment_deadline: date | None = None,
) -> None:
    """Publish the results on ``day`` (today if not given), with the payment deadline the
    results notice sets, if given (``offers.dates``)."""
    with engine.begin() as conn:
        stored = load_offer(conn, offer_code)
        if stored.state == "adjudicada":
            days = publication_days(conn, stored, day, payment_deadline, date.today())
            record_dates(conn, stored.id, **days)
        advance(conn, stored, "publicada", who, why)
