"""Files after adjudication: one per broker (CSV and XLSX), and the depository's registry.

Written from the adjudication's results in their documented order, so the same record
always gives the same bytes, CSV and XLSX alike (``render.workbook`` fixes the workbook's
dates). Text cells go through ``tables.cells``, so a name can never come out as a formula;
the CSV keeps its machine header and the XLSX has it in words (``reports.columns``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import polars as pl

from democratiza.adjudication.record import DATETIMES, RESULT_COLUMNS, Adjudication
from democratiza.labels import frame_in_words
from democratiza.money import round_centavos
from democratiza.programs.schema import Program
from democratiza.reports.columns import TITLES
from democratiza.reports.render.amounts import in_pesos, price_in_pesos
from democratiza.reports.render.workbook import write_workbook
from democratiza.tables.cells import csv_bytes, write_csv
from democratiza.words import WITHDRAWN, decision_of

# A broker's file: the adjudication's results for its own acceptants.
BROKER_COLUMNS = [c for c in RESULT_COLUMNS if c != "comisionista"]
# The coded columns of a Primera Etapa file, and the kind of word each shows in the XLSX.
WORDS_OF_COLUMNS = {"categoria": "categoria", "decision": "decision", "regla_limitante": "regla"}
REGISTRY_COLUMNS = [
    "tipo_identificacion",
    "numero_identificacion",
    "nombre",
    "comisionista",
    "acciones",
]


def slug(text: str) -> str:
    """A file-name-safe form of a broker's name or a batch id."""
    keep = [c.lower() if c.isalnum() else "-" for c in text]
    return "-".join(part for part in "".join(keep).split("-") if part)


def per_broker_files(
    frame: pl.DataFrame,
    out_dir: Path,
    prefix: str,
    sheet: str,
    datetime_format: str = DATETIMES,
    style: Mapping[str, Any] | None = None,
    words: Mapping[str, str] | None = None,
    program: Program | None = None,
    withdrawn: Collection[str] = (),
) -> list[Path]:
    """One CSV and one XLSX per broker (``comisionista``), its rows without that column;
    ``style``: the CSV's separator and decimal (``tables.cells.csv_style``). The CSV keeps
    its codes; the XLSX, for people, shows each column of ``words`` (column → kind) in the
    words of ``labels`` (the program's names where ``program`` has them), and the decision
    of each radicado in ``withdrawn`` as withdrawn (``words.decision_of``), not rejected."""
    gone = set(withdrawn)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for broker in sorted(frame["comisionista"].unique().to_list()):
        part = frame.filter(pl.col("comisionista") == broker).drop("comisionista")
        stem = out_dir / f"{prefix}-{slug(broker)}"
        write_csv(part, stem.with_suffix(".csv"), datetime_format=datetime_format, **(style or {}))
        shown = frame_in_words(decisions_read(part, gone), words or {}, program)
        write_workbook(shown, stem.with_suffix(".xlsx"), sheet, TITLES)
        paths += [stem.with_suffix(".csv"), stem.with_suffix(".xlsx")]
    return paths


def decisions_read(frame: pl.DataFrame, withdrawn: set[str]) -> pl.DataFrame:
    """``frame`` with the decision of each withdrawn radicado as ``words.decision_of``
    gives it (stored as rejected, nobody refused it); unchanged without withdrawn ones."""
    if not withdrawn or "decision" not in frame.columns:
        return frame
    states = [WITHDRAWN if r in withdrawn else None for r in frame["radicado"]]
    decisions = frame["decision"].cast(pl.String)
    shown = [decision_of(d, s) for d, s in zip(decisions, states, strict=True)]
    return frame.with_columns(pl.Series("decision", shown, dtype=pl.String))


OTHER_BROKER = "otro comisionista"


def own_rows(results: pl.DataFrame, broker: str | None) -> pl.DataFrame:
    """A broker's acceptants, other brokers' radicados in ``consumido_por`` masked.

    Why: ``consumido_por`` names the earlier acceptances of the same person that used its
    limit; a broker learns why its client got less, not where else the person filed (Ley
    1581 de 2012). Every file a broker gets (``oferta exportar``'s, the web's download)
    is masked here, the same way.
    """
    mine = results.filter(pl.col("comisionista") == broker)
    own = mine["radicado"].to_list()
    element = pl.element()
    masked = (
        pl.col("consumido_por")
        .str.split(", ")
        .list.eval(pl.when(element.is_in(own)).then(element).otherwise(pl.lit(OTHER_BROKER)))
        .list.join(", ")
    )
    return mine.with_columns(
        pl.when(pl.col("consumido_por").is_null())
        .then(None)
        .otherwise(masked)
        .alias("consumido_por")
    )


