"""``democratiza servir``, ``usuario``, ``token`` and ``auditoria``: the web service's commands.

Why here: the program office starts the service, creates the people who log in and the
brokers' API tokens, and the auditors verify the audit chain, all from the console too.
Each change is recorded in the audit log like the same change made on the web.
"""

from __future__ import annotations

import os
import secrets
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from democratiza.cli.common import new_password, refuse
from democratiza.cli.offers import Db, engine_for, refuse_damaged
from democratiza.storage import audit
from democratiza.storage.database import database_url
from democratiza.web.security.auth import (
    STAFF_ROLES,
    AuthError,
    create_token,
    create_user,
    revoke_token,
)
from democratiza.web.security.clients import (
    PROXIES_VARIABLE,
    ProxyError,
    proxies_from_environment,
)
from democratiza.web.server.scratch import SERVICE_VARIABLE, remove_leftovers, scratch_folder

if TYPE_CHECKING:
    from sqlalchemy import Connection

console = Console()
user_app = typer.Typer(
    help="Personas que entran al servicio web.", no_args_is_help=True, rich_markup_mode=None
)
token_app = typer.Typer(
    help="Tokens de la API para los sistemas de los comisionistas.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
audit_app = typer.Typer(help="Registro de auditoría.", no_args_is_help=True, rich_markup_mode=None)
Who = Annotated[str, typer.Option("--quien", help="Quién hace el cambio")]


def serve_command(
    db: Db = None,
    puerto: Annotated[int, typer.Option("--puerto", help="Puerto TCP")] = 8000,
    anfitrion: Annotated[
        str, typer.Option("--anfitrion", help="Dirección donde escuchar")
    ] = "127.0.0.1",
    procesos: Annotated[int, typer.Option("--procesos", help="Procesos de uvicorn")] = 1,
    proxy: Annotated[
        list[str] | None,
        typer.Option(
            "--proxy",
            help="Proxy de confianza (dirección o red) cuyo X-Forwarded-For se cree; repetible",
        ),
    ] = None,
) -> None:
    """Inicia el servicio web (API, páginas y documentación en /api/docs)."""
    import uvicorn

    from democratiza.web.server import processes

    if proxy is not None:
        os.environ[PROXIES_VARIABLE] = ",".join(proxy)
    try:
        proxies_from_environment()  # a bad address is refused now, not in every process
    except ProxyError as exc:
        raise refuse(str(exc)) from None
    url = database_url(db)
    engine_for(url).dispose()  # migrate once, before any worker starts
    remove_leftovers()  # uploads of a service killed outright (kill -9) before it removed them
    processes.prepare_metrics_folder()
    os.environ["DEMOCRATIZA_DB"] = url
    # The service's own temporary folder (mode 0700), shared by its processes only.
    folder = scratch_folder()
    os.environ[SERVICE_VARIABLE] = str(folder)
    console.print(f"Servicio en http://{anfitrion}:{puerto}/ (base: {url.split('@')[-1]})")
    try:
        if procesos > 1 and processes.can_share_port():
            raise typer.Exit(processes.serve(anfitrion, puerto, url, procesos))
        uvicorn.run(
            processes.APP,
            factory=True,
            host=anfitrion,
            port=puerto,
            workers=procesos,
            log_level="warning",
            **processes.SERVER_OPTIONS,
        )
    finally:
        os.environ.pop(SERVICE_VARIABLE, None)
        shutil.rmtree(folder, ignore_errors=True)


@user_app.command("crear")
def create_user_command(
    login: Annotated[str, typer.Argument(help="Nombre de usuario")],
    nombre: Annotated[str, typer.Option(help="Nombre de la persona")],
    rol: Annotated[str, typer.Option(help="Rol: " + ", ".join(STAFF_ROLES))],
    comisionista: Annotated[
        str | None, typer.Option(help="Comisionista (solo rol comisionista)")
    ] = None,
    clave_stdin: Annotated[
        bool, typer.Option("--clave-stdin", help="Leer la contraseña de la entrada estándar")
    ] = False,
    quien: Who = "oficina del programa (consola)",
    db: Db = None,
) -> None:
    """Crea una persona con contraseña (se guarda solo su hash argon2)."""
    password = sys.stdin.readline().rstrip("\n") if clave_stdin else new_password()
    try:
        with engine_for(db).begin() as conn:
            create_user(conn, login, nombre, rol, comisionista, password, quien)
    except AuthError as exc:
        raise refuse(str(exc)) from None
    console.print(f"Usuario '{login}' creado con rol {rol}.")


@token_app.command("crear")
def create_token_command(
    comisionista: Annotated[str, typer.Option(help="Comisionista dueño del token")],
    descripcion: Annotated[str, typer.Option(help="Para qué sistema es")] = "",
    quien: Who = "oficina del programa (consola)",
    db: Db = None,
) -> None:
    """Crea un token de la API; se muestra una sola vez."""
    try:
        with engine_for(db).begin() as conn:
            token_id, token = create_token(conn, comisionista, descripcion, quien)
    except AuthError as exc:
        raise refuse(str(exc)) from None
    console.print(f"Token {token_id} para {comisionista} (cópielo: no se volverá a mostrar):")
    typer.echo(token)


@token_app.command("revocar")
def revoke_token_command(
    token_id: Annotated[int, typer.Argument(help="Número del token")],
    quien: Who = "oficina del programa (consola)",
    db: Db = None,
) -> None:
    """Revoca un token: deja de servir de inmediato."""
    try:
        with engine_for(db).begin() as conn:
            revoke_token(conn, token_id, quien)
    except AuthError as exc:
        raise refuse(str(exc)) from None
    console.print(f"Token {token_id} revocado.")


@audit_app.command("verificar")
def verify_command(
    db: Db = None,
    ancla: Annotated[
        list[str] | None,
        typer.Option(
            "--ancla",
            help="Ancla guardada antes (número:huella, de `auditoria anclar` o la cabeza de "
            "un paquete); repetible: varias acotan desde dónde se reescribió la cadena",
        ),
    ] = None,
    cadena: Annotated[
        Path | None,
        typer.Option(
            "--cadena",
            help="Registro exportado antes (`auditoria exportar`), guardado fuera del sistema: "
            "la cadena debe empezar por cada una de sus entradas, sin cambios",
        ),
    ] = None,
) -> None:
    """Recorre la cadena de huellas y dice si está íntegra o dónde se rompe; con --cadena,
    nombra además la primera entrada que no es la del registro exportado antes."""
    try:
        anchors = [audit.Anchor.parse(text) for text in ancla or []]
    except ValueError as exc:
        raise refuse(str(exc)) from None
    engine = engine_for(db, reading=True)
    refuse_damaged(engine, full=True)  # a chain in a damaged file is not "íntegra"
    with engine.connect() as conn:
        kept = None if cadena is None else _against_export(conn, cadena)
        if kept is not None and (not kept.ok or not anchors):
            report = kept
        else:
            report = audit.verify_entries(audit.stored_chunks(conn), anchors)
    if not report.ok:
        raise refuse(report.message())
    console.print(report.message(), highlight=False)
    if kept is not None:
        console.print(f"Contiene, sin cambios, cada entrada del registro exportado {cadena}.")
    reached = sorted({a.entries for a in anchors if a.entries})
    if len(reached) == 1:
        console.print(f"Llega a la entrada anclada {reached[0]} con su huella.")
    elif reached:
        named = ", ".join(map(str, reached[:-1])) + f" y {reached[-1]}"
        console.print(f"Llega a las entradas ancladas {named} con sus huellas.")


def _against_export(conn: Connection, cadena: Path) -> audit.ChainReport:
    """The stored chain against the export the auditor kept: its first differing entry."""
    from democratiza.storage.audit_compare import compare
    from democratiza.storage.audit_export import ExportError, export_chunks

    try:
        return compare(audit.stored_chunks(conn), export_chunks(cadena), str(cadena))
    except ExportError as exc:
        raise refuse(f"No se puede leer el registro exportado: {exc}.") from None


@audit_app.command("exportar")
def export_command(
    salida: Annotated[
        Path,
        typer.Option("--salida", "-o", help="Archivo del registro (JSON, una línea por entrada)"),
    ] = Path("salidas/registro-auditoria.jsonl"),
    db: Db = None,
) -> None:
    """Exporta el registro de auditoría entero, entrada por entrada, para guardarlo fuera del
    sistema: con él, `verificar PAQUETE --cadena ARCHIVO` comprueba la cabeza de la cadena
    que el paquete trae."""
    from democratiza.storage.audit_export import export_lines

    salida.parent.mkdir(parents=True, exist_ok=True)
    tmp = salida.with_name(f".{salida.name}.{secrets.token_hex(6)}.tmp")
    engine = engine_for(db, reading=True)
    try:
        with engine.connect() as conn, tmp.open("xb") as out:
            report = audit.verify(conn)
            written = 0
            for line in export_lines(conn):
                out.write(line)
                written += 1
        os.replace(tmp, salida)
    finally:
        tmp.unlink(missing_ok=True)
    console.print(f"Registro de auditoría exportado en {salida}: {written} entradas.")
    if not report.ok:
        console.print(f"Atención: {report.message()}", highlight=False)


@audit_app.command("anclar")
def anchor_command(db: Db = None) -> None:
    """Imprime el ancla del registro (número y huella de la última entrada), para guardarla
    fuera del sistema: con ella, `auditoria verificar --ancla` nota si se borraron las
    últimas entradas."""
    with engine_for(db).connect() as conn:
        report = audit.verify(conn)
        if not report.ok:
            raise refuse(f"No se ancla una cadena rota. {report.message()}")
        found = audit.anchor(conn)
    console.print(found.text(), highlight=False)
    console.print(
        f"Ancla del registro de auditoría: entrada {found.entries}. Guárdela fuera del "
        "sistema (en el acta, en el archivo del auditor).",
        highlight=False,
    )
