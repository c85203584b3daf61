"""An offer: a program instantiated with its parameters, and its recorded life.

States: borrador → abierta → cerrada → adjudicada → publicada. Every transition, and every
interruption or price adjustment (Ley 226 art. 11), is an event with who, when and why.

An offer keeps the exact text of the program file it was created with, and its SHA-256: its
rules are rebuilt from that text, so a later edit of the file (or a file given by path that
is gone) never changes or breaks an offer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import date, datetime
from fractions import Fraction
from itertools import pairwise
from typing import Any, Literal, cast, get_args

from sqlalchemy import Connection, RowMapping, bindparam, func, insert, select

from democratiza.calendar import add_months
from democratiza.offers.prices import (
    AdjustmentRequest,
    PriceAdjustment,
    checked_adjustment,
    price_adjustments,
)
from democratiza.programs.loader import (
    ProgramFileError,
    ProgramText,
    digest,
    program_from_text,
    read_program,
)
from democratiza.programs.parameters import Offer, OfferParameterError, make_offer
from democratiza.programs.schema import Program
from democratiza.programs.texts import NormText
from democratiza.storage.database import new_id
from democratiza.storage.lifecycle import Life, Row, canonical_json, move, record_event
from democratiza.storage.lifecycle import advance as advance_row
from democratiza.storage.schema import offer_events, offers

OfferState = Literal["borrador", "abierta", "cerrada", "adjudicada", "publicada", "desierta"]
STATES: tuple[OfferState, ...] = get_args(OfferState)
# The offer's steps in order; desierta is reached only by ``declare_void``.
STEPS: tuple[OfferState, ...] = ("borrador", "abierta", "cerrada", "adjudicada", "publicada")
ADJUDICATED = ("adjudicada", "publicada")  # the awards exist: payments, holdings, next stage


class OfferError(Exception):
    """A refused operation on an offer; the message is for the person who asked."""


LIFE = Life(
    offers,
    offer_events,
    "oferta_id",
    "oferta",
    "ofertas/{id}",
    dict(pairwise(STEPS)),
    OfferError,
    True,
)


@dataclass(frozen=True)
class StoredOffer:
    id: int
    code: str
    state: OfferState
    offer: Offer  # with the program's fixed price (the initial one)
    program_sha256: str  # of the program file's text the offer keeps
    adjustments: tuple[PriceAdjustment, ...] = ()  # after interruptions, in order
    kept: ProgramText | None = None  # the program file's text and the texts it cites

    @property
    def program(self) -> Program:
        return self.offer.program

    @property
    def price_in_force(self) -> int | Fraction:
        """The price a filing received now is evaluated at and will pay (centavos, exact)."""
        if self.adjustments:
            return self.adjustments[-1].price
        price = self.offer.price
        return int(price) if price.denominator == 1 else price

    @property
    def recorded_price(self) -> int | None:
        """What a filing received now records as its price (``aceptaciones.precio``): the
        price in force in centavos; empty for the initial price where it is finer than a
        centavo (an empty price is the offer's initial one, as for rows filed before
        acceptances recorded theirs)."""
        price = self.price_in_force
        return price if isinstance(price, int) else None

    @property
    def filing_offer(self) -> Offer:
        """The offer as a filing received now is evaluated: at the price in force."""
        return self.offer_at(self.price_in_force)

    def offer_at(self, price: int | Fraction) -> Offer:
        """The offer as a filing evaluated at ``price`` (centavos) is: the initial offer, or
        the same offer at an adjusted price."""
        if price == self.offer.price:
            return self.offer
        return replace(self.offer, values={**self.offer.values, "precio": price})


def window_problem(program: Program, announced: date, closing: date) -> str | None:
    """Why a window is too short, or None.

    The term counts from the day the program file says (``ventana.desde``: the business day
    after the aviso in the four programs, Decreto 706/2017 arts. 4 and 6.1); a term of months
    ends the same day number of the last month (Código Civil art. 67, a product reading
    documented in docs/ofertas.md).
    """
    window = program.window
    opening = window.first_day(announced)
    earliest = add_months(opening, window.min_months)
    if closing < earliest:
        term, start = window.citation, window.start.citation
        return (
            f"El plazo del {opening:%Y-%m-%d} al {closing:%Y-%m-%d} es menor que "
            f"{window.min_months} meses ({program.cite(term)}) "
            f"contados desde {window.start.words} ({program.cite(start)}); "
            f"el cierre debe ser el {earliest:%Y-%m-%d} o después."
        )
    return None


def create_offer(
    conn: Connection, code: str, program_id: str, params: dict[str, object], who: str, why: str
) -> StoredOffer:
    try:
        source = read_program(program_id)
        program = source.program()
    except ProgramFileError as exc:
        raise OfferError("\n".join(str(e) for e in exc.errors)) from None
    try:
        offer = make_offer(program, params)
    except OfferParameterError as exc:
        raise OfferError("\n".join(exc.messages)) from None
    announced, closing = offer.day("fecha_aviso"), offer.day("fecha_cierre")
    if announced is None or closing is None:
        raise OfferError("Una oferta necesita fecha_aviso y fecha_cierre.")
    problem = window_problem(program, announced, closing)
    if problem:
        raise OfferError(problem)
    if conn.execute(select(offers.c.id).where(offers.c.codigo == code)).first():
        raise OfferError(f"Ya existe una oferta con el código '{code}'.")
    now = datetime.now()
    offer_id = new_id(
        conn.execute(
            insert(offers).values(
                codigo=code,
                programa=program.id,
                version_programa=program.version,
                parametros=canonical_json({k: str(v) for k, v in params.items() if v is not None}),
                estado="borrador",
                creada_en=now,
                programa_texto=source.text,
                programa_huella=source.sha256,
                programa_normas=kept_texts_json(source.texts),
            )
        )
    )
    record_event(conn, LIFE, Row(offer_id, code), "creacion", (None, "borrador"), who, why)
    return StoredOffer(offer_id, code, "borrador", offer, source.sha256, kept=source)


def load_offer(conn: Connection, code: str) -> StoredOffer:
    row = conn.execute(select(offers).where(offers.c.codigo == code)).mappings().first()
    if row is None:
        raise OfferError(f"No existe la oferta '{code}'.")
    program, texts = _kept_program(code, row)
    kept = ProgramText(row["programa_texto"], f"oferta {code}", texts, "guardado con la oferta")
    offer = make_offer(program, json.loads(row["parametros"]))
    state = cast(OfferState, row["estado"])
    prices = price_adjustments(conn, row["id"])
    return StoredOffer(row["id"], code, state, offer, row["programa_huella"], prices, kept)


# What tells one stored version of an offer from another (``current_offer``).
_INTERRUPTIONS = (offer_events.c.oferta_id == offers.c.id) & (offer_events.c.tipo == "interrupcion")
_STORED_VERSION = select(
    offers.c.id,
    offers.c.estado,
    offers.c.parametros,
    offers.c.programa_huella,
    offers.c.version_programa,
    func.length(offers.c.programa_texto),
    func.length(offers.c.programa_normas),
    select(func.count()).where(_INTERRUPTIONS).scalar_subquery(),
    select(func.max(offer_events.c.id)).where(_INTERRUPTIONS).scalar_subquery(),
).where(offers.c.codigo == bindparam("code"))
# The offers this process loaded, by database and code, with the stored version each was
# loaded at (a process may use two databases: the tests do).
_LOADED: dict[tuple[str, str], tuple[tuple[Any, ...], StoredOffer]] = {}
_LOADED_MAX = 64


def current_offer(conn: Connection, code: str) -> StoredOffer:
    """``load_offer``, answered from this process's last load while the stored offer is the same.

    Why: a single acceptances' group loaded its offer whole, the program's texts (about
    50 KB) read, checked by their hashes and parsed again, for every group. The offer's
    stored version is read every time (several processes and machines share the database,
    and a stale offer is never served): its row's state, parameters, program hash and the
    lengths of its texts, with the count and the last id of its interruptions (its price
    adjustments). Any change of those loads it again.
    """
    version = conn.execute(_STORED_VERSION, {"code": code}).first()
    if version is None:
        raise OfferError(f"No existe la oferta '{code}'.")
    key, where = tuple(version), (str(conn.engine.url), code)
    known = _LOADED.get(where)
    if known is not None and known[0] == key:
        return known[1]
    stored = load_offer(conn, code)
    if len(_LOADED) >= _LOADED_MAX:
        _LOADED.clear()
    _LOADED[where] = (key, stored)
    return stored


def _kept_program(code: str, row: RowMapping) -> tuple[Program, tuple[NormText, ...]]:
    """The program an offer's row keeps, and the texts it cites, each checked by its hash."""
    texts = stored_texts(code, row["programa_normas"])
    program = stored_program(code, row["programa_texto"], row["programa_huella"], texts)
    if program is None:
        raise OfferError(
            f"La oferta '{code}' se creó con la versión {row['version_programa']} del programa "
            f"{row['programa']} antes de que las ofertas guardaran su archivo de programa, y "
            "el archivo instalado no es esa versión: no se puede saber con qué reglas corre."
        )
    return program, texts


