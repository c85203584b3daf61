"""Files to download after the adjudication, made by the existing ``reports`` modules.

Why: the files a broker, the office or an auditor downloads must be the very ones
``democratiza oferta exportar`` writes, byte for byte; so they come from the stored record
(``stored_adjudication`` recomputes it and checks its hash) and the same writers.
A broker's file holds its own acceptants only, other brokers' radicados in
``consumido_por`` masked as "otro comisionista" (``reports.exports.own_rows``), exactly as
``oferta exportar`` writes it for the office to hand over.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import polars as pl
from sqlalchemy import Engine

from democratiza.adjudication.record import (
    DATETIMES,
    Adjudication,
    acceptance_prices,
    stored_adjudication,
)
from democratiza.compliance.holdings import paid_shares
from democratiza.compliance.ledger import acceptance_terms
from democratiza.offers.lifecycle import OfferError, load_offer
from democratiza.reports import exports
from democratiza.reports.exports import own_rows, registry_file, slug
from democratiza.tables.cells import csv_bytes
from democratiza.web.errors import Conflict
from democratiza.web.security.auth import BROKER, Principal
from democratiza.web.server.scratch import scratch_folder


def adjudication(engine: Engine, code: str) -> Adjudication:
    try:
        return stored_adjudication(engine, code)
    except OfferError as exc:
        raise Conflict(str(exc)) from None


def visible_results(engine: Engine, code: str, who: Principal) -> pl.DataFrame:
    """The adjudication's rows a principal may see: a broker its own acceptants only."""
    results = adjudication(engine, code).results
    return own_rows(results, who.broker) if who.role == BROKER else results


def _read_and_remove(path: Path, folder: Path) -> bytes:
    try:
        return path.read_bytes()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def broker_csv(
    engine: Engine, code: str, who: Principal, style: dict[str, Any] | None = None
) -> tuple[str, bytes]:
    """A broker's adjudication file (as ``oferta exportar`` writes it, with its
    ``--separador`` as ``style``); all rows for others. Built in memory."""
    style = style or {}
    done = adjudication(engine, code)
    if who.role == BROKER:
        with engine.connect() as conn:
            terms = acceptance_terms(conn, load_offer(conn, code))
        name = f"adjudicacion-{slug(who.broker or '')}.csv"
        return name, exports.broker_csv(done, who.broker, terms, style)
    body = csv_bytes(done.results, datetime_format=DATETIMES, **style)
    return f"adjudicacion-{slug(code)}.csv", body


def registry_csv(engine: Engine, code: str, style: dict[str, Any] | None = None) -> bytes:
    done = adjudication(engine, code)
    with engine.connect() as conn:
        paid = paid_shares(conn, load_offer(conn, code))
    folder = scratch_folder()
    return _read_and_remove(registry_file(done, folder, paid, style or {}), folder)


def report(engine: Engine, code: str, kind: str) -> bytes:
    """The adjudication report, HTML or PDF, as ``oferta exportar`` draws it."""
    from democratiza.adjudication.figures import withdrawn
    from democratiza.reports.adjudication_figures import build_figures, report_input
    from democratiza.reports.adjudication_report import render_html, render_pdf

    done = adjudication(engine, code)
    with engine.connect() as conn:
        stored = load_offer(conn, code)
        prices = acceptance_prices(conn, stored)
        gone = withdrawn(conn, stored)
    inp = report_input(stored, done, prices, gone)
    figures = build_figures(inp)
    if kind == "html":
        return render_html(inp, figures).encode()
    folder = scratch_folder()
    path = folder / "informe-adjudicacion.pdf"
    render_pdf(inp, figures, path)
    return _read_and_remove(path, folder)
