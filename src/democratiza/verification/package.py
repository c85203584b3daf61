"""The public package of a published adjudication: what it took, what it gave, by pseudonym.

One package per stage (``docs/verificacion.md`` describes the format, to check it with any
tool). Its files:

- ``parametros.json``: the stage, the program and the SHA-256 of the program file's text the
  offer keeps, the method (or the mechanism), its parameters and the shares offered:
  everything the allocation used;
- ``adjudicacion.csv``: one row per filing, in the order of receipt (``orden``): its
  pseudonym, category, what the rules permitted it (after the person's limits) and what it
  was awarded; for a later stage, each order's price, quantity and whether it was valid;
- ``LEAME.txt``: how to verify it;
- for a program the installed package does not have (a decree's file written in the program
  office's own folder), ``programa.yaml`` and each text it cites (``norma-…``), so anyone
  can read the rules the allocation ran under; ``parametros.json`` lists them with their
  SHA-256;
- ``manifiesto.json``: the SHA-256 of each of the other files, and the head of the audit
  chain at publication (``cadena_auditoria``: the number and hash of its last entry before
  the package's own), so the chain leaves the database: ``verificar --cadena`` checks that
  entry against a chain the auditor holds. The manifest's own SHA-256 is published with the
  results and kept in the audit log, so a package changed after its publication is told apart.

No names, identification numbers or financial figures (Ley 1581 de 2012): the limits' inputs
stay with the auditors, who verify those with their own access.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from typing import Any

import polars as pl

from democratiza.adjudication.record import Adjudication
from democratiza.offers.lifecycle import StoredOffer
from democratiza.programs.loader import installed
from democratiza.stages.allocate import StageAllocation
from democratiza.stages.lifecycle import StoredStage
from democratiza.storage.audit import Anchor

PARAMETERS = "parametros.json"
AWARDS = "adjudicacion.csv"
README = "LEAME.txt"
MANIFEST = "manifiesto.json"
HEAD = "cadena_auditoria"  # the manifest's field with the audit chain's head
FIRST_STAGE = "primera_etapa"
LATER_STAGE = "etapa_siguiente"

_README = """Paquete público de la adjudicación: {what}.

Contiene lo que la adjudicación tomó y lo que dio, por seudónimo (una huella con clave de la
identificación de cada aceptante; la clave es de la oficina del programa y no se publica):

- parametros.json: el método o mecanismo, sus parámetros y las acciones ofrecidas;
- adjudicacion.csv: una fila por radicación, en el orden de recepción;
- manifiesto.json: la huella SHA-256 de cada archivo.

Para verificarlo: democratiza verificar CARPETA, o con cualquier herramienta, siguiendo
docs/verificacion.md. Cada aceptante ve su seudónimo en la consulta de su resultado.
"""


@dataclass(frozen=True)
class Package:
    """The files of a package, by name (bytes, exactly as written)."""

    files: dict[str, bytes]
    head: Anchor | None = None  # the audit chain's last entry at publication

    @property
    def manifest_digest(self) -> str:
        return hashlib.sha256(self.files[MANIFEST]).hexdigest()


def table_bytes(frame: pl.DataFrame) -> bytes:
    """A package's table as CSV: the writer both the package and its verifier use."""
    buffer = io.BytesIO()
    frame.write_csv(buffer)
    return buffer.getvalue()


