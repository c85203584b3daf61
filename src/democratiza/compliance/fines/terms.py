"""What a program's ``multas`` section says (``FineTerms``), and the base per share.

The base is the greatest of the values the program lists (GEB art. 11(a)–(c); Central de
Seguros, inciso of fines): the acquisition price, the consideration obtained, the seller's
price in the Segunda Etapa. A value not known yet is not compared; ties go to the first the
program lists.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from democratiza.money import pesos
from democratiza.programs.schema import (
    FineAdjustment,
    FineBand,
    FineBaseKey,
    Program,
    missing_section,
)
from democratiza.rules.explain import cite
from democratiza.words import word

BASE_LABELS: dict[FineBaseKey, str] = {
    "precio_adquisicion": "precio de adquisición por acción",
    "contraprestacion": "precio u otra contraprestación obtenida por acción",
    "precio_segunda_etapa": "precio por acción del vendedor en la Segunda Etapa",
}


class FineError(ValueError):
    """A fine that cannot be computed as asked; the message (Spanish) says why."""


@dataclass(frozen=True)
class FineTerms:
    """What a program's ``multas`` section says, in the form the computation needs."""

    program_name: str  # as its file names it, for what a person reads
    program_called: str  # as a sentence names it (``Program.called``), never by its id
    bands: tuple[FineBand, ...]
    base_keys: tuple[FineBaseKey, ...]
    base_texts: tuple[str, ...]  # the program's own words for each base, same order
    reference: Literal["enajenacion", "adjudicacion"]  # the date the six months count from
    reference_label: str  # its word: "fecha de enajenación" / "fecha de adjudicación"
    adjustment: FineAdjustment
    default_interest: bool  # interest at the highest legal rate on top (GEB art. 11)
    # Where each rule is written ("Decreto 706/2017 art. 11(a)"), for statements.
    base_citations: tuple[str, ...]  # same order as base_keys
    base_rule_citation: str  # where the program says the greatest base is taken
    band_citations: tuple[str, ...]  # same order as bands
    adjustment_citation: str
    interest_citation: str | None
    payments_citation: str | None

    def band_citation(self, band: FineBand) -> str:
        """The citation of one of this program's bands."""
        for own, citation in zip(self.bands, self.band_citations, strict=True):
            if own == band:
                return citation
        raise FineError(f"{self.program_called} no tiene un tramo del {band.percent} %.")

    @classmethod
    def from_program(cls, program: Program) -> FineTerms:
        fines = program.fines
        if fines is None:
            raise FineError(missing_section(program, "multas", "calcular una multa"))
        missing = [
            key
            for key, value in (
                ("las bases de la multa", fines.base_keys),
                ("la fecha desde la que se ajusta", fines.reference_date),
                ("el método de ajuste", fines.adjustment_method),
                ("la regla que elige la base", fines.base_rule),
            )
            if value is None
        ]
        if missing:
            raise FineError(
                f"{program.called} no permite calcular multas: le faltan {', '.join(missing)}."
            )
        assert fines.base_keys is not None and fines.reference_date is not None
        assert fines.adjustment_method is not None and fines.base_rule is not None
        if fines.adjustment_method == "ipc_1_enero" and fines.default_interest is None:
            raise FineError(
                missing_section(
                    program, "multas.intereses_mora", "calcular una multa que se ajusta por IPC"
                )
            )

        return cls(
            program_name=program.name,
            program_called=program.called,
            bands=fines.bands,
            base_keys=fines.base_keys,
            base_texts=tuple(b.value for b in fines.base_values),
            reference=fines.reference_date,
            reference_label=word("fecha_referencia_multa", fines.reference_date),
            adjustment=fines.adjustment_method,
            default_interest=fines.default_interest is not None,
            base_citations=tuple(cite(program, b.citation) for b in fines.base_values),
            base_rule_citation=cite(program, fines.base_rule.citation),
            band_citations=tuple(cite(program, b.citation) for b in fines.bands),
            adjustment_citation=cite(program, fines.adjustment.citation),
            interest_citation=(
                None
                if fines.default_interest is None
                else cite(program, fines.default_interest.citation)
            ),
            payments_citation=(
                None
                if fines.partial_payments is None
                else cite(program, fines.partial_payments.citation)
            ),
        )


@dataclass(frozen=True)
class BaseCandidate:
    key: FineBaseKey
    text: str
    centavos: int | None  # None: not known (e.g. no Segunda Etapa price yet)


@dataclass(frozen=True)
class FineBase:
    """The base per share: the greatest known candidate (ties: the first the program lists)."""

    candidates: tuple[BaseCandidate, ...]
    chosen: BaseCandidate

    @property
    def centavos(self) -> int:
        assert self.chosen.centavos is not None
        return self.chosen.centavos

    def explain(self) -> str:
        parts = [
            f"{BASE_LABELS[c.key]}: "
            + ("sin valor conocido, no se compara" if c.centavos is None else pesos(c.centavos))
            for c in self.candidates
        ]
        return (
            f"Base por acción, la mayor de: {'; '.join(parts)}. "
            f"Se toma {pesos(self.centavos)} ({BASE_LABELS[self.chosen.key]})."
        )


def fine_base(terms: FineTerms, values: Mapping[FineBaseKey, int | None]) -> FineBase:
    """The greatest of the values the program lists (centavos per share; None = unknown),
    as its ``regla_base`` says (``mayor``, the only rule the decrees use)."""
    unknown = [k for k in values if k not in terms.base_keys]
    if unknown:
        raise FineError(
            f"{terms.program_called} no usa como base: "
            + ", ".join(BASE_LABELS[k] for k in unknown)
        )
    candidates = []
    for key, text in zip(terms.base_keys, terms.base_texts, strict=True):
        if key not in values:
            raise FineError(
                f"Falta el valor de la base '{BASE_LABELS[key]}' ({text}); "
                "si no se conoce, indíquelo como desconocido."
            )
        value = values[key]
        if value is not None and value < 0:
            raise FineError(f"La base '{BASE_LABELS[key]}' no puede ser negativa.")
        candidates.append(BaseCandidate(key, text, value))
    known = [c for c in candidates if c.centavos is not None]
    if not known:
        raise FineError("Ninguna base de la multa tiene valor conocido.")
    top = max(c.centavos for c in known if c.centavos is not None)
    chosen = next(c for c in known if c.centavos == top)
    return FineBase(tuple(candidates), chosen)
