"""The norms' texts shipped inside the package (``programs/normas/``) and the sources document.

A program file names, for each norm it cites, the shipped text it implements (``texto``) or
the section of the sources document that says where the norm is published (``fuente:
fuentes.md §2``). The loader checks both against what is shipped here, so every citation of
an installed program can be followed to its words without leaving the package.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable

SOURCES = "fuentes.md"  # the sources document: facts from elsewhere, and product decisions
_SECTION_HEADING = re.compile(r"^## §(\d+)\.", re.MULTILINE)
_SECTION_REF = re.compile(r"^§(\d+)\b")


def folder() -> Traversable:
    """Where the texts are, in the installed package."""
    return resources.files("democratiza.programs").joinpath("normas")


@lru_cache(maxsize=1)
def shipped_texts() -> tuple[str, ...]:
    """The file names of the shipped texts, sorted."""
    return tuple(sorted(f.name for f in folder().iterdir() if f.is_file()))


@lru_cache(maxsize=1)
def source_sections() -> frozenset[str]:
    """The section numbers of the sources document, from its ``## §N.`` headings."""
    text = folder().joinpath(SOURCES).read_text(encoding="utf-8")
    return frozenset(_SECTION_HEADING.findall(text))


def cited_section(ref: str) -> str | None:
    """The section a reference names (``'§5 (tramos usuales…)'`` → ``'5'``), or None."""
    found = _SECTION_REF.match(ref.strip())
    return found.group(1) if found else None
