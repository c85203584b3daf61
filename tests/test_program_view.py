"""``democratiza programa ID`` shows every section of the file: each value, note and
citation the file writes can be read on the screen."""

from __future__ import annotations

import io
from datetime import date

import pytest
from pydantic import BaseModel
from rich.console import Console

from democratiza.cli.program_view import show_program
from democratiza.programs.loader import bundled_program_ids, load_program
from democratiza.programs.schema import Citation, Program
from democratiza.rules.explain import cite
from democratiza.words import WORDS

# Written in the file for the engine, not for a reader: shown through what they mean.
NOT_SHOWN_AS_WRITTEN = {
    ("AmountBase", "combine"),  # «el mayor de», «el primero presentado de»
    ("WindowStart", "value"),  # «el día hábil siguiente al aviso»
    ("NewManagers", "linked_on"),  # «vinculados el día hábil anterior al vencimiento…»
    ("CpiAdjustment", "since"),  # «desde el aviso de la Primera Etapa»
    ("Fines", "reference_date"),  # «fecha de enajenación»
}
BOX = {ord(c): " " for c in map(chr, range(0x2500, 0x2580))}  # the tables' lines


def screen(program: Program) -> str:
    out = io.StringIO()
    show_program(Console(file=out, width=20_000, color_system=None), program)
    return " ".join(out.getvalue().translate(BOX).split())


def written(program: Program) -> list[str]:
    """Every text the file writes, citations as ``democratiza`` cites them."""

    def walk(value: object, where: tuple[str, str]) -> list[str]:
        if isinstance(value, Citation):
            return [cite(program, value)]
        if isinstance(value, BaseModel):
            owner = type(value).__name__
            return [
                t for n in type(value).model_fields for t in walk(getattr(value, n), (owner, n))
            ]
        if isinstance(value, dict):
            return [*value, *(t for v in value.values() for t in walk(v, where))]
        if isinstance(value, tuple):
            return [t for v in value for t in walk(v, where)]
        if isinstance(value, str) and where not in NOT_SHOWN_AS_WRITTEN:
            return [value]
        return []

    return walk(program, ("", ""))


@pytest.mark.parametrize("program_id", bundled_program_ids())
def test_every_section_value_note_and_citation_is_shown(program_id: str) -> None:
    program = load_program(program_id)
    shown = screen(program)
    assert [t for t in written(program) if not is_shown(t, shown)] == []


def is_shown(text: str, shown: str) -> bool:
    """A value is on the screen as written, or, if it is one of the family's codes (a
    method, a remainder rule, a figure, a person type), as the word a reader reads for it."""
    if " ".join(text.split()) in shown:
        return True
    words = [kind[text] for kind in WORDS.values() if text in kind]
    return any(v in shown for w in words for v in (w, w.lower(), w[:1].upper() + w[1:]))


@pytest.mark.parametrize("program_id", bundled_program_ids())
def test_every_section_of_the_file_is_titled_by_its_key(program_id: str) -> None:
    program = load_program(program_id)
    shown = screen(program)
    keys = [
        field.alias or name
        for name, field in Program.model_fields.items()
        if name not in ("id", "name", "version")
    ]
    assert [k for k in keys if k not in shown] == []


def test_geb_shows_its_credit_lines_default_interest_and_later_stages() -> None:
    shown = screen(load_program("geb-2017"))
    for line in (
        "Financiación mínima 10 % Decreto 706/2017 arts. 6.4 y 7, inciso primero",
        "Intereses de mora (multas.intereses_mora): Tasa más alta legalmente permitida",
        "Pagos parciales (multas.pagos_parciales): Primero a los intereses de mora causados",
        "Ineficacia de la adquisición contraria al programa (ineficacia): Ley 226/1995 art. 14 "
        "inciso 2; Decreto 706/2017 arts. 8.2.6, 9.4 y 11.4",
        "Ajuste por IPC (ajuste_ipc) cada seis meses desde el aviso de la Primera Etapa.",
        "contados desde el día hábil siguiente al aviso (Decreto 706/2017 arts. 4 y 6.1)",
        "Directivos nuevos (validez.directivos_nuevos): vinculados el día hábil anterior al "
        "vencimiento del plazo (Decreto 706/2017 art. 8.2.4)",
    ):
        assert line in shown, line
    assert date(2017, 12, 20).isoformat() in shown  # the decree's date, with its norm