def offer_programs(conn: Connection, *states: OfferState) -> list[tuple[str, Program]]:
    """Each offer in one of ``states``, in the order they were created, with the program it
    keeps: one query, for a list that names each offer's program without loading every
    offer."""
    kept = (
        offers.c.codigo,
        offers.c.programa,
        offers.c.version_programa,
        offers.c.programa_texto,
        offers.c.programa_huella,
        offers.c.programa_normas,
    )
    chosen = offers.c.estado.in_(sorted(states))
    rows = conn.execute(select(*kept).where(chosen).order_by(offers.c.id))
    return [(row["codigo"], _kept_program(row["codigo"], row)[0]) for row in rows.mappings()]


def kept_program(conn: Connection, stored: StoredOffer) -> ProgramText:
    """The exact text of the program file the offer keeps and the texts it cites
    (``load_offer`` checked them)."""
    row = conn.execute(
        select(offers.c.programa_texto, offers.c.programa_normas).where(offers.c.id == stored.id)
    ).one()
    assert isinstance(row[0], str), "load_offer refuses an offer that keeps no program"
    texts = stored_texts(stored.code, row[1])
    return ProgramText(row[0], f"oferta {stored.code}", texts, "guardado con la oferta")


def kept_program_text(conn: Connection, stored: StoredOffer) -> str:
    """The exact text of the program file the offer keeps (``load_offer`` checked it)."""
    return kept_program(conn, stored).text


