"""Program files load, every value cites a declared norm, and bad files are refused by path."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest
import yaml
from pydantic import BaseModel

from democratiza.programs.loader import (
    ProgramFileError,
    bundled_program_ids,
    load_program,
    load_program_file,
)
from democratiza.programs.schema import Citation, Program
from democratiza.vocabulary import AmountSource

SOURCE = Path(__file__).parents[1] / "src/democratiza/programs/data/geb-2017.yaml"


def test_the_four_programs_ship() -> None:
    assert bundled_program_ids() == ["central-seguros-vida", "coltel-2018", "ebsa", "geb-2017"]


@pytest.mark.parametrize("program_id", bundled_program_ids())
def test_every_program_lists_what_it_does_not_model(program_id: str) -> None:
    program = load_program(program_id)
    assert program.not_modelled, "coverage must be visible"
    assert all(nm.reason for nm in program.not_modelled)


@pytest.mark.parametrize(
    ("program_id", "price", "cap"),
    [
        ("geb-2017", "2018.00", 3_184_458),
        ("coltel-2018", "2075.31", 5_541_347),
        ("ebsa", None, 122_122_301),
        ("central-seguros-vida", None, 367_800),
    ],
)
def test_prices_and_caps_from_the_decrees(program_id: str, price: str | None, cap: int) -> None:
    program = load_program(program_id)
    value = program.parameters["precio"].value
    assert (None if value is None else str(value)) == price
    assert cap in {r.cap_shares for r in program.limits}


def edited(tmp_path: Path, change: str, replacement: str) -> Path:
    text = SOURCE.read_text(encoding="utf-8")
    assert change in text
    path = tmp_path / "programa.yaml"
    path.write_text(text.replace(change, replacement, 1), encoding="utf-8")
    return path


def messages(path: Path) -> list[str]:
    with pytest.raises(ProgramFileError) as exc:
        load_program_file(path)
    return [f"{e.path}: {e.message}" for e in exc.value.errors]


def test_missing_citation_is_refused_with_its_path(tmp_path: Path) -> None:
    path = edited(
        tmp_path,
        "tope_acciones: 3184458\n    cita: {norma: d706, ref: art. 10.1}",
        "tope_acciones: 3184458",
    )
    assert messages(path) == ["limites[7].cita: falta este campo"]


def test_unknown_key_is_refused_with_its_path(tmp_path: Path) -> None:
    path = edited(tmp_path, "tope_acciones: 3184458", "tope_acciones: 3184458\n    topes: 1")
    assert messages(path) == ["limites[7].topes: clave desconocida"]


def test_citation_of_an_undeclared_norm(tmp_path: Path) -> None:
    path = edited(tmp_path, "{norma: d706, ref: art. 10.1}", "{norma: d999, ref: art. 10.1}")
    assert messages(path) == [
        "limites[7].cita.norma: la norma 'd999' no está declarada en 'normas'"
    ]


def test_unknown_amount_source(tmp_path: Path) -> None:
    path = edited(tmp_path, "fuentes: [limite_inversion]", "fuentes: [limite_inversiones]")
    admitted = ", ".join(f"'{s}'" for s in get_args(AmountSource))
    assert f"limites[6].base.fuentes[0]: valor no admitido (se admite: {admitted})" in messages(
        path
    )


def test_every_citation_in_every_program_names_a_declared_norm() -> None:
    for program_id in bundled_program_ids():
        program = load_program(program_id)
        data = yaml.safe_load(
            Path(__file__)
            .parents[1]
            .joinpath(f"src/democratiza/programs/data/{program_id}.yaml")
            .read_text(encoding="utf-8")
        )
        assert Program.model_validate(data) == program
        citations = _citations(program)
        assert citations and all(c.norm in program.norms and c.ref for c in citations)


def _citations(value: object) -> list[Citation]:
    if isinstance(value, Citation):
        return [value]
    if isinstance(value, BaseModel):
        return [c for name in type(value).model_fields for c in _citations(getattr(value, name))]
    if isinstance(value, dict):
        return [c for v in value.values() for c in _citations(v)]
    if isinstance(value, tuple):
        return [c for v in value for c in _citations(v)]
    return []


def test_validity_period_on_a_document_without_a_date_is_refused(tmp_path: Path) -> None:
    # A validity rule the engine could never check must not load silently.
    path = edited(
        tmp_path,
        "    cita: {norma: d706, ref: art. 8.1(a)(i)}",
        "    cita: {norma: d706, ref: art. 8.1(a)(i)}\n    vigencia_meses: 1",
    )
    assert messages(path) == [
        "documentos[0].vigencia_meses: el documento 'declaracion_renta' no lleva fecha"
    ]
