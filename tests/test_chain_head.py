"""The head of the audit chain leaves the database with each public package.

Worked examples: the package's manifest names the chain's last entry when it was built
(before the entry that records the package); ``verificar PAQUETE --cadena EXPORT`` passes on
the true chain (exported by ``auditoria exportar``) and with ``--db``; it fails, in Spanish
and naming the entry, on an export cut short before that entry and on one whose tail was
rewritten with every hash recomputed (a chain that verifies on its own).
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from pathlib import Path

from sqlalchemy import Engine, delete
from typer.testing import CliRunner

from democratiza.adjudication.record import publish
from democratiza.cli.main import app
from democratiza.storage import audit
from democratiza.storage.audit_export import Entry, export_chunks
from democratiza.storage.schema import audit_log
from democratiza.verification.package import (
    AWARDS,
    HEAD,
    MANIFEST,
    PARAMETERS,
    README,
    Package,
    canonical,
    with_head,
)
from democratiza.verification.publish import offer_package
from tests.storage_support import adjudicate_sample

CODE = "central-cabeza"
# Wide enough that no message is wrapped inside the temporary paths it names (longer under
# pytest-xdist, whose workers each have a folder of their own).
runner = CliRunner(env={"COLUMNS": "1000"})


def published(engine: Engine, db_url: str, tmp_path: Path) -> tuple[Path, audit.Anchor]:
    """The sample offer published, its package written, and the chain's head before it."""
    adjudicate_sample(engine, CODE)
    publish(engine, CODE, "oficina", "publicación")
    with engine.connect() as conn:
        before = audit.anchor(conn)
    folder = tmp_path / "paquete"
    made = runner.invoke(app, ["paquete", "oferta", CODE, "-o", str(folder), "--db", db_url])
    assert made.exit_code == 0, made.output
    assert f"Cabeza de la cadena de auditoría: {before.text()}" in " ".join(made.output.split())
    return folder, before


def exported(db_url: str, path: Path) -> list[dict[str, object]]:
    done = runner.invoke(app, ["auditoria", "exportar", "-o", str(path), "--db", db_url])
    assert done.exit_code == 0, done.output
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def check(folder: Path, chain: Path) -> tuple[int, str]:
    done = runner.invoke(app, ["verificar", str(folder), "--cadena", str(chain)])
    return done.exit_code, " ".join(done.output.split())


def test_the_package_carries_the_head_and_verifies_against_the_true_chain(
    engine: Engine, db_url: str, tmp_path: Path
) -> None:
    folder, before = published(engine, db_url, tmp_path)
    manifest = json.loads((folder / MANIFEST).read_bytes())
    assert manifest[HEAD] == {"entrada": before.entries, "huella": before.last_hash}
    assert sorted(manifest["archivos"]) == sorted([AWARDS, README, PARAMETERS])  # no file added
    assert sorted(manifest) == ["algoritmo", "archivos", HEAD]  # one field added, no more

    lines = exported(db_url, tmp_path / "registro.jsonl")
    assert len(lines) == before.entries + 1  # and the entry that records the package
    assert lines[-1]["accion"] == "paquete.publicar"
    code, said = check(folder, tmp_path / "registro.jsonl")
    assert code == 0, said
    assert f"Cabeza de la cadena de auditoría al publicarse: {before.text()}" in said
    assert (
        f"La cadena de auditoría del archivo {tmp_path / 'registro.jsonl'} está íntegra "
        f"({len(lines)} entradas) y contiene la entrada {before.entries} "
        f"(huella {before.last_hash[:12]}…)"
    ) in said
    by_db = runner.invoke(app, ["verificar", str(folder), "--db", db_url])
    assert by_db.exit_code == 0, by_db.output
    assert "La cadena de auditoría de la base de datos está íntegra" in by_db.output


def write_lines(path: Path, lines: list[dict[str, object]]) -> Path:
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_chain_cut_short_before_the_head_is_refused_naming_the_entry(
    engine: Engine, db_url: str, tmp_path: Path
) -> None:
    folder, before = published(engine, db_url, tmp_path)
    lines = exported(db_url, tmp_path / "registro.jsonl")
    cut = write_lines(tmp_path / "recortada.jsonl", lines[: before.entries - 2])
    # The chain's own check against the head, as data: it ends before the head's entry.
    report = audit.verify_entries(export_chunks(cut), [before])
    assert report.missed == audit.Missed(before, None, 0)
    code, said = check(folder, cut)
    assert code != 0
    assert (
        f"La cadena de auditoría del archivo {cut} termina en la entrada "
        f"{before.entries - 2} y el paquete dice que al publicarse llegaba a la entrada "
        f"{before.entries} (huella {before.last_hash[:12]}…): faltan las entradas "
        f"{before.entries - 1} a {before.entries} (la cadena fue recortada)."
    ) in said