def canonical(value: dict[str, Any]) -> bytes:
    return (json.dumps(value, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode()


PROGRAM = "programa.yaml"


def program_files(stored: StoredOffer) -> dict[str, bytes]:
    """The program file and its texts, by their names in the package, where the installed
    package does not have them (a program of the package's own: nothing, as before)."""
    kept = stored.kept
    if kept is None or installed(kept):
        return {}
    files = {PROGRAM: kept.text.encode("utf-8")}
    for text in kept.texts:
        files["norma-" + text.name.replace("/", "_")] = text.text.encode("utf-8")
    return files


def _with_program(parameters: dict[str, Any], carried: dict[str, bytes]) -> dict[str, Any]:
    if not carried:
        return parameters
    names = {name: hashlib.sha256(data).hexdigest() for name, data in carried.items()}
    return {**parameters, "textos_del_programa": names}


def _package(
    parameters: dict[str, Any],
    awards: pl.DataFrame,
    what: str,
    carried: dict[str, bytes] | None = None,
) -> Package:
    files = {
        PARAMETERS: canonical(_with_program(parameters, carried or {})),
        AWARDS: table_bytes(awards),
        README: _README.format(what=what).encode(),
        **(carried or {}),
    }
    digests = {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())}
    files[MANIFEST] = canonical({"archivos": digests, "algoritmo": "SHA-256"})
    return Package(files)


def with_head(package: Package, head: Anchor) -> Package:
    """The package with the audit chain's head in its manifest, its other files unchanged.

    Why apart from building it: the head is read under the chain's lock, held until the
    package's own entry is written, so it is taken after the (long) build, not before.
    """
    manifest = json.loads(package.files[MANIFEST])
    manifest[HEAD] = {"entrada": head.entries, "huella": head.last_hash}
    return Package({**package.files, MANIFEST: canonical(manifest)}, head)


def first_stage_package(stored: StoredOffer, done: Adjudication, pseudonym: pl.Series) -> Package:
    """The Primera Etapa's package: its adjudication record, by pseudonym."""
    rule = stored.program.allocation
    parameters = {
        "tipo": FIRST_STAGE,
        "oferta": stored.code,
        "programa": stored.program.id,
        "version_programa": stored.program.version,
        "huella_programa": stored.program_sha256,
        "metodo": rule.method,
        "residuo": rule.remainder,
        "lote_acciones": rule.unit_shares,
        "porcentaje_lineal": rule.linear_percent,
        "acciones_ofrecidas": done.header["acciones_ofrecidas"],
        "orden": "orden de recepción (radicado): la columna orden",
    }
    if rule.joint_caps:  # only where the program has them: other packages unchanged
        offered = stored.offer.values["acciones_ofrecidas"]
        assert isinstance(offered, int), "an adjudicated offer has its shares offered"
        parameters["topes_conjuntos"] = [
            {"categorias": list(cap.categories), "tope_acciones": cap.shares(offered)}
            for cap in rule.joint_caps
        ]
    awards = done.results.select(
        pl.int_range(1, pl.len() + 1).alias("orden"),
        pseudonym.alias("seudonimo"),
        pl.col("categoria").cast(pl.String),
        pl.col("cantidad_persona").alias("cantidad_permitida"),
        "adjudicada",
    )
    what = f"Primera Etapa de la oferta {stored.code}"
    return _package(parameters, awards, what, program_files(stored))


def stage_package(stage: StoredStage, done: StageAllocation, pseudonym: pl.Series) -> Package:
    """A later stage's package: its book and allocation, by pseudonym."""
    header = done.header
    parameters = {
        "tipo": LATER_STAGE,
        "oferta": stage.first.code,
        "etapa": stage.code,
        "nombre": stage.name,
        "programa": stage.program.id,
        "version_programa": stage.program.version,
        "huella_programa": stage.first.program_sha256,
        "mecanismo": header["mecanismo"],
        "acciones_ofrecidas": header["acciones_ofrecidas"],
        "precio_minimo_centavos": header["precio_minimo"],
        "precio_corte_centavos": header["precio_corte"],
        "lote": header["lote"],
        "orden": "orden de recepción (radicado): la columna orden",
    }
    awards = done.results.select(
        pl.int_range(1, pl.len() + 1).alias("orden"),
        pseudonym.alias("seudonimo"),
        pl.col("precio").alias("precio_centavos"),
        "cantidad",
        (pl.col("decision") == "valida").alias("valida"),
        "asignada",
    )
    return _package(
        parameters,
        awards,
        f"{stage.name} {stage.code} de la oferta {stage.first.code}",
        program_files(stage.first),
    )
