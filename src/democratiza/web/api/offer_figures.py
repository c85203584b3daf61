"""An offer's figures (intake by day, category, broker, limit and decision; demand; awards)
for its page and the API, without counting a million acceptances on every request.

Why a cache and how it stays true: the figures change only when an acceptance is filed,
corrected or withdrawn (each a new row, so the offer's highest acceptance id moves), when
the offer changes state or is interrupted (an event), or when it is adjudicated. Those
make the cache's key, read in one query through indexes. While the key is unchanged the
figures are served as computed. When it changes, figures that were cheap to compute (under
``CHEAP``) are computed again at once, so a small offer's page is always exact; figures that
were expensive are served as they were, with the time they were computed, while one
background thread computes them again: during the window of a large offer, a clerk's page
answers at once with figures a few seconds old (the page says when they were computed),
never a page that takes ten seconds. A closed offer's figures never change: computed once.
Only the first request for a large offer after the service starts waits for them.

On PostgreSQL every process serves the same figures: the last count of any process is kept
in the database with its key (``shared_figures``), and a process whose figures in memory
are not for the offer's key now reads that row before counting anything; so a process
just started does not count a large offer again either. One background recount of an
offer runs at a time among every process on the database (an advisory lock,
``storage.advisory``): a process that finds another one recounting serves the figures as
they were, and at its next request reads the other's count, so three processes never count
a million acceptances three times at once.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import sys
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import ColumnElement, Connection, Engine, case, func, select

from democratiza.adjudication.figures import (
    FilingFigures,
    awarded_in_database,
    filing_figures,
)
from democratiza.offers.lifecycle import StoredOffer, load_offer
from democratiza.storage import advisory
from democratiza.storage.schema import acceptances, adjudications, offer_events
from democratiza.web.api import shared_figures
from democratiza.words import WITHDRAWN


def decision_in_sql(decision: ColumnElement[Any], state: ColumnElement[Any]) -> ColumnElement[Any]:
    """``words.decision_of`` as the database counts it: a withdrawn acceptance is
    "retirada", any other keeps its decision (``tests/test_words_withdrawn.py`` holds the two
    to the same answers)."""
    return case((state == WITHDRAWN, WITHDRAWN), else_=decision)


CHEAP = 0.1  # seconds: figures that took less are recomputed at once on every change

Key = tuple[object, ...]
# The code that counts the figures (its text): part of the key the figures are kept under.
CODE = hashlib.sha256(
    b"".join(
        Path(inspect.getfile(module)).read_bytes()
        for module in (sys.modules[__name__], sys.modules[filing_figures.__module__])
    )
).hexdigest()[:16]


@dataclass(frozen=True)
class OfferFigures:
    intake: dict[str, list[dict[str, Any]]]  # por_dia, por_categoria, … (``intake``)
    filing: FilingFigures  # received, withdrawn, decisions at filing (``adjudication.figures``)
    awarded: tuple[int, int] | None  # shares awarded and new shareholders, once adjudicated
    computed_at: datetime
    seconds: float  # what computing them took

    @property
    def demand(self) -> dict[str, int]:
        """The current acceptances not withdrawn: how many, people, asked, admissible."""
        f = self.filing
        return {
            "aceptaciones": f.vigentes,
            "solicitadas": f.solicitadas,
            "admisibles": f.admisibles,
            "rechazadas": f.rechazadas,
            "personas": f.personas,
        }


def intake(conn: Connection, stored: StoredOffer) -> dict[str, list[dict[str, Any]]]:
    """Current acceptances by day, category, broker and binding limit; and by decision."""
    a = acceptances.c
    base = (a.oferta_id == stored.id) & a.vigente
    day = func.date(a.fecha_radicacion)
    figures: dict[str, list[dict[str, Any]]] = {}
    for key, column in [
        ("por_dia", day),
        ("por_categoria", a.categoria),
        ("por_comisionista", a.comisionista),
        ("por_limite", a.regla_limitante),
    ]:
        rows = conn.execute(
            select(
                column.label("clave"),
                func.count().label("aceptaciones"),
                func.coalesce(func.sum(a.cantidad), 0).label("solicitadas"),
                func.coalesce(func.sum(a.cantidad_permitida), 0).label("permitidas"),
            )
            # The binding limit of a withdrawn acceptance bound nothing: left out, as in
            # the headline's limits (``adjudication.figures``).
            .where(base & (a.estado != WITHDRAWN) if key == "por_limite" else base)
            .group_by(column)
            .order_by(column)
        ).all()
        figures[key] = [
            {
                "clave": str(r.clave) if r.clave is not None else "ninguno",
                "aceptaciones": int(r.aceptaciones),
                "solicitadas": int(r.solicitadas),
                "permitidas": int(r.permitidas),
            }
            for r in rows
        ]
    # A withdrawn acceptance is stored as rejected; here it is counted as withdrawn, as in
    # ``adjudication.figures`` (the same count as the headline's).
    decision = decision_in_sql(a.decision, a.estado)
    decisions = conn.execute(
        select(decision, func.count()).where(base).group_by(decision).order_by(decision)
    ).all()
    figures["por_decision"] = [
        {"clave": str(d), "aceptaciones": int(n), "solicitadas": 0, "permitidas": 0}
        for d, n in decisions
    ]
    return figures


def _adjudication(conn: Connection, stored: StoredOffer) -> int | None:
    found = conn.execute(
        select(adjudications.c.id).where(adjudications.c.oferta_id == stored.id)
    ).scalar_one_or_none()
    return None if found is None else int(found)


def compute(conn: Connection, stored: StoredOffer) -> OfferFigures:
    start = time.perf_counter()
    found = intake(conn, stored), filing_figures(conn, stored), awarded_in_database(conn, stored)
    return OfferFigures(*found, datetime.now(), time.perf_counter() - start)


def key(conn: Connection, stored: StoredOffer) -> Key:
    """What the figures depend on, read by index without counting the acceptances: the
    offer's state, events and adjudication, then (last) its highest acceptance id."""
    last = conn.execute(
        select(func.max(acceptances.c.id)).where(acceptances.c.oferta_id == stored.id)
    ).scalar_one()
    moves = conn.execute(
        select(func.count(), func.max(offer_events.c.id)).where(
            offer_events.c.oferta_id == stored.id
        )
    ).one()
    return (stored.id, stored.state, tuple(moves), _adjudication(conn, stored), last)


