"""The norms' texts a program cites: shipped inside the package (``programs/normas/``), or
written by the program office beside its own program file.

A program file names, for each norm it cites, the text it implements (``texto``) or the
sources document that says where the norm is published (``fuente: fuentes.md §2``). Either
is a file name: a text of the package's, or a path relative to the program file's folder
(``texto: decreto-207-2017.txt``, ``fuente: mis-fuentes.md §3``), so an office writes a new
decree's program in its own folder and never edits the installed package. A sources document
is a Markdown file whose sections are ``## §N.`` headings; a reference ``§N`` must name one.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import PurePosixPath

SOURCES = "fuentes.md"  # the package's sources document: facts from elsewhere, and decisions
_SECTION_HEADING = re.compile(r"^## §(\d+)\.", re.MULTILINE)
_SECTION_REF = re.compile(r"^§(\d+)\b")
# ``fuente``: a file name, and the section of it that says where the norm is published.
SOURCE_PATTERN = re.compile(r"^(?P<file>[^\s§]+)(?:\s+§(?P<section>\d+))?$")
HOW_TO_CITE = (
    "un texto propio se cita por su ruta relativa a la carpeta del archivo de programa "
    "(p. ej. 'texto: mi-decreto.txt', con mi-decreto.txt junto al programa)"
)


@dataclass(frozen=True)
class NormText:
    """A text a program cites, by the name the file gives it, and its exact words."""

    name: str
    text: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    @property
    def shipped(self) -> bool:
        """Whether the installed package has this very text under this name."""
        return shipped_text(self.name) == self.text


def folder() -> Traversable:
    """Where the texts are, in the installed package."""
    return resources.files("democratiza.programs").joinpath("normas")


@lru_cache(maxsize=1)
def shipped_texts() -> tuple[str, ...]:
    """The file names of the shipped texts, sorted."""
    return tuple(sorted(f.name for f in folder().iterdir() if f.is_file()))


@lru_cache(maxsize=16)
def shipped_text(name: str) -> str | None:
    """A shipped text's words, or None if the package has no text of that name."""
    if name not in shipped_texts():
        return None
    return folder().joinpath(name).read_text(encoding="utf-8")


def sections_of(text: str) -> frozenset[str]:
    """The section numbers of a sources document, from its ``## §N.`` headings."""
    return frozenset(_SECTION_HEADING.findall(text))


def source_sections() -> frozenset[str]:
    """The section numbers of the package's sources document."""
    text = shipped_text(SOURCES)
    assert text is not None, "the package ships its sources document"
    return sections_of(text)


def cited_section(ref: str) -> str | None:
    """The section a reference names (``'§5 (tramos usuales…)'`` → ``'5'``), or None."""
    found = _SECTION_REF.match(ref.strip())
    return found.group(1) if found else None


def source_file(source: str) -> tuple[str, str | None] | None:
    """``'fuentes.md §2'`` → ``('fuentes.md', '2')``; ``'mi-decreto.txt'`` → (name, None)."""
    found = SOURCE_PATTERN.match(source.strip())
    return (found["file"], found["section"]) if found else None


def name_problem(name: str) -> str | None:
    """Why a text's name cannot be a path inside the program's folder, or None."""
    path = PurePosixPath(name)
    if "\\" in name or path.is_absolute() or ".." in path.parts or not path.parts:
        return f"'{name}' no es una ruta dentro de la carpeta del programa; {HOW_TO_CITE}"
    return None


def resolved(name: str, beside: Mapping[str, str]) -> str | None:
    """A cited text's words: the file beside the program first, then the package's."""
    return beside[name] if name in beside else shipped_text(name)
