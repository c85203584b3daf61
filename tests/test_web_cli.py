"""The web service's commands: people, API tokens and the audit chain, from the console."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import delete, update
from typer.testing import CliRunner

from democratiza.cli.main import app
from democratiza.storage.database import make_engine
from democratiza.storage.schema import audit_log
from democratiza.web.app import create_app
from tests.test_web_support import log_in

runner = CliRunner()


def run(*args: str, db: str, ok: bool = True, stdin: str | None = None) -> str:
    result = runner.invoke(app, [*args, "--db", db], input=stdin, env={"COLUMNS": "200"})
    assert (result.exit_code == 0) == ok, result.output
    return result.output


def test_people_tokens_and_the_audit_chain_from_the_console(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'web.db'}"
    out = run(
        "usuario", "crear", "ana", "--nombre", "Ana", "--rol", "oficina", "--clave-stdin",
        db=db, stdin="una-clave-bien-larga\n",
    )  # fmt: skip
    assert "Usuario 'ana' creado con rol oficina." in out
    short = run(
        "usuario", "crear", "bob", "--nombre", "Bob", "--rol", "auditor", "--clave-stdin",
        db=db, stdin="corta\n", ok=False,
    )  # fmt: skip
    assert "al menos 12 caracteres" in short
    broker = run(
        "usuario", "crear", "c", "--nombre", "C", "--rol", "comisionista", "--clave-stdin",
        db=db, stdin="una-clave-bien-larga\n", ok=False,
    )  # fmt: skip
    assert "necesita el nombre de su comisionista" in broker

    out = run("token", "crear", "--comisionista", "Casa de Bolsa", db=db)
    token = out.strip().splitlines()[-1]
    assert token.startswith("dz_")
    engine = make_engine(db)
    client = TestClient(create_app(engine))
    log_in(client, "ana", "una-clave-bien-larga")  # the person created above can log in
    listed = client.get("/api/ofertas", headers={"Authorization": f"Bearer {token}"})
    assert listed.status_code == 200
    assert "Token 1 revocado." in run("token", "revocar", "1", db=db)
    assert "No hay un token vigente con el número 1." in run(
        "token", "revocar", "1", db=db, ok=False
    )
    refused = TestClient(create_app(engine)).get(
        "/api/ofertas", headers={"Authorization": f"Bearer {token}"}
    )
    assert refused.status_code == 401

    # ana, the token and its revocation; the refused attempts changed nothing
    assert "íntegra: 3 entradas verificadas" in run("auditoria", "verificar", db=db)
    anchor = run("auditoria", "anclar", db=db).splitlines()[0]
    assert anchor.startswith("3:") and len(anchor) == 2 + 64
    with_anchor = run("auditoria", "verificar", "--ancla", anchor, db=db)
    assert "Llega a la entrada anclada 3 con su huella." in with_anchor
    with engine.begin() as conn:  # the newest entry removed: only the anchor notices
        conn.execute(delete(audit_log).where(audit_log.c.id == 3))
    assert "íntegra: 2 entradas verificadas" in run("auditoria", "verificar", db=db)
    cut = run("auditoria", "verificar", "--ancla", anchor, db=db, ok=False)
    assert "faltan las entradas 3 a 3" in cut
    assert "ancla no válida" in run("auditoria", "verificar", "--ancla", "3", db=db, ok=False)
    with engine.begin() as conn:
        conn.execute(update(audit_log).where(audit_log.c.id == 2).values(quien="otro"))
    broken = run("auditoria", "verificar", db=db, ok=False)
    assert "rota en la entrada 2" in broken
    assert "No se ancla una cadena rota" in run("auditoria", "anclar", db=db, ok=False)


def test_a_typed_password_that_does_not_match_is_asked_again_in_spanish(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'web.db'}"
    typed = (
        "una-clave-bien-larga\notra-clave-distinta\nuna-clave-bien-larga\nuna-clave-bien-larga\n"
    )
    out = run("usuario", "crear", "ana", "--nombre", "Ana", "--rol", "oficina", db=db, stdin=typed)
    assert "Las dos contraseñas no coinciden; escríbala de nuevo." in out
    assert "Repita la contraseña" in out and "Repeat" not in out and "do not match" not in out
    assert "Usuario 'ana' creado con rol oficina." in out
