"""Verify a public package from the package alone: recompute the allocation, compare bytes.

``democratiza verificar PAQUETE`` (a folder, or a ZIP of one). Every file must match its
manifest; then the allocation is computed again from ``parametros.json`` and the permitted
quantities (or the book) of ``adjudicacion.csv``, by the same exact arithmetic the
adjudication used (``allocation``, ``stages.clearing``), and the table it gives is written by
the same writer and compared byte for byte with the published one. A difference names the
first row that differs and what each side says.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from numpy.typing import NDArray

from democratiza.adjudication.adjudicate import AdjudicationError, AllocationResult, allocate
from democratiza.adjudication.joint import within_joint_caps
from democratiza.stages.clearing import ClearingError, clear
from democratiza.verification.package import (
    AWARDS,
    FIRST_STAGE,
    MANIFEST,
    PARAMETERS,
    table_bytes,
)
from democratiza.words import count


@dataclass(frozen=True)
class Verdict:
    """Whether the package is what its allocation gives; if not, why, for a person."""

    matches: bool
    message: str
    manifest_digest: str | None = None


def _files(path: Path) -> dict[str, bytes]:
    if path.is_dir():
        return {p.name: p.read_bytes() for p in path.iterdir() if p.is_file()}
    with zipfile.ZipFile(path) as archive:
        return {Path(n).name: archive.read(n) for n in archive.namelist() if not n.endswith("/")}


def _manifest_problem(files: dict[str, bytes]) -> str | None:
    if MANIFEST not in files:
        return f"falta {MANIFEST}"
    listed: dict[str, str] = json.loads(files[MANIFEST])["archivos"]
    for name, digest in sorted(listed.items()):
        if name not in files:
            return f"falta {name}, que el manifiesto lista"
        if hashlib.sha256(files[name]).hexdigest() != digest:
            return f"{name} no es el archivo que el manifiesto describe (otra huella SHA-256)"
    for name in (PARAMETERS, AWARDS):
        if name not in listed:
            return f"el manifiesto no lista {name}"
    return None


def recomputed(parameters: dict[str, Any], table: pl.DataFrame) -> pl.DataFrame:
    """The package's table with each award computed again from the package alone."""
    if parameters["tipo"] == FIRST_STAGE:
        demand = table["cantidad_permitida"].to_numpy().astype(np.int64)

        def share(wanted: NDArray[np.int64], supply: int) -> AllocationResult:
            return allocate(
                wanted,
                supply,
                parameters["metodo"],
                parameters["residuo"],
                int(parameters["lote_acciones"]),
                parameters["porcentaje_lineal"],
            )

        caps = [
            (cap["categorias"], int(cap["tope_acciones"]))
            for cap in parameters.get("topes_conjuntos", [])
        ]
        if caps:  # the joint caps first, as the adjudication applies them
            categories = table["categoria"].cast(pl.String).to_list()
            demand, _ = within_joint_caps(demand, categories, caps, share)
        result = share(demand, int(parameters["acciones_ofrecidas"]))
        return table.with_columns(pl.Series("adjudicada", result.awards))
    valid = table.filter(pl.col("valida"))
    cleared = clear(
        valid["precio_centavos"].to_numpy().astype(np.int64),
        valid["cantidad"].to_numpy().astype(np.int64),
        np.arange(valid.height, dtype=np.int64),  # the table is in the order of receipt
        int(parameters["acciones_ofrecidas"]),
        int(parameters["precio_minimo_centavos"]),
        int(parameters["lote"]),
        parameters["mecanismo"],
        parameters["precio_corte_centavos"],
    )
    assigned = pl.Series("asignada", cleared.allocations)
    positions = table.with_row_index("_i").filter(pl.col("valida"))["_i"]
    full = pl.Series("asignada", np.zeros(table.height, dtype=np.int64)).scatter(
        positions, assigned
    )
    return table.with_columns(full)


def _first_difference(published: pl.DataFrame, computed: pl.DataFrame) -> str:
    award = "adjudicada" if "adjudicada" in published.columns else "asignada"
    if published.height != computed.height or published.columns != computed.columns:
        return "la tabla no tiene las filas o las columnas que la adjudicación da"
    differs = (published[award] != computed[award]).arg_true()
    if differs.len():
        i = int(differs[0])
        return (
            f"fila {i + 2} (orden {published['orden'][i]}, seudónimo "
            f"{published['seudonimo'][i]}): el paquete dice {published[award][i]} acciones y la "
            f"adjudicación da {computed[award][i]}"
        )
    return "la tabla publicada difiere en su forma de la que la adjudicación da (mismos números)"


def verify(path: Path) -> Verdict:
    """Verify the package at ``path`` (a folder or a ZIP)."""
    try:
        files = _files(path)
    except (OSError, zipfile.BadZipFile) as exc:
        return Verdict(False, f"No se pudo leer el paquete {path}: {exc}")
    problem = _manifest_problem(files)
    if problem is not None:
        return Verdict(False, f"El paquete no coincide con su manifiesto: {problem}.")
    manifest = hashlib.sha256(files[MANIFEST]).hexdigest()
    parameters = json.loads(files[PARAMETERS])
    text = {"seudonimo": pl.String(), "categoria": pl.String()}
    published = pl.read_csv(files[AWARDS], schema_overrides=text)
    try:
        computed = recomputed(parameters, published)
    except (AdjudicationError, ClearingError, KeyError, ValueError) as exc:
        return Verdict(False, f"No se puede recalcular la adjudicación: {exc}", manifest)
    if table_bytes(computed) == files[AWARDS]:
        rows = count(published.height, "fila", "filas")
        return Verdict(
            True,
            f"El paquete coincide: la adjudicación recalculada de sus {rows} da, byte por "
            f"byte, el {AWARDS} publicado.",
            manifest,
        )
    return Verdict(
        False, f"El paquete no coincide: {_first_difference(published, computed)}.", manifest
    )


def zipped(files: dict[str, bytes]) -> bytes:
    """A package's files as a ZIP with fixed dates (the same package, the same bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, files[name])
    return buffer.getvalue()
