"""The conditions a program sets for its credit lines, and a credit line as proposed.

The Primera Etapa opens only once one or several credit lines exist (GEB art. 6.4) that
together offer at least 10 % of the value of the shares offered, with (GEB art. 7, which
follows Ley 226 de 1995 art. 11.3):

- 7.1 a total term of at least five years (60 months), the capital grace included;
- 7.2 a capital grace of at least one year (12 months); the interest of the grace may be
  capitalised, to be paid with the capital instalments, or paid as it falls due;
- 7.3 a rate not above the interés bancario corriente certified by the Superintendencia
  Financiera and in force on the day the credit is granted;
- 7.4 the shares bought with the credit admissible as collateral, valued at the fixed price
  (initial or adjusted).

The figures (10 %, 60 months, 12 months) and their citations come from the program file's
``lineas_credito`` section (``CreditTerms.from_program``); where our text of a decree lacks
its credit-line article the file cites Ley 226 art. 11 num. 3 itself, the law every program
must respect.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Literal

from democratiza.money import decimal_percent
from democratiza.offers.readiness import credit_lines_missing
from democratiza.programs.schema import Program


class CreditError(ValueError):
    """A credit line or a schedule that cannot be checked or built as given (Spanish)."""


CreditRuleId = Literal[
    "financiacion_minima", "plazo_minimo", "gracia_minima", "tasa_maxima", "garantia_acciones"
]


@dataclass(frozen=True)
class CreditRule:
    """One condition of the credit lines: its figure (if it has one) and where it is written."""

    id: CreditRuleId
    minimum: int | None  # % of the offer's value, or months; None: no figure (rate, collateral)
    citation: str


@dataclass(frozen=True)
class CreditTerms:
    """A program's conditions for its credit lines, read from its program file."""

    program_id: str
    rules: tuple[CreditRule, ...]

    @classmethod
    def from_program(cls, program: Program) -> CreditTerms:
        """The program file's ``lineas_credito``, each figure with its citation."""
        lines = program.credit_lines
        if lines is None:
            raise CreditError(credit_lines_missing(program))

        return cls(
            program.id,
            (
                CreditRule(
                    "financiacion_minima",
                    lines.minimum_financing_percent.value,
                    program.cite(lines.minimum_financing_percent.citation),
                ),
                CreditRule(
                    "plazo_minimo",
                    lines.minimum_term_months.value,
                    program.cite(lines.minimum_term_months.citation),
                ),
                CreditRule(
                    "gracia_minima",
                    lines.minimum_grace_months.value,
                    program.cite(lines.minimum_grace_months.citation),
                ),
                CreditRule("tasa_maxima", None, program.cite(lines.maximum_rate)),
                CreditRule("garantia_acciones", None, program.cite(lines.share_collateral)),
            ),
        )

    def rule(self, rule_id: CreditRuleId) -> CreditRule:
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        raise CreditError(
            f"Las condiciones de crédito del programa {self.program_id} no traen la regla "
            f"'{rule_id}'."
        )

    def minimum(self, rule_id: CreditRuleId) -> int:
        value = self.rule(rule_id).minimum
        if value is None:
            raise CreditError(
                f"La regla '{rule_id}' del programa {self.program_id} no tiene cifra mínima."
            )
        return value


# How the lender takes the shares bought with the credit as collateral (art. 7.4).
ShareCollateral = Literal["precio_fijo", "otro_valor", "no_admitidas"]


@dataclass(frozen=True)
class CreditLine:
    """A proposed credit line, as the lender states it."""

    lender: str
    available_centavos: int  # the whole financing the line makes available
    term_months: int  # total amortisation term, the capital grace included
    grace_months: int  # capital grace
    rate_ea: Decimal  # efectivo anual, as a fraction: 0.18 is 18 %
    granted: date  # the day the credit is granted (the IBC in force that day caps the rate)
    capitalise_grace_interest: bool  # False: the grace interest is paid monthly
    share_collateral: ShareCollateral

    def __post_init__(self) -> None:
        problems = line_problems(
            self.lender, self.available_centavos, self.term_months, self.grace_months, self.rate_ea
        )
        if problems:
            raise CreditError(
                f"Línea de crédito de {self.lender or '?'}: " + "; ".join(m for _, m in problems)
            )


# The part of a credit line a problem is about, by the name of its ``CreditLine`` field.
LineField = Literal["lender", "available_centavos", "term_months", "grace_months", "rate_ea"]


def line_problems(
    lender: str | None,
    available_centavos: int | None,
    term_months: int | None,
    grace_months: int | None,
    rate_ea: Decimal | None,
) -> list[tuple[LineField, str]]:
    """What is wrong with a credit line's figures, each with the field it is about (none:
    empty). A value that could not be read (None) is not checked, nor what depends on it.

    Why a function of its own: a form shows each problem under its field, and says every
    one at once, with the words ``CreditLine`` refuses with."""
    problems: list[tuple[LineField, str]] = []
    if lender is not None and not lender.strip():
        problems.append(("lender", "falta el nombre de la entidad otorgante"))
    if available_centavos is not None and available_centavos <= 0:
        problems.append(("available_centavos", "el monto disponible debe ser positivo"))
    if term_months is not None and term_months <= 0:
        problems.append(("term_months", "el plazo debe ser de al menos un mes"))
    if grace_months is not None and grace_months < 0:
        problems.append(("grace_months", "el periodo de gracia no puede ser negativo"))
    elif grace_months is not None and term_months is not None and grace_months >= term_months > 0:
        problems.append(
            (
                "grace_months",
                f"la gracia ({grace_months} meses) no deja meses para amortizar dentro del "
                f"plazo ({term_months} meses)",
            )
        )
    if rate_ea is not None:
        problems += [("rate_ea", message) for message in rate_problems(rate_ea)]
    return problems


def rate_problems(rate_ea: Decimal) -> list[str]:
    """What is wrong with an effective annual rate given as a fraction (none: empty)."""
    if not rate_ea.is_finite() or rate_ea < 0:
        return ["la tasa debe ser un número no negativo"]
    if rate_ea >= 1:
        return [
            f"una tasa de {rate_ea} equivale a {decimal_percent(rate_ea.scaleb(2))} EA; la tasa "
            "se escribe como fracción (0.18 es 18 %)"
        ]
    return []
