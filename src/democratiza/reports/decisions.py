"""Decision files (CSV, and JSON or Parquet when asked) and the summary of an evaluation.

The CSV a person opens carries, by default, one sentence per row (the explanation of the
decision) and each limit's number in its own column; each limit's own sentence
(``limites_detalle``, several hundred bytes a row) only when asked (``Outputs.detail``).
Files are written to temporary names and renamed at the end, so a failure never leaves half
a file; they are explained and written in chunks, so a million rows need little memory.
"""

from __future__ import annotations

import json
import mmap
import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import numpy as np
import polars as pl

from democratiza.rules.engine import DECISIONS, IDENTITY_COLUMNS, CompiledProgram, limit_column
from democratiza.rules.explain import Explainer
from democratiza.tables.cells import csv_style, write_csv

if TYPE_CHECKING:  # imported by the writer of a Parquet file only (``--parquet``)
    import pyarrow.parquet as pq

CHUNK = 100_000
NEWLINE, COMMA = ord("\n"), ord(",")
# Bytes of the JSON mapped at a time to make its records an array (a multiple of the
# granularity of a map's offset).
ARRAY_STEP = 1 << 25


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


def explain_chunk(
    explainer: Explainer, results: pl.DataFrame, frame: pl.DataFrame, detail: bool = True
) -> pl.DataFrame:
    """One chunk of results with its Spanish text columns, ready to export: every column
    of the detailed files, or (not ``detail``) those of the CSV a person opens."""
    compiled = explainer.compiled
    rules = {r.id: f"{r.name} ({explainer.cite_rule(r)})" for r in compiled.offer.program.limits}
    cited = pl.col("regla_limitante").replace_strict(rules, default=None, return_dtype=pl.String)
    return pl.concat(
        [
            results.with_columns(
                cited.alias("regla_limitante_cita"),
                *([cause_codes(compiled, results["causas"])] if detail else []),
            ),
            explainer.columns(results, frame, detail),
        ],
        how="horizontal",
    ).select((export_columns if detail else short_columns)(compiled))


def cause_codes(compiled: CompiledProgram, causes: pl.Series) -> pl.Series:
    """``causas_codigos``: the codes of each row's causes (the bits of ``causas``), in the
    checks' order, joined by ';'; '' for a row with none.

    Written once for each distinct value of the bits and looked up. Why: a piece of a
    hundred thousand rows has a few dozen such values, and a condition per check on every
    row (over thirty in a program) cost more than the rest of the short file's columns.
    """
    checks = compiled.checks
    texts = {
        bits: ";".join(c.code for i, c in enumerate(checks) if bits >> i & 1)
        for bits in causes.unique().to_list()
    }
    found = causes.replace_strict(texts, return_dtype=pl.String)
    return found.cast(pl.String).alias("causas_codigos")  # no rows: Polars keeps the bits' type


def export_columns(compiled: CompiledProgram) -> list[str]:
    """Every column of the detailed files (the JSON, the Parquet, ``--detalle``'s CSV)."""
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


def short_columns(compiled: CompiledProgram) -> list[str]:
    """The columns of the CSV a person opens: the acceptance's identification, the decision,
    the permitted quantity, the binding rule in words with its article, the one-sentence
    explanation (and, for a rejection, its causes: "Rechazada: 2 causas." says nothing
    alone), and each limit's number in its own column. Codes and per-limit sentences are in
    the detailed files."""
    return [
        *IDENTITY_COLUMNS,
        "cantidad",
        "cantidad_permitida",
        "decision",
        "regla_limitante_cita",
        "explicacion",
        "causas_detalle",
        *(limit_column(r) for r in compiled.offer.program.limits),
    ]


