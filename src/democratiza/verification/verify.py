"""Verify a public package from the package alone: recompute the allocation, compare bytes.

``democratiza verificar PAQUETE`` (a folder, or a ZIP of one). Every file must match its
manifest; then the allocation is computed again from ``parametros.json`` and the permitted
quantities (or the book) of ``adjudicacion.csv``, by the same exact arithmetic the
adjudication used (``allocation``, ``stages.clearing``), and the table it gives is written by
the same writer and compared byte for byte with the published one (``recompute``). A
difference names the first row that differs and what each side says. A package that cannot
be read or recomputed (``archive`` bounds what a ZIP may hold) gets its reason in words,
never an exception: the command and the public page ``/verificar`` say the same.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path

import polars as pl

from democratiza.adjudication.adjudicate import AdjudicationError
from democratiza.money import group
from democratiza.stages.clearing import ClearingError
from democratiza.storage.audit import Anchor
from democratiza.verification.archive import (
    LOCAL,
    UPLOADED,
    Unreadable,
    path_files,
    zip_bytes_problem,
    zip_files,
)
from democratiza.verification.chain_head import HeadUnreadable, package_head
from democratiza.verification.package import (
    AWARDS,
    MANIFEST,
    PARAMETERS,
    table_bytes,
)
from democratiza.verification.recompute import UNFIT, first_difference, needs_problem, recomputed


@dataclass(frozen=True)
class Verdict:
    """Whether the package is what its allocation gives; if not, why, for a person."""

    matches: bool
    message: str
    manifest_digest: str | None = None
    unread: bool = False  # the package could not even be read (so nothing was compared)
    head: Anchor | None = None  # the audit chain's head its manifest names, if any


def _unread(name: object, reason: str) -> Verdict:
    return Verdict(False, f"No se pudo leer el paquete {name}: {reason}.", unread=True)


def _listed(files: dict[str, bytes]) -> dict[str, str] | None:
    """The manifest's files and their hashes (``None`` if it is not a manifest)."""
    try:
        listed = json.loads(files[MANIFEST])["archivos"]
    except (ValueError, TypeError, KeyError):
        return None
    if not isinstance(listed, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in listed.items()
    ):
        return None
    return listed


def _manifest_problem(files: dict[str, bytes]) -> str | None:
    if MANIFEST not in files:
        return f"falta {MANIFEST}"
    listed = _listed(files)
    if listed is None:
        return f"{MANIFEST} no es un JSON con los archivos y sus huellas"
    for name, digest in sorted(listed.items()):
        if name not in files:
            return f"falta {name}, que el manifiesto lista"
        if hashlib.sha256(files[name]).hexdigest() != digest:
            return f"{name} no es el archivo que el manifiesto describe (otra huella SHA-256)"
    for name in (PARAMETERS, AWARDS):
        if name not in listed:
            return f"el manifiesto no lista {name}"
    return None


def verify(path: Path) -> Verdict:
    """Verify the package at ``path`` (a folder or a ZIP), on this machine."""
    try:
        files = path_files(path, LOCAL)
    except Unreadable as exc:
        return _unread(path, str(exc))
    return verdict_of(files)


def upload_refused(size: int, name: str) -> Verdict | None:
    """An upload refused on its size alone, before it is read (``None`` if it may be read)."""
    problem = zip_bytes_problem(size, UPLOADED)
    return None if problem is None else _unread(name, problem)


def verify_upload(data: bytes, name: str) -> Verdict:
    """Verify a package's ZIP someone uploaded (``UPLOADED`` bounds it), named as they named it."""
    try:
        files = zip_files(data, UPLOADED)
    except Unreadable as exc:
        return _unread(name, str(exc))
    return verdict_of(files)


def verdict_of(files: dict[str, bytes]) -> Verdict:
    """Whether a package's files (by name) are what their allocation gives, byte for byte,
    with the audit chain's head its manifest names."""
    problem = _manifest_problem(files)
    if problem is None:
        try:
            head = package_head(files)
        except HeadUnreadable as exc:
            problem = str(exc)
    if problem is not None:
        return Verdict(False, f"El paquete no coincide con su manifiesto: {problem}.")
    return replace(_recomputed_verdict(files), head=head)


def _recomputed_verdict(files: dict[str, bytes]) -> Verdict:
    manifest = hashlib.sha256(files[MANIFEST]).hexdigest()
    try:
        parameters = json.loads(files[PARAMETERS])
    except ValueError:
        return Verdict(False, f"No se puede leer {PARAMETERS}: no es un JSON válido.", manifest)
    text = {"seudonimo": pl.String(), "categoria": pl.String()}
    try:
        published = pl.read_csv(files[AWARDS], schema_overrides=text)
    except (pl.exceptions.PolarsError, ValueError):
        return Verdict(False, f"No se puede leer {AWARDS}: no es una tabla CSV.", manifest)
    problem = needs_problem(parameters, published)
    if problem is not None:
        return Verdict(False, f"No se puede recalcular la adjudicación: {problem}.", manifest)
    try:
        computed = recomputed(parameters, published)
        if table_bytes(computed) == files[AWARDS]:
            return Verdict(
                True,
                f"El paquete coincide: la adjudicación recalculada de sus "
                f"{group(published.height)} filas da, byte por byte, el {AWARDS} publicado.",
                manifest,
            )
        difference = first_difference(published, computed)
    except (AdjudicationError, ClearingError) as exc:
        return Verdict(False, f"No se puede recalcular la adjudicación: {exc}", manifest)
    except (pl.exceptions.PolarsError, KeyError, ValueError, TypeError, ArithmeticError):
        return Verdict(False, f"No se puede recalcular la adjudicación: {UNFIT}.", manifest)
    return Verdict(False, f"El paquete no coincide: {difference}.", manifest)


def zipped(files: dict[str, bytes]) -> bytes:
    """A package's files as a ZIP with fixed dates (the same package, the same bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, files[name])
    return buffer.getvalue()
