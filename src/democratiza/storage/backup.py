"""Backups that restore: a copy of the whole database, checked when it is made and restored.

Why checked both times: a backup is worth only what it restores. Each copy is taken at one
instant (SQLite: its online backup API, page by page while the service goes on writing;
PostgreSQL: ``pg_dump`` in its custom format inside an exported snapshot), and in that same
instant the audit chain is verified and every table counted. A small file beside the copy
(``DESTINO.json``, the manifest) keeps those counts and the chain's last entry (its
anchor); a restore verifies the chain again and requires the same counts and the same
anchor, so a copy cut short or from another database is refused in words.

A restore never writes over a database that has data unless told to (``overwrite``).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, func, inspect, make_url, select, text

from democratiza.storage import audit
from democratiza.storage.database import make_engine
from democratiza.storage.schema import metadata

SQLITE_MAGIC = b"SQLite format 3\x00"
PG_MAGIC = b"PGDMP"
MANIFEST_SUFFIX = ".json"
PG_TOOLS = ("pg_dump", "pg_restore")


class BackupError(Exception):
    """Why a backup or a restore could not be made or does not check, in Spanish."""


@dataclass(frozen=True)
class Snapshot:
    """What a database holds at one instant: rows per table and its audit chain."""

    counts: dict[str, int]
    chain: audit.ChainReport
    anchor: audit.Anchor
    schema: str

    def manifest(self, dialect: str) -> dict[str, Any]:
        return {
            "base": dialect,
            "esquema": self.schema,
            "ancla": self.anchor.text(),
            "tablas": self.counts,
        }


def snapshot(conn: Connection) -> Snapshot:
    present = set(inspect(conn).get_table_names())
    counts = {
        t.name: int(conn.execute(select(func.count()).select_from(t)).scalar_one())
        for t in metadata.sorted_tables
        if t.name in present
    }
    schema = ""
    if "alembic_version" in present:
        schema = ", ".join(conn.execute(text("SELECT version_num FROM alembic_version")).scalars())
    chain = audit.verify(conn) if "auditoria" in present else audit.ChainReport(0, None, None)
    anchor = audit.anchor(conn) if "auditoria" in present else audit.Anchor(0, audit.GENESIS)
    return Snapshot(counts, chain, anchor, schema)


def manifest_path(copy: Path) -> Path:
    return copy.with_name(copy.name + MANIFEST_SUFFIX)


def sqlite_file(url: str) -> Path:
    database = make_url(url).database
    if not database or database == ":memory:":
        raise BackupError("La base SQLite debe ser un archivo (sqlite:///ruta.db).")
    return Path(database)


def pg_target(url: str) -> str:
    """The URL as libpq (``pg_dump``, ``pg_restore``) reads it: without the driver's name."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise BackupError(
            f"No se encontró {name}: instale el cliente de PostgreSQL (en Debian: apt-get "
            "install postgresql-client), de la misma versión del servidor o más nueva."
        )
    return found


