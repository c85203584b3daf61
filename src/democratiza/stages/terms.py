"""The terms of one Segunda Etapa (or later stage), and its minimum price.

The decree gives the rules (``etapas_siguientes`` in the program file: who may buy, the price
floor, when a stage is void); the reglamento and the stage's aviso give the figures, which
the program office writes in a stage file (``examples/primera-etapa/segunda-etapa.yaml``):
window, mechanism, minimum price, its CPI adjustment, minimum order, lot, and the tranche cap.

**Minimum price.** Never below the Primera Etapa's fixed price (Ley 226 art. 10; GEB
art. 3.2 and 15.1): a stage file asking for less is refused. Without a figure, the Primera
Etapa price is the minimum. Where the program file allows it (``etapas_siguientes.ajuste_ipc``,
with its citation: GEB 2018's reglamento, fuentes.md §4) the minimum may be adjusted by CPI
every six months from the Primera Etapa's aviso: each six-month period that has ended by the
stage's aviso multiplies it by (1 + CPI variation of that period); the stage file lists the
variations with their source, and a period without one stops the computation, naming it
(nothing is interpolated). A program whose file does not allow it refuses a stage file that
asks for it. The adjusted price is rounded **up** to the centavo, so the
minimum never falls below the adjusted figure.

**Tranche cap.** A first tranche capped at a percentage of the shares available (GEB 2018's
"capa 1": 12.52 % of the aviso) offers ``⌊available × percentage / 100⌋`` shares; what the
cap holds back passes, with what is not sold, to the next stage.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from fractions import Fraction
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from democratiza.calendar import add_months
from democratiza.money import MoneyError, parse_shares, pesos, to_centavos
from democratiza.programs.schema import LaterStages, Program, missing_section
from democratiza.vocabulary import Mechanism


class StageError(Exception):
    """A stage that cannot be created or moved as asked; the message is for the user."""


class CpiPeriod(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    period: int = Field(alias="semestre", ge=1)  # 1 = the first six months after the aviso
    change_percent: Decimal = Field(alias="variacion")  # may be negative (deflation)
    source: str = Field(alias="fuente", min_length=1)


def _typed_shares(value: object) -> object:
    """A share count typed in the form or the terms file with or without thousands dots
    ("40.000"), as every other share count (``money.parse_shares``)."""
    if isinstance(value, str):
        try:
            return parse_shares(value)
        except MoneyError as exc:
            raise ValueError(str(exc)) from None
    return value


# A share count of a stage's terms: a whole number, written or typed as text.
Shares = Annotated[int, BeforeValidator(_typed_shares), Field(ge=1)]


class StageTerms(BaseModel):
    """A stage file, as the program office writes it (Spanish keys)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    mechanism: Mechanism = Field(alias="mecanismo")
    announced: date = Field(alias="fecha_aviso")
    opens: date = Field(alias="fecha_apertura")
    closes: date = Field(alias="fecha_cierre")
    minimum_price: Decimal | None = Field(default=None, alias="precio_minimo", gt=0)
    cpi_adjustment: tuple[CpiPeriod, ...] | None = Field(default=None, alias="ajuste_ipc")
    minimum_order: Shares = Field(default=1, alias="orden_minima")
    lot: Shares = Field(default=1, alias="lote")
    tranche_cap_percent: Decimal | None = Field(default=None, alias="tope_porcentaje", gt=0, le=100)
    source: str = Field(alias="fuente", min_length=1)  # the reglamento / aviso it comes from

    @model_validator(mode="after")
    def _consistent(self) -> StageTerms:
        if not self.announced <= self.opens <= self.closes:
            raise ValueError("las fechas deben cumplir fecha_aviso ≤ fecha_apertura ≤ fecha_cierre")
        if self.cpi_adjustment is not None:
            periods = [p.period for p in self.cpi_adjustment]
            if len(set(periods)) != len(periods):
                raise ValueError("ajuste_ipc repite un semestre")
        return self