@dataclass
class _Entry:
    key: str  # ``key_text``
    figures: OfferFigures
    refreshing: bool = False


def key_text(now: Key) -> str:
    """The key as kept beside the figures: the code that counts them, then the offer's key.

    Why the code: figures kept in the database by another version of the service (during an
    upgrade, or after one) may have been counted otherwise; they are then counted again.
    """
    return json.dumps([CODE, *now], default=str, separators=(",", ":"))


def only_filings_moved(kept: str, now: str) -> bool:
    """Whether only new filings separate two keys (the highest acceptance id, last)."""
    return bool(json.loads(kept)[:-1] == json.loads(now)[:-1])


class FiguresCache:
    """The figures of each offer, kept as ``offer_figures`` says: in this process's memory,
    and on PostgreSQL also in the database for every process (``shared_figures``)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._shared = advisory.shared(engine)
        self._lock = threading.Lock()
        self._entries: dict[int, _Entry] = {}

    def figures(self, conn: Connection, stored: StoredOffer) -> OfferFigures:
        now_key = key_text(key(conn, stored))
        with self._lock:
            entry = self._entries.get(stored.id)
        if entry is not None and entry.key == now_key:
            return entry.figures
        # The last count of any process, if it is not the one kept here; not while this
        # process recounts (its own count comes next, and each request would read the row).
        if self._shared and not (entry is not None and entry.refreshing):
            entry = self._adopt(conn, stored.id, entry) or entry
            if entry is not None and entry.key == now_key:
                return entry.figures
        with self._lock:
            entry = self._entries.get(stored.id)
            # Only new filings may be shown late: a state, an event or an award, at once.
            if (
                entry is not None
                and only_filings_moved(entry.key, now_key)
                and entry.figures.seconds >= CHEAP
            ):
                if not entry.refreshing:
                    entry.refreshing = True
                    threading.Thread(target=self._refresh, args=(stored.code,), daemon=True).start()
                return entry.figures
        fresh = compute(conn, stored)
        self._keep(stored.id, now_key, fresh)
        return fresh

    def _adopt(self, conn: Connection, offer_id: int, entry: _Entry | None) -> _Entry | None:
        """The figures another process kept in the database, now also kept here."""
        found = shared_figures.read(conn, offer_id, None if entry is None else entry.key)
        if found is None:
            return None
        fields = shared_figures.decode(found[1])
        if fields is None:
            return None
        with self._lock:
            previous = self._entries.get(offer_id)
            adopted = _Entry(
                found[0], OfferFigures(**fields), bool(previous and previous.refreshing)
            )
            self._entries[offer_id] = adopted
        return adopted

    def _keep(self, offer_id: int, now_key: str, fresh: OfferFigures) -> None:
        """Kept for every process first, then here: what this process serves, any other
        process asked after it finds too."""
        if self._shared:
            shared_figures.write(self._engine, offer_id, now_key, shared_figures.encode(fresh))
        with self._lock:
            self._entries[offer_id] = _Entry(now_key, fresh)

    def _refresh(self, code: str) -> None:
        try:
            with advisory.turn_if_free(self._engine, f"cifras:{code}") as taken:
                if not taken:  # another process is recounting: the next request reads its count
                    self._stop_refreshing()
                    return
                with self._engine.connect() as conn:
                    stored = load_offer(conn, code)
                    now_key = key_text(key(conn, stored))
                    fresh = compute(conn, stored)
                self._keep(stored.id, now_key, fresh)
        except Exception:  # a failed refresh leaves the last figures; the next request retries
            self._stop_refreshing()

    def _stop_refreshing(self) -> None:
        with self._lock:
            for entry in self._entries.values():
                entry.refreshing = False


def offer_figures(state: Any, conn: Connection, stored: StoredOffer) -> OfferFigures:
    """The figures through the application's cache (``state`` is ``app.state``)."""
    cache = getattr(state, "offer_figures", None)
    if cache is None:
        with _CREATING:
            cache = getattr(state, "offer_figures", None)
            if cache is None:
                cache = state.offer_figures = FiguresCache(state.engine)
    assert isinstance(cache, FiguresCache)
    return cache.figures(conn, stored)


_CREATING = threading.Lock()