def _run(command: list[str], what: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise BackupError(f"{what} falló: " + " ".join(said))


def _checked(found: Snapshot, where: str) -> Snapshot:
    if not found.chain.ok:
        raise BackupError(f"{where}: {found.chain.message()}")
    return found


def create(engine: Engine, destination: Path) -> Snapshot:
    """Copy the database to ``destination`` (and its manifest beside it); what it holds."""
    if destination.exists():
        raise BackupError(f"Ya existe {destination}: elija otro destino (no se sobrescribe).")
    destination.parent.mkdir(parents=True, exist_ok=True)
    partial = destination.with_name(destination.name + ".parcial")
    partial.unlink(missing_ok=True)
    try:
        if engine.dialect.name == "sqlite":
            found = _create_sqlite(engine, partial)
        else:
            found = _create_postgres(engine, partial)
        manifest = json.dumps(found.manifest(engine.dialect.name), ensure_ascii=False, indent=2)
        manifest_path(destination).write_text(manifest + "\n", encoding="utf-8")
        os.replace(partial, destination)
    finally:
        partial.unlink(missing_ok=True)
    return found


def _create_sqlite(engine: Engine, partial: Path) -> Snapshot:
    source = sqlite3.connect(sqlite_file(str(engine.url)))
    copy = sqlite3.connect(partial)
    try:
        source.backup(copy)  # the online backup API: a consistent copy while others write
    finally:
        copy.close()
        source.close()
    # Checked on the copy itself: what it holds is what a restore will bring back.
    return _checked(_read_copy(partial), "La copia no se puede usar")


def _create_postgres(engine: Engine, partial: Path) -> Snapshot:
    dump = _tool("pg_dump")
    with engine.connect().execution_options(isolation_level="REPEATABLE READ") as conn:
        # pg_dump reads the very snapshot this transaction sees: the counts are the copy's.
        exported = conn.execute(text("SELECT pg_export_snapshot()")).scalar_one()
        found = _checked(snapshot(conn), "La base no se respalda")
        _run(
            [
                dump,
                "--format=custom",
                f"--snapshot={exported}",
                "--no-owner",
                f"--file={partial}",
                f"--dbname={pg_target(str(engine.url))}",
            ],
            "pg_dump",
        )
    return found


def has_data(engine: Engine) -> bool:
    """Whether any table of democratiza has a row (a migrated, empty database has none)."""
    with engine.connect() as conn:
        return any(snapshot(conn).counts.values())


def restore(source: Path, engine: Engine, overwrite: bool = False) -> Snapshot:
    """Bring the copy ``source`` back into the database; what it holds, checked."""
    if not source.is_file():
        raise BackupError(f"No existe la copia {source}.")
    expected = _manifest(source)
    if has_data(engine) and not overwrite:
        raise BackupError(
            "La base de destino ya tiene datos: no se sobrescribe. Restaure en una base nueva, "
            "o indique --sobrescribir para reemplazar todo lo que tiene."
        )
    with source.open("rb") as f:
        head = f.read(len(SQLITE_MAGIC))
    if engine.dialect.name == "sqlite":
        if head != SQLITE_MAGIC:
            raise BackupError(f"{source} no es una copia de una base SQLite.")
        if expected is not None:  # a SQLite copy is checked before it replaces anything
            _matches(
                _checked(_read_copy(source), "La copia no se puede usar"), expected, "la copia"
            )
        _restore_sqlite(source, engine)
    else:
        if not head.startswith(PG_MAGIC):
            raise BackupError(f"{source} no es una copia de pg_dump en formato custom.")
        _restore_postgres(source, engine)
    with engine.connect() as conn:
        found = _checked(snapshot(conn), "La base restaurada no se puede usar")
    if expected is not None:
        _matches(found, expected, "la base restaurada (no la use: restaure otra copia)")
    return found


def _matches(found: Snapshot, expected: dict[str, Any], what: str) -> None:
    """Refuse ``found`` unless it has the manifest's anchor and counts."""
    if found.anchor.text() != expected["ancla"]:
        raise BackupError(
            f"La cadena de auditoría de {what} termina en {found.anchor.text()[:20]}… y el "
            f"manifiesto dice {str(expected['ancla'])[:20]}…: no es la misma copia."
        )
    wrong = [
        f"{name}: {found.counts.get(name, 0)} filas, el manifiesto dice {rows}"
        for name, rows in expected["tablas"].items()
        if found.counts.get(name, 0) != rows
    ]
    if wrong:
        raise BackupError(f"Los conteos de {what} no son los del manifiesto: " + "; ".join(wrong))


def _read_copy(copy: Path) -> Snapshot:
    opened = make_engine(f"sqlite:///{copy}")
    try:
        with opened.connect() as conn:
            return snapshot(conn)
    finally:
        opened.dispose()


def _manifest(source: Path) -> dict[str, Any] | None:
    path = manifest_path(source)
    if not path.is_file():
        return None
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BackupError(f"No se pudo leer {path}: {exc}") from None
    if not isinstance(found, dict) or not {"ancla", "tablas"} <= found.keys():
        raise BackupError(f"{path} no es el manifiesto de una copia de democratiza.")
    return found


def _restore_sqlite(source: Path, engine: Engine) -> None:
    engine.dispose()  # no connection of ours holds the file while it is replaced
    copy = sqlite3.connect(source)
    target = sqlite3.connect(sqlite_file(str(engine.url)))
    try:
        copy.backup(target)  # every page of the target replaced, in one step
    finally:
        target.close()
        copy.close()


def _restore_postgres(source: Path, engine: Engine) -> None:
    # One transaction, each object of the copy dropped (if there) and made again: a restore
    # that fails leaves the database as it was.
    tool = _tool("pg_restore")
    engine.dispose()
    _run(
        [
            tool,
            "--clean",
            "--if-exists",
            "--no-owner",
            "--no-privileges",
            "--single-transaction",
            "--exit-on-error",
            f"--dbname={pg_target(str(engine.url))}",
            str(source),
        ],
        "pg_restore",
    )