@dataclass(frozen=True)
class MinimumPrice:
    """The stage's minimum price in centavos, and how it was reached (Spanish, for the record)."""

    centavos: int
    steps: tuple[str, ...]


def rules(program: Program) -> LaterStages:
    """The program file's rules for later stages, or a refusal naming what is missing."""
    if program.later_stages is None:
        raise StageError(missing_section(program, "etapas_siguientes", "crear una Segunda Etapa"))
    return program.later_stages


def minimum_price(
    program: Program, first_price: int, first_announced: date, terms: StageTerms
) -> MinimumPrice:
    """The minimum price: the floor, the stage file's figure, then the CPI adjustment."""
    floor_rule = rules(program).minimum_price
    cite = program.cite(floor_rule.citation)
    cpi_rule = rules(program).cpi_adjustment
    if terms.cpi_adjustment is not None and cpi_rule is None:
        why = "pedir ese ajuste en los términos de la etapa"
        raise StageError(missing_section(program, "etapas_siguientes.ajuste_ipc", why))
    steps = [f"Precio fijo de la Primera Etapa: {pesos(first_price)}."]
    base = first_price
    if terms.minimum_price is not None:
        asked = to_centavos(terms.minimum_price)
        if asked < first_price:
            raise StageError(
                f"El precio mínimo {pesos(asked)} es inferior al precio de la Primera Etapa "
                f"{pesos(first_price)}: {floor_rule.value} ({cite})."
            )
        base = asked
        steps.append(f"Precio mínimo del aviso ({terms.source}): {pesos(asked)}.")
    else:
        steps.append(f"El aviso no fija otro: el mínimo es el de la Primera Etapa ({cite}).")
    if terms.cpi_adjustment is None or cpi_rule is None:
        return MinimumPrice(base, tuple(steps))
    where = program.cite(cpi_rule.citation)
    steps.append(f"Ajuste por IPC cada seis meses desde el aviso de la Primera Etapa ({where}).")
    elapsed = 0
    while add_months(first_announced, 6 * (elapsed + 1)) <= terms.announced:
        elapsed += 1
    given = {p.period: p for p in terms.cpi_adjustment}
    value = Fraction(base)
    for period in range(1, elapsed + 1):
        start = add_months(first_announced, 6 * (period - 1))
        end = add_months(first_announced, 6 * period)
        found = given.get(period)
        if found is None:
            raise StageError(
                f"Falta la variación del IPC del semestre {period} ({start} a {end}) para "
                "ajustar el precio mínimo; no se interpola."
            )
        value *= 1 + Fraction(found.change_percent) / 100
        steps.append(
            f"Semestre {period} ({start} a {end}): IPC {found.change_percent} % "
            f"({found.source}) → {pesos(value)}."
        )
    adjusted = -((-value.numerator) // value.denominator)  # up to the centavo
    if adjusted < first_price:  # deflation never takes it below the floor
        adjusted = first_price
        steps.append(f"El ajuste no puede bajar del precio de la Primera Etapa ({cite}).")
    if elapsed == 0:
        steps.append("No ha terminado ningún semestre desde el aviso: sin ajuste por IPC.")
    steps.append(f"Precio mínimo de la etapa: {pesos(adjusted)}.")
    return MinimumPrice(adjusted, tuple(steps))


def shares_on_offer(available: int, terms: StageTerms) -> int:
    """The shares this stage offers: all available, or the tranche cap's part of them."""
    if terms.tranche_cap_percent is None:
        return available
    capped = Fraction(available) * Fraction(terms.tranche_cap_percent) / 100
    return int(capped)  # floor: a cap is never exceeded


StageState = Literal["borrador", "abierta", "cerrada", "adjudicada", "desierta", "publicada"]
NEXT: dict[str, str] = {
    "borrador": "abierta",
    "abierta": "cerrada",
    "cerrada": "adjudicada",
    "adjudicada": "publicada",
}