@dataclass(frozen=True)
class Outputs:
    """Which decision files an evaluation writes: the CSV always (with each limit's sentence
    if ``detail``), the JSON if ``json``, a Parquet file (every column, for machines) if
    ``parquet``. The default is every file a broker's batch gets: the detailed CSV and JSON.
    ``separator``: the CSV's, ',' or ';' (``tables.cells.csv_style``)."""

    detail: bool = True
    json: bool = True
    parquet: bool = False
    separator: str = ","


class DecisionFiles:
    """The decision files (``Outputs``) of one evaluation, written as its pieces come.

    Used as ``with DecisionFiles(...) as files: files.add(results, frame)`` once per piece:
    each piece is explained and written at once, so a file larger than memory needs only a
    piece of it at a time. The files are written under temporary names and renamed when the
    ``with`` block ends without an error; on an error nothing is left, not even half a file.
    The bytes do not depend on how the rows were cut into pieces.
    """

    def __init__(
        self, compiled: CompiledProgram, out_dir: Path, stem: str, outputs: Outputs = Outputs()
    ) -> None:
        self.compiled = compiled
        self.out_dir = out_dir
        self.outputs = outputs
        suffixes = [".csv", *([".json"] if outputs.json else [])]
        self.paths = [out_dir / f"{stem}{suffix}" for suffix in suffixes]
        if outputs.parquet:
            self.paths.append(out_dir / f"{stem}.parquet")
        self._tmp = [p.with_name(f".{p.name}.tmp") for p in self.paths]
        self._explainer = Explainer(compiled)
        # Every column only for a file that shows them all (``export_columns``).
        self._detail = outputs.detail or outputs.json or outputs.parquet
        self._csv_columns = (export_columns if outputs.detail else short_columns)(compiled)
        self._written = 0
        # The pieces are written by a thread of their own while the next one is explained
        # (Polars lets go of the interpreter while it writes): one piece at a time, in order.
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="decisiones")
        self._pending: Future[None] | None = None
        self._files: list[BinaryIO] = []
        self._parquet: pq.ParquetWriter | None = None
        self._records = 0  # where the JSON's records begin, after its header
        self._made_dir = False

    def __enter__(self) -> DecisionFiles:
        return self

    def _open(self) -> None:
        """The folder and the temporary files, when the first rows come (a file refused
        before any row is written leaves no folder behind)."""
        self._made_dir = not self.out_dir.exists()
        self.out_dir.mkdir(parents=True, exist_ok=True)
        # The JSON is opened to be read too: its records are made an array in place at the end.
        self._files = [
            p.open("w+b" if p.name.endswith(".json.tmp") else "wb")
            for p in self._tmp
            if not p.name.endswith(".parquet.tmp")
        ]
        if not self.outputs.json:
            return
        program = self.compiled.offer.program
        header = {
            "programa": program.id,
            "version_programa": program.version,
            "parametros_oferta": {k: str(v) for k, v in sorted(self.compiled.offer.values.items())},
            "nota": "Montos en centavos en los parámetros de dinero; límites en acciones.",
        }
        self._files[1].write(
            json.dumps(header, ensure_ascii=False)[:-1].encode() + b', "decisiones": ['
        )
        self._files[1].flush()  # before Polars writes the records after it
        self._records = self._files[1].tell()

    def add(
        self,
        results: pl.DataFrame,
        frame: pl.DataFrame,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        """Explain and write these rows (``results`` of ``frame``), in pieces of ``CHUNK``."""
        if not self._files:
            self._open()
        for start in range(0, results.height, CHUNK):
            part = explain_chunk(
                self._explainer,
                results.slice(start, CHUNK),
                frame.slice(start, CHUNK),
                self._detail,
            )
            self._settle()  # the piece before, written
            self._pending = self._writer.submit(self._write, part, self._written == 0)
            self._written += part.height
            if progress:
                progress(part.height)

    def _settle(self) -> None:
        """Wait for the piece being written; its error, if any, is raised here."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()

    def _write(self, part: pl.DataFrame, first: bool) -> None:
        """One explained piece into every file asked for (``first``: the file's first)."""
        style = csv_style(self.outputs.separator)
        write_csv(part.select(self._csv_columns), self._files[0], include_header=first, **style)
        if self.outputs.json:
            _write_records(part, self._files[1])
        if self.outputs.parquet:
            import pyarrow.parquet as pq

            table = part.to_arrow()
            if self._parquet is None:
                self._parquet = pq.ParquetWriter(self._tmp[-1], table.schema)
            self._parquet.write_table(table)

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        failed: BaseException | None = None
        try:
            self._settle()  # nothing is closed while a piece is being written
        except BaseException as exc:  # raised below, after the cleanup
            failed = exc
        finally:
            self._writer.shutdown()
        if failed is not None and kind is None:
            kind = type(failed)
        if kind is None and not self._files:
            self._open()  # no rows at all: the files still say so
        try:
            if self._files and self.outputs.json and kind is None:
                _close_array(self._files[1], self._records)
            for fh in self._files:
                fh.close()
            if self._parquet is not None:
                self._parquet.close()
            elif kind is None and self.outputs.parquet:  # no rows: the columns, empty
                import pyarrow.parquet as pq

                columns = export_columns(self.compiled)
                pq.write_table(
                    pl.DataFrame(schema=dict.fromkeys(columns)).to_arrow(), self._tmp[-1]
                )
            if kind is None:
                for tmp, path in zip(self._tmp, self.paths, strict=True):
                    os.replace(tmp, path)
        finally:
            for tmp in self._tmp:
                tmp.unlink(missing_ok=True)
            if kind is not None and self._made_dir and not any(self.out_dir.iterdir()):
                self.out_dir.rmdir()
        if failed is not None and error is None:
            raise failed


def write_decisions(
    compiled: CompiledProgram,
    results: pl.DataFrame,
    frame: pl.DataFrame,
    out_dir: Path,
    stem: str,
    progress: Callable[[int], None] | None = None,
    outputs: Outputs = Outputs(),
) -> list[Path]:
    """Decisions as ``outputs`` says (by default the detailed CSV and the JSON), explained
    and written chunk by chunk (bounded memory)."""
    with DecisionFiles(compiled, out_dir, stem, outputs) as files:
        files.add(results, frame, progress)
    return files.paths


def _write_records(part: pl.DataFrame, target: BinaryIO) -> None:
    """The rows as JSON objects, one a line (NDJSON), after what ``target`` holds.

    Each object is the bytes ``write_json`` gives for the row; ``_close_array`` turns the
    lines into the inside of the array. Why lines: Polars writes NDJSON several times faster
    than ``write_json``, straight into the file, with no copy of the text in between.
    """
    part.with_columns(pl.col("fecha_radicacion").dt.to_string()).write_ndjson(target)


def _close_array(target: BinaryIO, start: int) -> None:
    """The records written from ``start`` on (``_write_records``) made the inside of the
    JSON array, and the array and the document closed: each newline between two records
    becomes the comma that separates them, in place, and the last one the array's end.

    A JSON string never holds a raw newline (Polars writes it ``\\n``), so every newline
    after ``start`` ends a record.
    """
    target.flush()
    end = target.seek(0, os.SEEK_END)
    if end > start:
        # A window of the file mapped at a time, so that the mapped pages (which count as the
        # process's memory) stay a window's, however large the file.
        first = start - start % mmap.ALLOCATIONGRANULARITY  # where a map may begin
        for base in range(first, end - 1, ARRAY_STEP):
            length = min(ARRAY_STEP, end - base)
            with mmap.mmap(target.fileno(), length, offset=base) as mapped:
                window = np.frombuffer(mapped, dtype=np.uint8)
                piece = window[max(start - base, 0) : min(end - 1 - base, length)]
                piece[piece == NEWLINE] = COMMA
                del window, piece  # the map cannot close while a view of it lives
        target.seek(end - 1)  # the last record's newline
    target.write(b"]}\n")
