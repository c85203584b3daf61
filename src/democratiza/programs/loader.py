"""Load program files, refusing any that is malformed, with the path of every bad key.

A program is read as its file's exact text (``ProgramText``: the text and its SHA-256), and
built from that text. An offer keeps the text it was created with, so the program it runs
under is rebuilt from the stored text, never from a file edited since.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from democratiza.programs.cross_checks import program_problems, written_problems
from democratiza.programs.messages import schema_errors
from democratiza.programs.schema import Program
from democratiza.validation_messages import YamlProblem, load_yaml

DATA_PACKAGE = "democratiza.programs.data"


@dataclass(frozen=True)
class ProgramError:
    """One problem in a program file, located by the path of the offending key."""

    source: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.source}: {self.path}: {self.message}"


class ProgramFileError(Exception):
    def __init__(self, errors: list[ProgramError]) -> None:
        self.errors = errors
        super().__init__("\n".join(str(e) for e in errors))


@dataclass(frozen=True)
class ProgramText:
    """A program file's exact text, where it was read from, and its SHA-256 (hex, of the
    UTF-8 bytes: the file's own bytes)."""

    text: str
    source: str

    @property
    def sha256(self) -> str:
        return digest(self.text)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _refused(source: str, path: str, message: str) -> ProgramFileError:
    return ProgramFileError([ProgramError(source, path, message)])


def program_data(text: str, source: str) -> Any:
    """The file's YAML as data; a syntax error or a repeated key is refused with its line."""
    try:
        return load_yaml(text)
    except YamlProblem as exc:
        raise _refused(source, "(archivo)", str(exc)) from None


def problems(data: Any, source: str) -> tuple[Program | None, list[ProgramError]]:
    """Every problem of a file's data at once, and the program when there is none."""
    found = written_problems(data)
    try:
        program: Program | None = Program.model_validate(data)
    except ValidationError as exc:
        found = [*schema_errors(exc), *found]
        program = None
    if program is not None:
        found += program_problems(program)
    errors = [ProgramError(source, path, message) for path, message in found]
    return (None if errors else program), errors


def parse_program(data: Any, source: str) -> Program:
    program, errors = problems(data, source)
    if program is None:
        raise ProgramFileError(errors)
    return program


def program_from_text(text: str, source: str) -> Program:
    """The program a file's text describes; ``source`` names the text in the refusals."""
    program, found = _built(text)
    if program is None:
        raise ProgramFileError([ProgramError(source, path, message) for path, message in found])
    return program


@lru_cache(maxsize=256)
def _built(text: str) -> tuple[Program | None, tuple[tuple[str, str], ...]]:
    """Each text is built once: programs are immutable, so one text gives one object (an
    offer's compiled rules are reused while its program is the same), and an offer loaded
    on every request does not parse its file again."""
    try:
        program, errors = problems(program_data(text, ""), "")
    except ProgramFileError as exc:
        program, errors = None, exc.errors
    return program, tuple((e.path, e.message) for e in errors)


def read_program_file(path: Path) -> ProgramText:
    try:
        text = path.read_bytes().decode("utf-8")  # bytes as they are: the hash is the file's
    except OSError as exc:
        raise _refused(str(path), "(archivo)", f"no se puede leer ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise _refused(str(path), "(archivo)", "no está en UTF-8") from None
    return ProgramText(text, str(path))


def load_program_file(path: Path) -> Program:
    found = read_program_file(path)
    return program_from_text(found.text, found.source)


def bundled_program_ids() -> list[str]:
    files = resources.files(DATA_PACKAGE).iterdir()
    return sorted(f.name.removesuffix(".yaml") for f in files if f.name.endswith(".yaml"))


def read_program(program_id: str) -> ProgramText:
    """A bundled program's text by id, or a program file's by path."""
    candidate = Path(program_id)
    if candidate.suffix in (".yaml", ".yml") and candidate.exists():
        return read_program_file(candidate)
    if program_id not in bundled_program_ids():
        known = ", ".join(bundled_program_ids())
        raise _refused(program_id, "(programa)", f"programa desconocido; disponibles: {known}")
    ref = resources.files(DATA_PACKAGE).joinpath(f"{program_id}.yaml")
    with resources.as_file(ref) as path:
        return read_program_file(path)


def load_program(program_id: str) -> Program:
    """A bundled program by id, or a program file by path."""
    found = read_program(program_id)
    return program_from_text(found.text, found.source)
