"""A chain re-hashed from entry 10 is named at entry 10, not at the anchor's entry.

Worked example: 45 entries; the auditor keeps the anchor (45:HASH) and the export. Someone
changes who made entry 10 and recomputes every hash from there to the end: the chain is
whole again on its own. The anchor alone can only say that entry 45 has another hash (the
chain was rewritten there or before); the export says where: entry 10, its field quien,
what it said then and says now.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine, delete, select, update
from typer.testing import CliRunner

from democratiza.cli.main import app
from democratiza.storage import audit
from democratiza.storage.audit_compare import compare
from democratiza.storage.audit_export import export_chunks
from democratiza.storage.schema import audit_log

# Wide enough that no message is wrapped inside the temporary paths it names (longer under
# pytest-xdist, whose workers each have a folder of their own).
runner = CliRunner(env={"COLUMNS": "1000"})
ENTRIES, FROM = 45, 10


def _run(*args: str, ok: bool = True) -> str:
    done = runner.invoke(app, list(args))
    assert (done.exit_code == 0) == ok, done.output
    return " ".join(done.output.split())


def _chain(engine: Engine, upto: int = ENTRIES) -> None:
    with engine.begin() as conn:
        start = audit.anchor(conn).entries + 1
        for n in range(start, upto + 1):
            audit.append(conn, f"persona {n % 4}", "cosa.cambiar", f"cosas/{n}", None, {"n": n})


def _rehash_from(engine: Engine, start: int) -> None:
    """Entry ``start`` made by someone else, every hash from it to the end recomputed."""
    with engine.begin() as conn:
        rows = conn.execute(select(audit_log).order_by(audit_log.c.id)).all()
        previous = rows[start - 2].huella
        for row in rows[start - 1 :]:
            who = "otra persona" if row.id == start else row.quien
            digest = audit.entry_hash(
                previous, row.id, row.cuando, who, row.accion, row.entidad, row.antes, row.despues
            )
            conn.execute(
                update(audit_log)
                .where(audit_log.c.id == row.id)
                .values(quien=who, huella_anterior=previous, huella=digest)
            )
            previous = digest


def test_a_chain_rehashed_from_entry_10_is_named_at_entry_10(
    engine: Engine, db_url: str, tmp_path: Path
) -> None:
    _chain(engine)
    kept = tmp_path / "registro.jsonl"
    _run("auditoria", "exportar", "-o", str(kept), "--db", db_url)
    anchor = _run("auditoria", "anclar", "--db", db_url).split()[0]
    assert anchor.startswith(f"{ENTRIES}:")
    assert "Contiene, sin cambios, cada entrada" in _run(
        "auditoria", "verificar", "--cadena", str(kept), "--ancla", anchor, "--db", db_url
    )

    _rehash_from(engine, FROM)
    assert "íntegra: 45 entradas" in _run("auditoria", "verificar", "--db", db_url)
    alone = _run("auditoria", "verificar", "--ancla", anchor, "--db", db_url, ok=False)
    assert "rota en la entrada 45: no es la entrada que se ancló" in alone
    # One anchor bounds the rewrite from entry 1 to its own, in the words of several anchors.
    assert (
        "ninguna ancla anterior coincide: la cadena fue reescrita desde una entrada entre la 1 "
        "y la 45"
    ) in alone  # not "the break is at 45"

    said = _run("auditoria", "verificar", "--cadena", str(kept), "--db", db_url, ok=False)
    assert (
        f"La cadena de auditoría está rota en la entrada {FROM}: no es la del registro "
        f"exportado {kept}: su campo quien dice «otra persona» y el registro «persona 2» "
        "(la cadena fue cambiada o reescrita desde esta entrada)"
    ) in said
    both = _run(
        "auditoria", "verificar", "--cadena", str(kept), "--ancla", anchor, "--db", db_url, ok=False
    )
    assert f"rota en la entrada {FROM}:" in both  # the export names it, whatever the anchor


def test_entries_after_the_export_pass_and_a_chain_cut_before_its_end_does_not(
    engine: Engine, db_url: str, tmp_path: Path
) -> None:
    _chain(engine)
    kept = tmp_path / "registro.jsonl"
    _run("auditoria", "exportar", "-o", str(kept), "--db", db_url)
    with engine.begin() as conn:
        audit.append(conn, "oficina", "cosa.nueva", "cosas/46", None, {"n": 46})
    with engine.connect() as conn:
        later = compare(audit.stored_chunks(conn), export_chunks(kept), str(kept))
    assert (later.ok, later.entries) == (True, ENTRIES + 1)

    with engine.begin() as conn:
        conn.execute(delete(audit_log).where(audit_log.c.id >= 40))
    said = _run("auditoria", "verificar", "--cadena", str(kept), "--db", db_url, ok=False)
    assert (
        f"rota en la entrada 40: la cadena termina en la entrada 39 y el registro exportado "
        f"{kept} llega a la {ENTRIES}: faltan las entradas 40 a {ENTRIES} (la cadena fue "
        "recortada)"
    ) in said


def test_an_entry_edited_without_rehashing_is_named_by_the_walk_or_the_export(
    engine: Engine, db_url: str, tmp_path: Path
) -> None:
    _chain(engine)
    kept = tmp_path / "registro.jsonl"
    _run("auditoria", "exportar", "-o", str(kept), "--db", db_url)
    with engine.begin() as conn:
        conn.execute(update(audit_log).where(audit_log.c.id == 7).values(accion="otra.cosa"))
    with engine.connect() as conn:
        found = compare(audit.stored_chunks(conn), export_chunks(kept), "el del auditor")
    assert (found.broken_at, found.entries) == (7, 6)
    assert "su campo accion dice «otra.cosa» y el registro «cosa.cambiar»" in (found.reason or "")
    with engine.begin() as conn:  # the web request an entry names is hashed too
        conn.execute(update(audit_log).where(audit_log.c.id == 3).values(solicitud="otra"))
    with engine.connect() as conn:
        found = compare(audit.stored_chunks(conn), export_chunks(kept), "el del auditor")
    assert found.broken_at == 3
    assert "su campo solicitud dice «otra» y el registro «(vacío)»" in (found.reason or "")
    bad = tmp_path / "no-esta.jsonl"
    said = _run("auditoria", "verificar", "--cadena", str(bad), "--db", db_url, ok=False)
    assert f"No se puede leer el registro exportado: el archivo {bad} no existe" in said


def test_several_anchors_bound_where_the_rewrite_began(
    engine: Engine, db_url: str, tmp_path: Path
) -> None:
    anchors = []
    for upto in (5, 20, ENTRIES):  # the heads of three packages published along the way
        _chain(engine, upto)
        with engine.connect() as conn:
            anchors += ["--ancla", audit.anchor(conn).text()]
    assert "Llega a las entradas ancladas 5, 20 y 45 con sus huellas." in _run(
        "auditoria", "verificar", *anchors, "--db", db_url
    )
    _rehash_from(engine, FROM)
    said = _run("auditoria", "verificar", *anchors, "--db", db_url, ok=False)
    assert (
        "La cadena de auditoría está rota en la entrada 20: no es la entrada que se ancló: su "
        "huella no es la del ancla, y la entrada anclada 5 coincide: la cadena fue reescrita "
        "desde una entrada entre la 6 y la 20"
    ) in said
    with engine.begin() as conn:
        conn.execute(delete(audit_log).where(audit_log.c.id >= 3))
    cut = _run("auditoria", "verificar", *anchors, "--db", db_url, ok=False)
    assert "faltan las entradas 3 a 5" in cut  # the first anchor the chain no longer reaches


def test_one_anchor_is_checked_in_the_same_words_as_several(engine: Engine) -> None:
    """Worked example: anchors at 5 and 20; entries 18 to 20 removed and written again, so
    the chain reaches 20 with another hash. The anchor at 20 alone bounds the rewrite from
    entry 1; with the one at 5, which still holds, from entry 6: one sentence, two bounds."""
    _chain(engine, 5)
    with engine.connect() as conn:
        early = audit.anchor(conn)
    _chain(engine, 20)
    with engine.connect() as conn:
        late = audit.anchor(conn)
    with engine.begin() as conn:
        conn.execute(delete(audit_log).where(audit_log.c.id >= 18))
    with engine.connect() as conn:
        cut = audit.verify(conn, late)
    assert cut.reason == (
        f"el ancla 20:{late.last_hash[:12]}… dice que la cadena llegaba a la entrada 20 y hoy "
        "termina en la 17: faltan las entradas 18 a 20"
    )
    _chain(engine, 20)
    with engine.connect() as conn:
        alone = audit.verify(conn, late)
        among = audit.verify_entries(audit.stored_chunks(conn), [early, late])
    hint = (
        " (comparada con un registro exportado antes, `democratiza auditoria verificar "
        "--cadena ARCHIVO`, se sabe desde cuál)"
    )
    said = "no es la entrada que se ancló: su huella no es la del ancla, y "
    assert (alone.broken_at, among.broken_at) == (20, 20)
    assert alone.reason == (
        f"{said}ninguna ancla anterior coincide: la cadena fue reescrita desde una entrada "
        f"entre la 1 y la 20{hint}"
    )
    assert among.reason == (
        f"{said}la entrada anclada 5 coincide: la cadena fue reescrita desde una entrada "
        f"entre la 6 y la 20{hint}"
    )
