"""Decision files (CSV and JSON) and the summary of an evaluation.

Files are written to a temporary name and renamed, so a failure never leaves half a file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from democratiza.rules.engine import DECISIONS, IDENTITY_COLUMNS, CompiledProgram, limit_column
from democratiza.rules.explain import Explainer, cite

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


def explained(
    compiled: CompiledProgram,
    results: pl.DataFrame,
    frame: pl.DataFrame,
    progress: Callable[[int], None] | None = None,
) -> pl.DataFrame:
    """Results with Spanish text columns: causes, limits and the decision's summary."""
    explainer = Explainer(compiled)
    summaries: list[str] = []
    causes: list[str] = []
    limits: list[str] = []
    for start in range(0, results.height, CHUNK):
        part = explainer.explain_all(results.slice(start, CHUNK), frame.slice(start, CHUNK))
        for e in part:
            summaries.append(e.summary)
            causes.append(" | ".join(e.causes))
            limits.append(" | ".join(e.limits))
        if progress:
            progress(min(CHUNK, results.height - start))
    rules = {
        r.id: f"{r.name} ({cite(compiled.offer.program, r.citation)})"
        for r in compiled.offer.program.limits
    }
    return results.with_columns(
        pl.Series("explicacion", summaries),
        pl.Series("causas_detalle", causes),
        pl.Series("limites_detalle", limits),
        pl.col("regla_limitante").replace_strict(rules, default=None).alias("regla_limitante_cita"),
        pl.Series(
            "causas_codigos",
            [
                ";".join(c.code for i, c in enumerate(compiled.checks) if bits >> i & 1)
                for bits in results["causas"]
            ],
        ),
    )


def _atomic_write(path: Path, write: Callable[[Path], None]) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


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
    compiled: CompiledProgram, table: pl.DataFrame, out_dir: Path, stem: str
) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    table = table.select(export_columns(compiled))
    csv_path, json_path = out_dir / f"{stem}.csv", out_dir / f"{stem}.json"
    _atomic_write(csv_path, lambda p: table.write_csv(p))
    program = compiled.offer.program
    header = {
        "programa": program.id,
        "version_programa": program.version,
        "parametros_oferta": {k: str(v) for k, v in sorted(compiled.offer.values.items())},
        "nota": "Montos en centavos en los parámetros de dinero; límites en acciones.",
    }

    def write_json(p: Path) -> None:
        with p.open("w", encoding="utf-8") as fh:
            fh.write(json.dumps(header, ensure_ascii=False)[:-1] + ', "decisiones": ')
            table.with_columns(pl.col("fecha_radicacion").dt.to_string()).write_json(fh)
            fh.write("}\n")

    _atomic_write(json_path, write_json)
    return [csv_path, json_path]


def iter_chunks(frame: pl.DataFrame, size: int = CHUNK) -> Iterable[pl.DataFrame]:
    for start in range(0, frame.height, size):
        yield frame.slice(start, size)
