"""What a member of the public, a broker or an auditor reads never speaks of the project
itself: not "fuentes.md §3" (the source is given in words, "Fuentes de los programas §3"),
"decisión de producto", "nuestro texto" or "el motor".

Looked for where those texts are written: every text of a bundled program file a person
reads (notes, reasons, values, citations; not ``fuente``/``texto``, which name files), the
pages' templates, the shipped series' sources, and the string literals of the code that
writes pages, reports, explanations and messages (not its docstrings or comments). The
browser sweep (``tests/browser/test_every_page.py``) looks for them on every page.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import get_args

import pytest
import yaml

from democratiza.programs.loader import bundled_program_ids, load_program
from democratiza.programs.schema import SECTION_WORDS, Section, missing_section
from democratiza.rules.explain import cite
from tests.identifiers import internal_words

PACKAGE = Path(__file__).parents[1] / "src" / "democratiza"
FILE_NAMES = {"fuente", "texto"}  # where a norm's words are: a file, not a text to read
# The code whose strings reach the public, brokers and auditors, and the command line they
# read too (a program file's author reads ``programs``' own messages, which name the sources
# file to write).
READ_BY_PEOPLE = (
    "web",
    "reports",
    "rules",
    "stages",
    "compliance",
    "adjudication",
    "allocation",
    "filing",
    "offers",
    "verification",
    "design",
    "cli",
    "tables",
    "labels.py",
    "words.py",
    "vocabulary.py",
    "money.py",
    "validation_messages.py",
)


def _texts(data: object, key: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(data, dict):
        for k, v in data.items():
            if k not in FILE_NAMES:
                yield from _texts(v, f"{key}.{k}" if key else str(k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _texts(v, f"{key}[{i}]")
    elif isinstance(data, str):
        yield key, data


@pytest.mark.parametrize("program_id", bundled_program_ids())
def test_a_program_file_speaks_of_the_decree_not_of_the_project(program_id: str) -> None:
    path = PACKAGE / "programs" / "data" / f"{program_id}.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    found = [f"{key}: {p}" for key, text in _texts(data) for p in internal_words(text)]
    assert not found, "\n".join(found)


def test_a_rule_taken_from_the_sources_document_cites_it_in_words() -> None:
    program = load_program("central-seguros-vida")
    assert cite(program, program.allocation.citation) == "Fuentes de los programas §3"


def _literals(path: Path) -> Iterator[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        ):
            yield node.lineno, node.value


def _files() -> Iterator[Path]:
    for name in READ_BY_PEOPLE:
        root = PACKAGE / name
        yield from sorted(root.rglob("*")) if root.is_dir() else [root]


def test_no_page_report_or_message_speaks_of_the_project() -> None:
    found = []
    for path in _files():
        where = path.relative_to(PACKAGE)
        if path.suffix == ".py":
            for line, text in _literals(path):
                found += [f"{where}:{line}: {p}" for p in internal_words(text)]
        elif path.suffix in (".html", ".csv", ".js", ".yaml"):
            text = path.read_text(encoding="utf-8")
            found += [f"{where}: {p}" for p in internal_words(text)]
    assert not found, "\n".join(found)


# A file key as the author writes it: words joined by a dot or an underscore
# (``ventana.desde``, ``lineas_credito``); a citation's "art. 8.2.1" is not one.
FILE_KEY = re.compile(r"(?<![\w./§-])[a-z][a-z0-9]*(?:[._][a-z][a-z0-9]*)+(?![\w/-])")


@pytest.mark.parametrize("program_id", bundled_program_ids())
def test_a_program_files_sentences_name_no_file_key(program_id: str) -> None:
    """A reason, a note or a rule in words (any text with a space, which an identifier never
    has) is read by the public on the pages and in ``programa``: it says "la fecha de inicio
    del plazo de aceptación", not ``ventana.desde``."""
    path = PACKAGE / "programs" / "data" / f"{program_id}.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    found = [
        f"{key}: {k}" for key, text in _texts(data) if " " in text for k in FILE_KEY.findall(text)
    ]
    assert not found, "\n".join(found)


def test_the_file_key_check_finds_a_dotted_key_and_spares_a_citation() -> None:
    assert FILE_KEY.findall("como en los decretos de la familia (ventana.desde).") == [
        "ventana.desde"
    ]
    assert FILE_KEY.findall("Las condiciones (lineas_credito) son") == ["lineas_credito"]
    assert FILE_KEY.findall("Decreto 706/2017 art. 8.2.1 y fuentes.md §3") == ["fuentes.md"]
    assert FILE_KEY.findall("la fecha de inicio del plazo de aceptación (art. 3.1)") == []


def test_a_missing_section_is_told_in_the_decrees_words() -> None:
    program = load_program("central-seguros-vida")
    told = missing_section(program, "etapas_siguientes.ajuste_ipc", "ajustar el precio")
    assert told.startswith(
        "El programa de enajenación de acciones de Fogafín en la Compañía Central de Seguros de "
        "Vida S.A. (Primera Fase) no trae el ajuste del precio mínimo por IPC: "
    )
    assert "ajuste_ipc" not in told and "central-seguros-vida" not in told
    assert set(SECTION_WORDS) == set(get_args(Section))  # every section has its words