def test_a_tail_rewritten_with_its_hashes_recomputed_is_refused_naming_the_entry(
    engine: Engine, db_url: str, tmp_path: Path
) -> None:
    folder, before = published(engine, db_url, tmp_path)
    lines = exported(db_url, tmp_path / "registro.jsonl")
    start = before.entries - 3  # rewrite from three entries before the head, to the end
    previous = str(lines[start - 2]["huella"])
    for line in lines[start - 1 :]:
        if line["id"] == start:
            line["quien"] = "otra persona"
        entry = Entry(**{**line, "cuando": datetime.fromisoformat(str(line["cuando"]))})  # type: ignore[arg-type]
        line["huella_anterior"] = previous
        line["huella"] = previous = audit.entry_hash(
            previous,
            entry.id,
            entry.cuando,
            entry.quien,
            entry.accion,
            entry.entidad,
            entry.antes,
            entry.despues,
        )
    forged = write_lines(tmp_path / "reescrita.jsonl", lines)
    assert audit.verify_entries(export_chunks(forged)).ok  # whole again on its own
    report = audit.verify_entries(export_chunks(forged), [before])  # not against the head
    assert report.missed == audit.Missed(before, str(lines[before.entries - 1]["huella"]), 0)
    alone = runner.invoke(app, ["verificar", str(folder)])
    assert alone.exit_code == 0  # the package itself is intact
    code, said = check(folder, forged)
    assert code != 0
    assert (
        f"La entrada {before.entries} de la cadena de auditoría del archivo {forged} no es "
        f"la que el paquete nombra: su huella es {str(lines[before.entries - 1]['huella'])[:12]}… "
        f"y el paquete dice {before.last_hash[:12]}… (la cadena fue reescrita desde esa "
        "entrada o antes)."
    ) in said


def test_an_export_that_is_not_a_chain_is_refused_naming_its_line(
    engine: Engine, db_url: str, tmp_path: Path
) -> None:
    folder, _ = published(engine, db_url, tmp_path)
    lines = exported(db_url, tmp_path / "registro.jsonl")
    bad = tmp_path / "mala.jsonl"
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines[:2])
    bad.write_text(text + '{"id": 3, "cuando": "ayer"}\n', encoding="utf-8")
    code, said = check(folder, bad)
    assert code != 0
    assert f"No se puede leer la cadena de auditoría: el archivo {bad}, línea 3 no es" in said
    code, said = check(folder, tmp_path / "no-esta.jsonl")
    assert code != 0 and f"el archivo {tmp_path / 'no-esta.jsonl'} no existe" in said
    both = runner.invoke(app, ["verificar", str(folder), "--cadena", str(bad), "--db", db_url])
    assert both.exit_code != 0 and "no con ambas" in both.output


def test_the_head_changes_the_manifest_only() -> None:
    files = {PARAMETERS: b"{}\n", AWARDS: b"orden\n", README: b"texto\n"}
    digests = {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())}
    plain = Package({**files, MANIFEST: canonical({"archivos": digests, "algoritmo": "SHA-256"})})
    head = audit.Anchor(7, "ab" * 32)
    headed = with_head(plain, head)
    assert {n: d for n, d in headed.files.items() if n != MANIFEST} == files
    manifest = json.loads(headed.files[MANIFEST])
    assert manifest.pop(HEAD) == {"entrada": 7, "huella": "ab" * 32}
    assert canonical(manifest) == plain.files[MANIFEST] and headed.head == head


def test_a_database_whose_tail_was_deleted_is_refused_naming_the_entry(
    engine: Engine, db_url: str, tmp_path: Path
) -> None:
    folder, before = published(engine, db_url, tmp_path)
    with engine.begin() as conn:
        conn.execute(delete(audit_log).where(audit_log.c.id >= before.entries))
    done = runner.invoke(app, ["verificar", str(folder), "--db", db_url])
    said = " ".join(done.output.split())
    assert done.exit_code != 0
    assert (
        f"La cadena de auditoría de la base de datos termina en la entrada "
        f"{before.entries - 1} y el paquete dice que al publicarse llegaba a la entrada "
        f"{before.entries}"
    ) in said


def test_the_same_package_built_again_is_byte_identical_and_recorded_once(
    engine: Engine, db_url: str, tmp_path: Path
) -> None:
    """A download after other entries were written (users created, a holding event) gets the
    package whose manifest SHA-256 was recorded, not one with a newer head."""
    adjudicate_sample(engine, CODE)
    publish(engine, CODE, "oficina", "publicación")
    first = offer_package(engine, CODE, "oficina")
    with engine.begin() as conn:
        audit.append(conn, "oficina", "usuario.crear", "usuarios/9", None, {"rol": "auditor"})
        entries = audit.anchor(conn).entries
    again = offer_package(engine, CODE, "público (estadísticas de la oferta)")
    assert again.files == first.files  # the manifest's head is the recorded one
    with engine.connect() as conn:
        assert audit.anchor(conn).entries == entries  # nothing recorded for the same package
    assert first.head is not None and first.head.entries == entries - 2
