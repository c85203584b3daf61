"""What a person is told when the database (or the disk) itself fails: in Spanish, and true.

The database's own messages are English and name the driver; these say what happened to
the data (nothing of the command was written when the database refused it) and what to do.
"""

from __future__ import annotations

import errno

from sqlalchemy.exc import DBAPIError

from democratiza.storage.database import SQLITE_WAIT_SECONDS

NOTHING_WRITTEN = "no se guardó nada de esta operación"
SQLITE_FAULTS = {
    "database is locked": (
        f"La base de datos está ocupada por otra escritura desde hace más de "
        f"{SQLITE_WAIT_SECONDS // 60} minutos; {NOTHING_WRITTEN}. Inténtelo de nuevo cuando "
        "termine."
    ),
    "file is not a database": (
        "El archivo de la base de datos no es una base SQLite (está dañado o es otro "
        f"archivo); {NOTHING_WRITTEN}. Restaure la copia de seguridad o indique otra con --db."
    ),
    "database disk image is malformed": (
        f"El archivo de la base de datos está dañado; {NOTHING_WRITTEN}. Restaure la copia de "
        "seguridad."
    ),
    "attempt to write a readonly database": (
        f"La base de datos es de solo lectura; {NOTHING_WRITTEN}. Revise los permisos del "
        "archivo y de su carpeta."
    ),
    "unable to open database file": (
        "No se pudo abrir el archivo de la base de datos: revise que la carpeta exista y se "
        "pueda escribir en ella."
    ),
    "database or disk is full": f"El disco de la base de datos está lleno; {NOTHING_WRITTEN}.",
}
# Said by PostgreSQL (or the driver) when the server ends the connection under a command,
# and when there is no server to connect to.
CONNECTION_LOST = (
    "terminating connection",
    "server closed the connection",
    "connection is closed",
    "the connection is lost",
    "consuming input failed",
)
NO_SERVER = ("connection refused", "could not connect", "connection failed")


def database_fault(exc: BaseException) -> str | None:
    """The Spanish message for a failure of the database itself; None for anything else."""
    if isinstance(exc, DBAPIError):
        reason = str(exc.orig) if exc.orig is not None else str(exc)
        for english, spanish in SQLITE_FAULTS.items():
            if english in reason:
                return spanish
        first = reason.strip().splitlines()[0] if reason.strip() else type(exc.orig).__name__
        if any(words in reason.lower() for words in NO_SERVER):
            return (
                f"No se pudo conectar con la base de datos ({first}): revise que el servidor "
                f"esté en marcha y la dirección de --db; {NOTHING_WRITTEN}."
            )
        if any(words in reason.lower() for words in CONNECTION_LOST):
            return (
                f"Se perdió la conexión con la base de datos ({first}): revise que el servidor "
                "esté en marcha. Si la conexión se perdió al confirmar, la operación pudo quedar "
                "hecha: revise el estado antes de repetirla (un lote enviado de nuevo se guarda "
                "una sola vez)."
            )
        if exc.connection_invalidated or isinstance(exc.orig, OSError):
            return f"La base de datos no está disponible ({first}); {NOTHING_WRITTEN}."
        return None
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        where = f" para escribir {exc.filename}" if exc.filename else ""
        return f"No queda espacio en el disco{where}."
    if isinstance(exc, OSError) and exc.errno in FILE_FAULTS and exc.filename:
        return f"No se pudo usar {exc.filename}: {FILE_FAULTS[exc.errno]}."
    return None


# What the system says of a file a command reads or writes (its own words are English).
FILE_FAULTS = {
    errno.EACCES: "no hay permiso para usarlo",
    errno.EPERM: "no hay permiso para usarlo",
    errno.EROFS: "está en un disco de solo lectura",
    errno.EDQUOT: "se agotó la cuota de disco",
    errno.ENOTDIR: "una parte de la ruta es un archivo, no una carpeta",
    errno.EISDIR: "es una carpeta, no un archivo",
    errno.ENOENT: "no existe",
}
