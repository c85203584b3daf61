"""Load program files, refusing any that is malformed, with the path of every bad key.

A program is read as its file's exact text (``ProgramText``: the text and its SHA-256) with
the texts its norms cite (``texts``: each beside the file, or else the package's), and built
from those. An offer keeps them all as it was created, so the program it runs under is
rebuilt from the stored texts, never from files edited since.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from democratiza.programs.cross_checks import cited_names, program_problems, written_problems
from democratiza.programs.messages import schema_errors
from democratiza.programs.schema import Program
from democratiza.programs.texts import NormText, name_problem, resolved
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
    """A program file's exact text, where it was read from, its SHA-256 (hex, of the UTF-8
    bytes: the file's own bytes), and the texts its norms cite that could be read."""

    text: str
    source: str
    texts: tuple[NormText, ...] = ()
    where: str = "junto al programa"  # where its own texts are, for a refusal

    @property
    def sha256(self) -> str:
        return digest(self.text)

    @property
    def beside(self) -> dict[str, str]:
        """The cited texts by name, as the checks read them."""
        return {t.name: t.text for t in self.texts}

    def program(self) -> Program:
        """The program these texts describe (refused with every problem at once)."""
        return program_from_text(self.text, self.source, self.texts, self.where)


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


def problems(
    data: Any,
    source: str,
    texts: tuple[NormText, ...] = (),
    where: str = "junto al programa",
) -> tuple[Program | None, list[ProgramError]]:
    """Every problem of a file's data at once, and the program when there is none; ``texts``
    are the ones found for its norms (a text not among them is the package's, or missing)."""
    found = written_problems(data, {t.name: t.text for t in texts}, where)
    try:
        program: Program | None = Program.model_validate(data)
    except ValidationError as exc:
        found = [*schema_errors(exc, Program), *found]
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


def program_from_text(
    text: str, source: str, texts: tuple[NormText, ...] = (), where: str = "junto al programa"
) -> Program:
    """The program a file's text describes; ``source`` names the text in the refusals."""
    program, found = _built(text, texts, where)
    if program is None:
        raise ProgramFileError([ProgramError(source, path, message) for path, message in found])
    return program


@lru_cache(maxsize=256)
def _built(
    text: str, texts: tuple[NormText, ...], where: str
) -> tuple[Program | None, tuple[tuple[str, str], ...]]:
    """Each text is built once: programs are immutable, so one text gives one object (an
    offer's compiled rules are reused while its program is the same), and an offer loaded
    on every request does not parse its file again."""
    try:
        program, errors = problems(program_data(text, ""), "", texts, where)
    except ProgramFileError as exc:
        program, errors = None, exc.errors
    return program, tuple((e.path, e.message) for e in errors)


def _read_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")  # bytes as they are: the hash is the file's
    except OSError as exc:
        raise _refused(str(path), "(archivo)", f"no se puede leer ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise _refused(str(path), "(archivo)", "no está en UTF-8") from None


def read_program_file(path: Path) -> ProgramText:
    """A program file's text and the texts its norms cite: each file of that name beside it
    (a path relative to its folder), or else the package's text of that name."""
    text = _read_text(path)
    try:
        data = load_yaml(text)
    except YamlProblem:
        data = None  # the file's own refusal says it, when it is built
    texts: list[NormText] = []
    for name in cited_names(data):
        beside = path.parent / name
        if name_problem(name) is None and beside.is_file():
            texts.append(NormText(name, _read_text(beside)))
        else:
            words = resolved(name, {})
            if words is not None:
                texts.append(NormText(name, words))
    return ProgramText(text, str(path), tuple(texts), f"junto al programa (en {path.parent})")


def load_program_file(path: Path) -> Program:
    return read_program_file(path).program()


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
    return read_program(program_id).program()


def installed(found: ProgramText) -> bool:
    """Whether the installed package has this program file and every text it cites, word
    for word (so whoever installs the same version can read the rules it runs under)."""
    if not all(t.shipped for t in found.texts):
        return False
    program_id = program_data(found.text, found.source).get("id")
    if program_id not in bundled_program_ids():
        return False
    return bool(read_program(str(program_id)).text == found.text)