def kept_texts_json(texts: tuple[NormText, ...]) -> str | None:
    """The texts an offer keeps, as stored: each with its name and SHA-256."""
    if not texts:
        return None
    kept = [{"nombre": t.name, "texto": t.text, "huella": t.sha256} for t in texts]
    return json.dumps(kept, sort_keys=True, ensure_ascii=False)


def stored_texts(code: str, stored: str | None) -> tuple[NormText, ...]:
    """The texts an offer keeps, each checked against its SHA-256."""
    texts = tuple(NormText(t["nombre"], t["texto"]) for t in json.loads(stored or "[]"))
    hashes = [t["huella"] for t in json.loads(stored or "[]")]
    for text, sha256 in zip(texts, hashes, strict=True):
        if text.sha256 != sha256:
            raise OfferError(
                f"El texto '{text.name}' guardado con la oferta '{code}' no coincide con su huella."
            )
    return texts


def stored_program(
    code: str, text: str | None, sha256: str | None, texts: tuple[NormText, ...] = ()
) -> Program | None:
    """The program an offer keeps, checked against its hash (None if it keeps none)."""
    if text is None:
        return None
    if digest(text) != sha256:
        raise OfferError(f"El programa guardado con la oferta '{code}' no coincide con su huella.")
    try:
        return program_from_text(
            text, f"programa guardado con la oferta {code}", texts, "guardado con la oferta"
        )
    except ProgramFileError as exc:
        raise OfferError("\n".join(str(e) for e in exc.errors)) from None


