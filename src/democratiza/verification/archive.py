"""Reading a public package's files, from a folder or a ZIP, within bounds.

Why bounds: a ZIP says how many files it holds and how large each is once unpacked before
anything is unpacked, so a ZIP that would unpack to far more than any package (a "ZIP
bomb") or hold thousands of files is refused on what it declares; unpacking stops at the
declared size (a member that says less than it holds fails its CRC check). A package
uploaded to the public page (``UPLOADED``) is bounded tighter than one a person verifies
on their own machine (``LOCAL``): a Primera Etapa of a million acceptances fits both.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from democratiza.money import group

MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """How large a package's ZIP may be, how much it may unpack to, how many files."""

    zip_bytes: int | None
    unpacked_bytes: int
    members: int


# A package has four files; one of a million acceptances is a ZIP of about 31 MiB that
# unpacks to about 67 MiB.
UPLOAD_BYTES = 48 * MIB
LOCAL = Limits(zip_bytes=None, unpacked_bytes=4096 * MIB, members=16)
UPLOADED = Limits(zip_bytes=UPLOAD_BYTES, unpacked_bytes=256 * MIB, members=16)


class Unreadable(Exception):
    """A package that cannot be read: why, in Spanish."""


def _mib(size: int) -> str:
    return f"{group(size // MIB)} MiB"


def zip_bytes_problem(size: int, limits: Limits) -> str | None:
    """Why a ZIP of ``size`` bytes is refused before it is read (or ``None``)."""
    if limits.zip_bytes is not None and size > limits.zip_bytes:
        return f"el archivo pasa del límite de {_mib(limits.zip_bytes)} de un paquete"
    return None


def zip_files(data: bytes, limits: Limits) -> dict[str, bytes]:
    """The files of a package's ZIP, by name, refused on what it declares if out of bounds."""
    problem = zip_bytes_problem(len(data), limits)
    if problem is not None:
        raise Unreadable(problem)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = [m for m in archive.infolist() if not m.is_dir()]
            _check_declared(members, limits)
            files = {}
            for member in members:
                name = Path(member.filename).name
                if name in files:
                    raise Unreadable(f"el ZIP tiene dos archivos llamados {name}")
                files[name] = archive.read(member)
            return files
    except zipfile.BadZipFile:
        raise Unreadable("no es un archivo ZIP íntegro (¿es el paquete.zip descargado?)") from None
    except (NotImplementedError, RuntimeError, zlib.error, EOFError, ValueError):
        # a compression this reader lacks, a password, a damaged stream
        raise Unreadable(
            "el ZIP está cifrado, dañado o comprimido de una forma no admitida"
        ) from None


def _check_declared(members: list[zipfile.ZipInfo], limits: Limits) -> None:
    if len(members) > limits.members:
        raise Unreadable(
            f"el ZIP tiene {group(len(members))} archivos y un paquete tiene a lo sumo "
            f"{limits.members}"
        )
    unpacked = sum(m.file_size for m in members)
    if unpacked > limits.unpacked_bytes:
        raise Unreadable(
            f"el ZIP se descomprime a {_mib(unpacked)}, más que el límite de "
            f"{_mib(limits.unpacked_bytes)} de un paquete"
        )


def path_files(path: Path, limits: Limits = LOCAL) -> dict[str, bytes]:
    """The files of a package in a folder, or in a ZIP at ``path``."""
    try:
        if path.is_dir():
            return {p.name: p.read_bytes() for p in path.iterdir() if p.is_file()}
        return zip_files(path.read_bytes(), limits)
    except FileNotFoundError:
        raise Unreadable("no existe") from None
    except PermissionError:
        raise Unreadable("no hay permiso para leerlo") from None
    except OSError:
        raise Unreadable("no se pudo leer del disco") from None
