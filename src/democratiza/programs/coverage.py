"""How much of a decree's text a program file covers, provision by provision.

A decree's text is cut into its provisions as the text numbers them: its articles
(``ARTÍCULO 8°``), their numerals (``8.2.1.``), literals (``a.``) and parágrafos. A text
whose copy lost its numbers (a paragraph per line, no ``ARTÍCULO``) is cut into its
paragraphs, each named by its first words (``inc. «Cualquier aceptación…»``) or by the
numbers the program file gives it (``normas.X.numeracion``).

Each provision is then *cited* (a value of the file cites it or a part of it), *not
modelled* (a ``no_modelado`` entry cites it or a part of it) or *neither*: the program
office sees what of the decree it has not yet read into the file. Sources documents
(``.md``) are not decrees and are not mapped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from itertools import pairwise
from typing import Any

from democratiza.programs.schema import Program
from democratiza.programs.texts import resolved

_ARTICLE = re.compile(r"^ART[IÍ]CULO\s+(\d+)", re.IGNORECASE)
_PARAGRAPH = re.compile(r"^PAR[AÁ]GRAFO\b\s*(\w*)", re.IGNORECASE)
_NUMERAL = re.compile(r"^(\d+(?:\.\d+)+)\.?(?=\s)")
# A numeral that starts a sentence inside a paragraph ('… presentado. 8.5. Cualquier …'): a
# copy that ran the numerals together still numbers them.
_INLINE = re.compile(r"(?:^|(?<=[.:;] ))(\d+(?:\.\d+)+)\.?\s+(?=[A-ZÁÉÍÓÚÑ])")
_LITERAL = re.compile(r"^([a-z])[.)]\s")
# A number cited in a reference, with its literals: '8.1(a)(iii)', '11(a)', '6.4'.
_CITED = re.compile(r"(?<![\w.])(\d+(?:\.\d+)*)((?:\([a-z]+\))*)")
_QUOTED = re.compile(r"«([^»]+?)…?»")
_ORDINALS = {"primero", "segundo", "tercero", "cuarto", "quinto", "único", "unico"}
_OPENING_WORDS = 5


class Status(Enum):
    CITED = "citado"
    NOT_MODELLED = "no modelado"
    NEITHER = "ni citado ni declarado"


@dataclass(frozen=True)
class Provision:
    """One provision of a text: its name as a citation reads it, and its place in the text's
    numbering (``('8', '2', '1')``; ``('6', 'parágrafo')``; a paragraph's labels)."""

    label: str
    key: tuple[str, ...]
    opening: str
    labels: tuple[str, ...] = ()  # for a paragraph of an unnumbered copy: its numbers


@dataclass(frozen=True)
class Covered:
    provision: Provision
    status: Status
    refs: tuple[str, ...]  # the citations that cover it, as the file writes them


def _opening(line: str) -> str:
    words = line.split()
    shown = " ".join(words[:_OPENING_WORDS])
    return shown + ("…" if len(words) > _OPENING_WORDS else "")


def _paragraphs(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _segments(text: str) -> list[str]:
    """The paragraphs, each cut where a numeral starts a sentence inside it."""
    out: list[str] = []
    for line in _paragraphs(text):
        starts = [m.start() for m in _INLINE.finditer(line)]
        cuts = [0, *[s for s in starts if s > 0], len(line)]
        out.extend(line[a:b].strip() for a, b in pairwise(cuts) if line[a:b].strip())
    return out


def numbered(text: str) -> bool:
    """Whether the text numbers its provisions (else it is a copy of plain paragraphs)."""
    return any(_ARTICLE.match(line) or _NUMERAL.match(line) for line in _segments(text))


def provisions(
    text: str, numbering: Mapping[str, tuple[str, ...]] | None = None
) -> tuple[Provision, ...]:
    """The provisions of a text, in the text's order. ``numbering`` gives, for a copy that lost
    its numbers, each paragraph's numbers by its first words."""
    if not numbered(text):
        return tuple(_unnumbered(_paragraphs(text), numbering or {}))
    found: list[Provision] = []
    article: str | None = None
    parent: tuple[str, ...] = ()
    for line in _segments(text):
        if m := _ARTICLE.match(line):
            article = m.group(1)
            parent = (article,)
            found.append(Provision(f"art. {article}", parent, _opening(line)))
        elif m := _NUMERAL.match(line):
            parent = tuple(m.group(1).split("."))
            article = parent[0]
            found.append(Provision(f"art. {m.group(1)}", parent, _opening(line)))
        elif article is None:
            continue  # the heading and the considerations come before the articles
        elif m := _PARAGRAPH.match(line):
            which = m.group(1).lower()
            name = "parágrafo" + (f" {which}" if which in _ORDINALS else "")
            place: tuple[str, ...] = (article, "parágrafo")
            found.append(Provision(f"art. {article} {name}", place, _opening(line)))
        elif m := _LITERAL.match(line):
            key = (*parent, f"({m.group(1)})")
            found.append(Provision(f"art. {'.'.join(parent)}({m.group(1)})", key, _opening(line)))
    return tuple(found)


def _unnumbered(lines: list[str], numbering: Mapping[str, tuple[str, ...]]) -> Iterator[Provision]:
    """A paragraph per line; one with numbers is a provision per number (a number that runs
    over several paragraphs is one provision, at its first)."""
    seen: set[str] = set()
    for line in lines:
        # The longest first words that open the paragraph name it.
        opens = sorted((k for k in numbering if line.startswith(k)), key=len, reverse=True)
        labels = numbering[opens[0]] if opens else ()
        if not labels:
            yield Provision(f"inc. «{_opening(line)}»", (line,), _opening(line))
        for label in labels:
            if label not in seen:
                seen.add(label)
                yield Provision(label, (line,), _opening(line), (label,))


def unmatched_numbering(text: str, numbering: Mapping[str, tuple[str, ...]]) -> list[str]:
    """The first words of ``numeracion`` that open no paragraph of the text."""
    lines = _paragraphs(text)
    return [k for k in numbering if not any(line.startswith(k) for line in lines)]


def cited_keys(ref: str) -> set[tuple[str, ...]]:
    """The places a reference names in a numbered text: 'arts. 8.2.6, 9.4 y 10.2(e)' →
    {('8','2','6'), ('9','4'), ('10','2','(e)')}; 'art. 6.3 y parágrafo' adds ('6', 'parágrafo').
    What follows a ';' cites another norm and is left out."""
    own = ref.split(";")[0]
    keys: set[tuple[str, ...]] = set()
    for number, literals in _CITED.findall(own):
        keys.add((*number.split("."), *re.findall(r"\([a-z]+\)", literals)))
    if "parágrafo" in own.lower() and keys:
        first = min(keys, key=lambda k: own.find(".".join(k[:1])))
        keys.add((first[0], "parágrafo"))
    return keys


def _covers(cited: tuple[str, ...], key: tuple[str, ...]) -> bool:
    """A citation of a provision or of a part of it covers it; a citation of a numeral covers
    its literals too (they finish its sentence), but not its sub-numerals (8.2 is not 8.2.1)."""
    if cited[: len(key)] == key:
        return True
    rest = key[len(cited) :]
    return key[: len(cited)] == cited and all(part.startswith("(") for part in rest)


def _names(ref: str, provision: Provision) -> bool:
    """Whether a reference cites the provision or a part of it."""
    if not provision.labels:
        if any(provision.key[0].startswith(q.strip()) for q in _QUOTED.findall(ref)):
            return True
        if len(provision.key) == 1 and " " in provision.key[0]:
            return False  # an unnumbered paragraph is cited only by its words or numbers
        return any(_covers(k, provision.key) for k in cited_keys(ref))
    if any(provision.key[0].startswith(q.strip()) for q in _QUOTED.findall(ref)):
        return True
    return any(re.search(rf"(?<![\w.]){re.escape(x)}(?!\d)", ref) for x in provision.labels)


def citations(data: Any, norm: str) -> tuple[list[str], list[str]]:
    """The references to ``norm`` in a program file's data: by its values, and by its
    ``no_modelado`` entries."""
    values: list[str] = []
    declared: list[str] = []

    def walk(node: Any, into: list[str]) -> None:
        if isinstance(node, dict):
            if node.get("norma") == norm and isinstance(node.get("ref"), str):
                into.append(node["ref"])
            for key, child in node.items():
                walk(child, declared if key == "no_modelado" else into)
        elif isinstance(node, list):
            for child in node:
                walk(child, into)

    walk(data, values)
    return values, declared


def coverage(
    text: str, data: Any, norm: str, numbering: Mapping[str, tuple[str, ...]] | None = None
) -> tuple[Covered, ...]:
    """Each provision of a norm's text, and whether the file cites it, declares it not
    modelled, or neither."""
    values, declared = citations(data, norm)
    out: list[Covered] = []
    for provision in provisions(text, numbering):
        by_value = tuple(r for r in values if _names(r, provision))
        by_entry = tuple(r for r in declared if _names(r, provision))
        if by_value:
            out.append(Covered(provision, Status.CITED, by_value))
        elif by_entry:
            out.append(Covered(provision, Status.NOT_MODELLED, by_entry))
        else:
            out.append(Covered(provision, Status.NEITHER, ()))
    return tuple(out)


@dataclass(frozen=True)
class TextCoverage:
    """One decree text a program cites, and each of its provisions' coverage."""

    norm: str  # the norm's key in the file's ``normas``
    short: str  # its short name, as citations read it
    text: str  # the text's file name
    provisions: tuple[Covered, ...]

    @property
    def uncovered(self) -> tuple[Covered, ...]:
        return tuple(c for c in self.provisions if c.status is Status.NEITHER)


def program_coverage(
    program: Program, data: Any, beside: Mapping[str, str]
) -> tuple[TextCoverage, ...]:
    """The coverage of every decree text the program's norms cite (not its sources
    documents), in the order of ``normas``."""
    out: list[TextCoverage] = []
    for key, norm in program.norms.items():
        for name in norm.texts:
            words = resolved(name, beside)
            if name.endswith(".md") or words is None:
                continue
            found = coverage(words, data, key, norm.numbering)
            out.append(TextCoverage(key, norm.short, name, found))
    return tuple(out)


def _where(provision: Provision, text: str) -> str:
    """The text's file, and the provision's first words unless its name already quotes them."""
    named = provision.label.startswith("inc. «")
    return text if named else f"«{provision.opening}», {text}"


def uncovered_lines(found: tuple[TextCoverage, ...]) -> list[str]:
    """What ``programa validar`` warns about: each provision neither cited nor declared."""
    return [
        f"{t.short} {c.provision.label} ({_where(c.provision, t.text)}): ni un valor del "
        "archivo la cita ni está declarada en no_modelado; cítela donde se aplique o declárela "
        "en no_modelado con su razón."
        for t in found
        for c in t.uncovered
    ]