def advance(
    conn: Connection,
    stored: StoredOffer,
    target: OfferState,
    who: str,
    why: str,
    detail: dict[str, Any] | None = None,
) -> StoredOffer:
    """Move the offer to the next state; any other move is refused and nothing changes.

    The opening as people ask for it is ``compliance.credit.gate.open_offer``, which checks
    the credit lines first (Ley 226 art. 11 num. 3) and records its verdict in ``detail``.
    """
    row, states = Row(stored.id, stored.code), (stored.state, target)
    advance_row(conn, LIFE, row, states, who, why, detail)
    return replace(stored, state=target)


def adjustment_for(stored: StoredOffer, asked: AdjustmentRequest) -> PriceAdjustment:
    """The adjustment asked, checked against the offer as it stands today
    (``prices.checked_adjustment``: ``AdjustmentRefused`` with every reason and its field)."""
    return checked_adjustment(
        asked,
        (stored.code, stored.state),
        stored.offer.day("fecha_aviso"),
        stored.adjustments,
        date.today(),
    )


def record_interruption(
    conn: Connection,
    stored: StoredOffer,
    who: str,
    why: str,
    adjustment: AdjustmentRequest | None = None,
) -> StoredOffer:
    """An interruption (Ley 226 art. 11), with any price adjustment, its legal basis and
    what it does to the acceptances filed before (``offers.prices``).

    The offer returned carries the adjustment: filings received from now on are evaluated
    at the adjusted price. Evaluating the earlier ones again, when the office so decides, is
    ``filing.reevaluation``'s.
    """
    adjusted = None
    if adjustment is not None:
        try:
            adjusted = adjustment_for(stored, adjustment)
        except ValueError as exc:
            raise OfferError(str(exc)) from None
    row, states = Row(stored.id, stored.code), (stored.state, stored.state)
    detail = adjusted.detail() if adjusted else None
    record_event(conn, LIFE, row, "interrupcion", states, who, why, detail)
    if adjusted is None:
        return stored
    return replace(stored, adjustments=(*stored.adjustments, adjusted))


def events(conn: Connection, stored: StoredOffer) -> list[dict[str, Any]]:
    rows = conn.execute(
        select(offer_events)
        .where(offer_events.c.oferta_id == stored.id)
        .order_by(offer_events.c.id)
    ).mappings()
    return [dict(r) for r in rows]


def declare_void(conn: Connection, stored: StoredOffer, who: str, why: str) -> StoredOffer:
    """Declare the Primera Etapa void (desierta), open or closed, with its cause (GEB art.
    3.1); nothing is adjudicated and all its shares pass to the next stage."""
    rule = stored.program.void_first_stage
    if rule is None:
        raise OfferError(
            f"{stored.program.called} no trae, en el texto disponible del decreto, "
            "la regla para declarar desierta la Primera Etapa."
        )
    if stored.state not in ("abierta", "cerrada"):
        raise OfferError(
            f"La oferta '{stored.code}' está {stored.state}: solo se declara desierta abierta o "
            "cerrada, antes de adjudicar."
        )
    cite = stored.program.cite(rule.citation)
    row, states = Row(stored.id, stored.code), (stored.state, "desierta")
    move(conn, LIFE, row, states, who, f"{why} ({cite})", "desierta")
    return replace(stored, state="desierta")
