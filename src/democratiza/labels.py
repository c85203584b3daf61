"""The one place that turns an identifier into what a person reads.

A program's own names come from its file (its limits, documents and undertakings have a
``nombre`` or a ``texto``, with its article); everything else is the family's word
(``words``): categories, methods, remainder rules, states, mechanisms, payment methods…;
an offer's parameters are named by ``programs.parameters``, and a field of the acceptance
file by its description in ``tables.acceptances``. Pages, reports, command-line tables and
the headers of files for people all go through here, so no identifier reaches a reader
where its word belongs.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from democratiza.programs.parameters import PARAMETERS
from democratiza.programs.schema import LaterStages, Program
from democratiza.rules.explain import cite
from democratiza.tables.acceptances import BY_NAME
from democratiza.words import word


def label(kind: str, ident: object, program: Program | None = None) -> str:
    """The word for ``ident`` of ``kind``: the program's name where it has one, else the
    family's word; an identifier neither knows is shown as it is (never guessed)."""
    if ident is None or ident == "":
        return "—"
    key = str(ident)
    if program is not None:
        named = _program_name(program, kind, key)
        if named is not None:
            return named
    if kind == "parametro" and key in PARAMETERS:
        return _first_upper(PARAMETERS[key].label)
    if kind == "campo" and key in BY_NAME:
        return BY_NAME[key].description
    return word(kind, key)


def first_stage_name(program: Program) -> str:
    """The Primera Etapa as the program file calls it ("Primera Fase" in Central's), or the
    family's word where the file does not say."""
    return program.first_stage.value if program.first_stage else word("etapa", "primera")


def frame_in_words(
    frame: pl.DataFrame, kinds: Mapping[str, str], program: Program | None = None
) -> pl.DataFrame:
    """``frame`` with each coded column of ``kinds`` (column → kind) in the words a person
    reads (``label``), for a file people open (an XLSX); a CSV keeps the codes. An empty
    cell stays empty. A column of codes may be text, an Enum or a Categorical: each comes
    out as text in words."""
    for column, kind in kinds.items():
        if column not in frame.columns:
            continue
        codes = frame[column].cast(pl.String).drop_nulls().unique().to_list()
        words = {code: label(kind, code, program) for code in codes}
        frame = frame.with_columns(pl.col(column).cast(pl.String).replace(words))
    return frame


def _program_name(program: Program, kind: str, key: str) -> str | None:
    if kind == "regla":
        return next((r.name for r in program.limits if r.id == key), None)
    if kind == "documento":
        return next((d.name for d in program.documents if d.id == key), None)
    if kind == "compromiso":
        pledges = [*program.undertakings, program.sworn_statement]
        return next((u.text for u in pledges if u is not None and u.id == key), None)
    return None


def rule_cited(program: Program, rule_id: object) -> str:
    """A limit as its decree names it, with its article: 'Una vez el patrimonio líquido
    (Decreto 706/2017 art. 8.2.1)'; '—' for none."""
    if rule_id is None or rule_id == "":
        return "—"
    found = next((r for r in program.limits if r.id == str(rule_id)), None)
    if found is None:
        return str(rule_id)
    return f"{found.name} ({cite(program, found.citation)})"


def _first_upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def later_stage_payments(program: Program, later: LaterStages) -> str:
    """How a later stage's shares are paid, in words with the article that says so, to read
    inside a sentence: 'de contado (Ley 226/1995 art. 11)'."""
    rule = later.payments
    ways = " o ".join(word("forma_pago", m).lower() for m in rule.methods)
    return f"{ways} ({cite(program, rule.citation)})"
