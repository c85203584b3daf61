"""Decision files (CSV and JSON) and the summary of an evaluation.

Files are written to temporary names and renamed at the end, so a failure never leaves half
a file; they are explained and written in chunks, so a million rows need little memory.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from democratiza.rules.engine import DECISIONS, IDENTITY_COLUMNS, CompiledProgram, limit_column
from democratiza.rules.explain import Explainer
from democratiza.tables.cells import write_csv

CHUNK = 100_000


@dataclass(frozen=True)
class Summary:
    by_decision: pl.DataFrame
    by_category: pl.DataFrame
    by_binding_limit: pl.DataFrame


def summarize(results: pl.DataFrame) -> Summary:
    by_decision = (
        results.group_by("decision")
        .agg(
            pl.len().alias("aceptaciones"),
            pl.col("cantidad").sum().alias("acciones_solicitadas"),
            pl.col("cantidad_permitida").sum().alias("acciones_permitidas"),
        )
        .sort("decision")
    )
    by_category = (
        results.group_by("categoria")
        .agg((pl.col("decision") == d).sum().alias(d) for d in DECISIONS.categories)
        .sort("categoria")
    )
    by_binding = (
        results.filter(pl.col("regla_limitante").is_not_null())
        .group_by("regla_limitante")
        .agg(pl.len().alias("aceptaciones"))
        .sort(["aceptaciones", "regla_limitante"], descending=[True, False])
    )
    return Summary(by_decision, by_category, by_binding)


def explain_chunk(explainer: Explainer, results: pl.DataFrame, frame: pl.DataFrame) -> pl.DataFrame:
    """One chunk of results with its Spanish text columns, ready to export."""
    compiled = explainer.compiled
    rules = {r.id: f"{r.name} ({explainer.cite_rule(r)})" for r in compiled.offer.program.limits}
    codes = [
        pl.when((pl.col("causas") // (1 << i)) % 2 == 1).then(pl.lit(c.code))
        for i, c in enumerate(compiled.checks)
    ]
    return pl.concat(
        [
            results.with_columns(
                pl.col("regla_limitante")
                .replace_strict(rules, default=None, return_dtype=pl.String)
                .alias("regla_limitante_cita"),
                pl.concat_str(codes, separator=";", ignore_nulls=True).alias("causas_codigos"),
            ),
            explainer.columns(results, frame),
        ],
        how="horizontal",
    ).select(export_columns(compiled))


def export_columns(compiled: CompiledProgram) -> list[str]:
    return [
        *IDENTITY_COLUMNS,
        "cantidad",
        "cantidad_permitida",
        "decision",
        "regla_limitante",
        "regla_limitante_cita",
        "causas_codigos",
        "explicacion",
        "causas_detalle",
        "limites_detalle",
        *(limit_column(r) for r in compiled.offer.program.limits),
    ]


def write_decisions(
    compiled: CompiledProgram,
    results: pl.DataFrame,
    frame: pl.DataFrame,
    out_dir: Path,
    stem: str,
    progress: Callable[[int], None] | None = None,
) -> list[Path]:
    """Decisions as CSV and JSON, explained and written chunk by chunk (bounded memory)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path, json_path = out_dir / f"{stem}.csv", out_dir / f"{stem}.json"
    csv_tmp, json_tmp = (p.with_name(f".{p.name}.tmp") for p in (csv_path, json_path))
    program = compiled.offer.program
    header = {
        "programa": program.id,
        "version_programa": program.version,
        "parametros_oferta": {k: str(v) for k, v in sorted(compiled.offer.values.items())},
        "nota": "Montos en centavos en los parámetros de dinero; límites en acciones.",
    }
    explainer = Explainer(compiled)
    try:
        with csv_tmp.open("wb") as csv_fh, json_tmp.open("wb") as json_fh:
            json_fh.write(
                json.dumps(header, ensure_ascii=False)[:-1].encode() + b', "decisiones": ['
            )
            for n, start in enumerate(range(0, results.height, CHUNK)):
                part = explain_chunk(
                    explainer, results.slice(start, CHUNK), frame.slice(start, CHUNK)
                )
                write_csv(part, csv_fh, include_header=n == 0)
                json_fh.write((b"," if n else b"") + _json_records(part))
                if progress:
                    progress(part.height)
            json_fh.write(b"]}\n")
        os.replace(csv_tmp, csv_path)
        os.replace(json_tmp, json_path)
    finally:
        csv_tmp.unlink(missing_ok=True)
        json_tmp.unlink(missing_ok=True)
    return [csv_path, json_path]


def _json_records(part: pl.DataFrame) -> bytes:
    """The rows as JSON objects separated by commas (the inside of a JSON array).

    Written as NDJSON and joined: the same bytes ``write_json`` gives inside its brackets,
    several times faster. A JSON string never holds a raw newline, so every newline ends a
    record.
    """
    rows = io.BytesIO()
    part.with_columns(pl.col("fecha_radicacion").dt.to_string()).write_ndjson(rows)
    return rows.getvalue()[:-1].replace(b"\n", b",")


def iter_chunks(frame: pl.DataFrame, size: int = CHUNK) -> Iterable[pl.DataFrame]:
    for start in range(0, frame.height, size):
        yield frame.slice(start, size)