def broker_frame(done: Adjudication, terms: pl.DataFrame | None = None) -> pl.DataFrame:
    """Each acceptant with its decision and award, others' radicados masked
    (``own_rows``); with ``terms`` (``compliance.ledger.acceptance_terms``) also the broker's
    ``referencia``, the price of each share and the sum to pay, in pesos with two decimals,
    as a later stage's file."""
    frame = done.results.select("comisionista", *BROKER_COLUMNS)
    brokers = sorted(frame["comisionista"].unique().to_list())
    if brokers:
        frame = pl.concat([own_rows(frame, broker) for broker in brokers])
    if terms is None:
        return frame
    joined = frame.join(terms, on="radicado", how="left", maintain_order="left")
    to_pay = [  # exact shares × price, to the centavo only here, where money changes hands
        None if price is None or shares is None else round_centavos(Fraction(price) * shares)
        for price, shares in zip(joined["precio"], joined["adjudicada"], strict=True)
    ]
    priced = joined.with_columns(
        price_in_pesos(joined["precio"]), pl.Series("valor_a_pagar", to_pay, dtype=pl.Int64)
    )
    first = ["comisionista", "radicado", "referencia"]
    rest = [c for c in priced.columns if c not in first]
    return in_pesos(priced.select(*first, *rest), ("valor_a_pagar",))


def broker_files(
    done: Adjudication,
    out_dir: Path,
    terms: pl.DataFrame | None = None,
    style: Mapping[str, Any] | None = None,
    program: Program | None = None,
    withdrawn: Collection[str] = (),
) -> list[Path]:
    """Each broker's acceptants with their decision and award (``broker_frame``); the XLSX
    names categories, decisions and limits as ``program`` does, and the acceptances in
    ``withdrawn`` (``adjudication.figures.withdrawn``) as withdrawn by their broker."""
    frame = broker_frame(done, terms)
    return per_broker_files(
        frame,
        out_dir,
        "adjudicacion",
        "Adjudicación",
        style=style,
        words=WORDS_OF_COLUMNS,
        program=program,
        withdrawn=withdrawn,
    )


def broker_csv(
    done: Adjudication,
    broker: str | None,
    terms: pl.DataFrame | None = None,
    style: Mapping[str, Any] | None = None,
) -> bytes:
    """One broker's CSV in memory: the very bytes ``broker_files`` writes for it (and so
    ``oferta exportar``), the header alone for a broker with no acceptant."""
    own = Adjudication(done.offer_code, done.header, own_rows(done.results, broker))
    frame = broker_frame(own, terms).drop("comisionista")
    return csv_bytes(frame, datetime_format=DATETIMES, **(style or {}))


def paid_only(results: pl.DataFrame, column: str, paid: pl.DataFrame | None) -> pl.DataFrame:
    """The awards as the depository registers them: once the payment period is settled
    (``paid``: radicado → acciones_pagadas), only the shares paid for, in ``column``; before
    that, the shares awarded. The same for every stage."""
    if paid is None or not paid.height:
        return results
    return results.join(paid, on="radicado", how="left").with_columns(
        pl.col("acciones_pagadas").fill_null(0).alias(column)
    )


def registry_file(
    done: Adjudication,
    out_dir: Path,
    paid: pl.DataFrame | None = None,
    style: Mapping[str, Any] | None = None,
) -> Path:
    """For the depository: one line per awardee and broker, shares summed.

    Once the payment period is settled only paid shares are registered (``paid``: radicado →
    acciones_pagadas); before that, the shares awarded.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    results = paid_only(done.results, "adjudicada", paid)
    registry = (
        results.filter(pl.col("adjudicada") > 0)
        .group_by("tipo_identificacion", "numero_identificacion", "nombre", "comisionista")
        .agg(pl.col("adjudicada").sum().alias("acciones"))
        .sort("tipo_identificacion", "numero_identificacion", "comisionista")
        .select(REGISTRY_COLUMNS)
    )
    path = out_dir / "registro-adjudicatarios.csv"
    write_csv(registry, path, **(style or {}))
    return path
