"""Credit lines for the Primera Etapa: the legal conditions, an amortisation schedule, collateral.

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
``lineas_credito`` section (``CreditTerms.from_program``); a program whose text lacks the
credit-line article has no such section and its lines cannot be checked.

Rates are fractions (``Decimal("0.18")`` is 18 % efectivo anual), as ``RatePeriod.rate``.

Amortisation schedule (``amortization_schedule``)
    Monthly periods; the n-th falls on the start date + n calendar months
    (``calendar.add_months``: 31 January + 1 month = 28/29 February, + 2 months = 31 March),
    not moved to a business day. The monthly rate is (1 + EA)^(1/12) − 1 with 50 significant
    digits, never EA / 12, and every month carries that rate whatever its number of days.

    During the capital grace each month's interest is either paid (the instalment is the
    interest) or capitalised (added to the balance; the instalment is zero). After the grace
    the balance is repaid in equal (French) instalments over the remaining months:
    A = B · m / (1 − (1 + m)^−n), or B / n at a zero rate.

    Rounding: each month's interest is balance × m rounded half-up to the centavo; the
    instalment A is rounded half-up to the centavo once; each month's capital is the rounded
    instalment minus that month's interest. The last instalment pays the remaining balance
    exactly plus its interest, so it absorbs every rounding residue: the capital paid is the
    principal (plus the capitalised interest) to the centavo and the final balance is zero.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Literal

from democratiza.calendar import add_months
from democratiza.compliance.fines import PRECISE, round_centavos
from democratiza.compliance.series import (
    MissingSeriesValue,
    RateSeries,
    certification_period,
    period_label,
    shipped_rates,
)
from democratiza.money import (
    decimal_percent,
    exact_percent,
    group,
    pesos,
    pesos_cents,
)
from democratiza.programs.parameters import make_offer
from democratiza.programs.schema import Citation, Program


class CreditError(ValueError):
    """A credit line or a schedule that cannot be checked or built as given (Spanish)."""


# --- the conditions and their figures ----------------------------------------------------

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
            raise CreditError(
                f"El programa {program.id} no trae las condiciones de sus líneas de crédito "
                "(lineas_credito): nuestro texto no tiene ese artículo."
            )

        def cite(citation: Citation) -> str:
            return f"{program.norms[citation.norm].short} {citation.ref}"

        return cls(
            program.id,
            (
                CreditRule(
                    "financiacion_minima",
                    lines.minimum_financing_percent.value,
                    cite(lines.minimum_financing_percent.citation),
                ),
                CreditRule(
                    "plazo_minimo",
                    lines.minimum_term_months.value,
                    cite(lines.minimum_term_months.citation),
                ),
                CreditRule(
                    "gracia_minima",
                    lines.minimum_grace_months.value,
                    cite(lines.minimum_grace_months.citation),
                ),
                CreditRule("tasa_maxima", None, cite(lines.maximum_rate)),
                CreditRule("garantia_acciones", None, cite(lines.share_collateral)),
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
        problems = []
        if not self.lender.strip():
            problems.append("falta el nombre de la entidad otorgante")
        if self.available_centavos <= 0:
            problems.append("el monto disponible debe ser positivo")
        if self.term_months <= 0:
            problems.append("el plazo debe ser de al menos un mes")
        if self.grace_months < 0:
            problems.append("el periodo de gracia no puede ser negativo")
        elif self.grace_months >= self.term_months > 0:
            problems.append(
                f"la gracia ({self.grace_months} meses) no deja meses para amortizar dentro del "
                f"plazo ({self.term_months} meses)"
            )
        problems += _rate_problems(self.rate_ea)
        if problems:
            raise CreditError(f"Línea de crédito de {self.lender or '?'}: " + "; ".join(problems))


def _rate_problems(rate_ea: Decimal) -> list[str]:
    if not rate_ea.is_finite() or rate_ea < 0:
        return ["la tasa debe ser un número no negativo"]
    if rate_ea >= 1:
        return [
            f"una tasa de {rate_ea} equivale a {decimal_percent(rate_ea.scaleb(2))} EA; la tasa "
            "se escribe como fracción (0.18 es 18 %)"
        ]
    return []


@dataclass(frozen=True)
class Finding:
    """The outcome of one condition: ``text`` is the Spanish arithmetic ("60 meses ≥ 60 meses")."""

    rule: CreditRuleId
    citation: str
    ok: bool
    text: str
    subject: str  # the lender, or "líneas en su conjunto"

    @property
    def verdict(self) -> str:
        return "cumple" if self.ok else "no cumple"

    def __str__(self) -> str:
        return f"{self.subject} — {self.citation}: {self.verdict}. {self.text}"


def _percent_of(value: int, percent: int) -> Fraction:
    return Fraction(value * percent, 100)


def _financing_finding(
    available: int, offer_value: int, terms: CreditTerms, subject: str, what: str
) -> Finding:
    rule = terms.rule("financiacion_minima")
    percent = terms.minimum("financiacion_minima")
    needed = _percent_of(offer_value, percent)
    ok = available >= needed
    return Finding(
        rule.id,
        rule.citation,
        ok,
        f"{what} {pesos(available)} {'≥' if ok else '<'} {percent} % × {pesos(offer_value)} "
        f"(valor de las acciones ofrecidas) = {pesos(needed)}",
        subject,
    )


def ibc_on(ibc: RateSeries, day: date, needed_for: str) -> tuple[Decimal, str]:
    """The interés bancario corriente in force on ``day``, as a fraction, and its description.

    A day without a certified value raises ``MissingSeriesValue`` naming the period.
    """
    if ibc.kind != "interes_bancario_corriente":
        raise CreditError(
            f"El tope de la tasa es el interés bancario corriente; se recibió la serie de "
            f"{ibc.name} ({ibc.file})."
        )
    period = ibc.find(day)
    if period is None:
        start, end = certification_period(day)
        raise MissingSeriesValue(
            "el interés bancario corriente", period_label(start, end), needed_for
        )
    return period.rate, (
        f"interés bancario corriente vigente el {day:%Y-%m-%d}, certificado para "
        f"{period.label}; fuente: {period.source}"
    )


def _line_findings(line: CreditLine, ibc: RateSeries, terms: CreditTerms) -> list[Finding]:
    """Arts. 7.1 to 7.4 for one line (the financing amount is checked apart)."""
    subject = line.lender
    out = []

    rule = terms.rule("plazo_minimo")
    minimum = terms.minimum("plazo_minimo")
    ok = line.term_months >= minimum
    out.append(
        Finding(
            rule.id,
            rule.citation,
            ok,
            f"{line.term_months} meses {'≥' if ok else '<'} {minimum} meses (plazo total de "
            f"amortización, incluidos {line.grace_months} meses de gracia a capital)",
            subject,
        )
    )

    rule = terms.rule("gracia_minima")
    minimum = terms.minimum("gracia_minima")
    ok = line.grace_months >= minimum
    grace_interest = (
        "se capitalizan para pagarlos con las cuotas de capital"
        if line.capitalise_grace_interest
        else "se pagan mes a mes"
    )
    out.append(
        Finding(
            rule.id,
            rule.citation,
            ok,
            f"{line.grace_months} meses {'≥' if ok else '<'} {minimum} meses de gracia a "
            f"capital; los intereses de la gracia {grace_interest} (ambas formas permitidas)",
            subject,
        )
    )

    rule = terms.rule("tasa_maxima")
    cap, described = ibc_on(
        ibc,
        line.granted,
        f"verificar la tasa de la línea de crédito de {line.lender} otorgada el "
        f"{line.granted:%Y-%m-%d}",
    )
    ok = line.rate_ea <= cap
    out.append(
        Finding(
            rule.id,
            rule.citation,
            ok,
            f"{decimal_percent(line.rate_ea.scaleb(2))} EA {'≤' if ok else '>'} "
            f"{decimal_percent(cap.scaleb(2))} EA, {described}",
            subject,
        )
    )

    rule = terms.rule("garantia_acciones")
    texts: dict[ShareCollateral, str] = {
        "precio_fijo": (
            "Admite como garantía las acciones adquiridas con el crédito, valoradas al precio "
            "fijo de venta"
        ),
        "otro_valor": (
            "Admite las acciones como garantía pero no las valora al precio fijo de venta "
            "(inicial o ajustado), como exige la norma"
        ),
        "no_admitidas": "No admite como garantía las acciones adquiridas con el crédito",
    }
    out.append(
        Finding(
            rule.id,
            rule.citation,
            line.share_collateral == "precio_fijo",
            texts[line.share_collateral],
            subject,
        )
    )
    return out


def _check_offer_value(offer_value_centavos: int) -> None:
    if offer_value_centavos <= 0:
        raise CreditError("El valor de las acciones ofrecidas debe ser positivo.")


def check_credit_line(
    line: CreditLine,
    offer_value_centavos: int,
    ibc: RateSeries,
    *,
    terms: CreditTerms,
) -> list[Finding]:
    """Every condition for one line, taken as the program's only line.

    ``offer_value_centavos`` is the value of the shares offered (shares × fixed price);
    ``ibc`` the interés bancario corriente series. A grant date without a certified IBC
    raises ``MissingSeriesValue``. With several lines, use ``check_credit_lines``: the 10 %
    is met by the lines together.
    """
    _check_offer_value(offer_value_centavos)
    financing = _financing_finding(
        line.available_centavos,
        offer_value_centavos,
        terms,
        line.lender,
        "Financiación disponible",
    )
    return [financing, *_line_findings(line, ibc, terms)]


def check_offer_credit_line(
    program: Program,
    line: CreditLine,
    overrides: Mapping[str, object] | None = None,
    ibc: RateSeries | None = None,
) -> list[Finding]:
    """A line against an offer of ``program`` (its parameters as given) and the law.

    The shares offered come from the offer's parameters; the IBC series is the shipped one
    unless the program office gives the official full series.
    """
    offer = make_offer(program, overrides)
    shares = offer.values.get("acciones_ofrecidas")
    if not isinstance(shares, int):
        raise CreditError("La oferta no tiene acciones_ofrecidas (parámetro de la oferta).")
    return check_credit_line(
        line,
        shares * offer.price_centavos,
        ibc or shipped_rates("interes_bancario_corriente"),
        terms=CreditTerms.from_program(program),
    )


def check_credit_lines(
    lines: Sequence[CreditLine],
    offer_value_centavos: int,
    ibc: RateSeries,
    *,
    terms: CreditTerms,
) -> list[Finding]:
    """Arts. 7.1 to 7.4 line by line, then the 10 % "en su conjunto" (art. 7 inc. 1).

    Only the lines that meet 7.1 to 7.4 count towards the 10 %: the article asks for lines
    "con las siguientes características".
    """
    _check_offer_value(offer_value_centavos)
    out: list[Finding] = []
    counted = 0
    lenders = []
    for line in lines:
        findings = _line_findings(line, ibc, terms)
        out += findings
        if all(f.ok for f in findings):
            counted += line.available_centavos
            lenders.append(line.lender)
    what = (
        f"Financiación disponible de las líneas que cumplen ({', '.join(lenders)})"
        if lenders
        else "Ninguna línea cumple las condiciones del programa; financiación disponible"
    )
    out.append(
        _financing_finding(counted, offer_value_centavos, terms, "líneas en su conjunto", what)
    )
    return out


# --- amortisation schedule ---------------------------------------------------------------


def monthly_rate(rate_ea: Decimal) -> Decimal:
    """(1 + EA)^(1/12) − 1 with 50 significant digits; never EA / 12."""
    problems = _rate_problems(rate_ea)
    if problems:
        raise CreditError(problems[0])
    if rate_ea == 0:
        return Decimal(0)
    with localcontext(PRECISE) as ctx:
        return ctx.power(1 + rate_ea, Decimal(1) / 12) - 1


@dataclass(frozen=True)
class ScheduleRow:
    """One month. Centavos; instalment = interest − capitalised + principal."""

    number: int
    day: date
    opening: int
    interest: int  # accrued this month, rounded half-up
    capitalised: int  # the part of ``interest`` added to the balance (grace, if capitalised)
    principal: int  # capital repaid
    instalment: int  # what the borrower pays
    closing: int  # opening + capitalised − principal

    @property
    def interest_paid(self) -> int:
        return self.interest - self.capitalised


@dataclass(frozen=True)
class Schedule:
    principal: int
    rate_ea: Decimal
    monthly_rate: Decimal
    term_months: int
    grace_months: int
    capitalise_grace_interest: bool
    start: date
    instalment: int  # the French instalment after the grace, rounded (the last one differs)
    rows: tuple[ScheduleRow, ...]

    @property
    def interest_accrued(self) -> int:
        return sum(r.interest for r in self.rows)

    @property
    def interest_capitalised(self) -> int:
        return sum(r.capitalised for r in self.rows)

    @property
    def interest_paid(self) -> int:
        """Interest paid as interest (the capitalised part is paid as capital)."""
        return sum(r.interest_paid for r in self.rows)

    @property
    def principal_paid(self) -> int:
        """The principal plus the capitalised interest, to the centavo."""
        return sum(r.principal for r in self.rows)

    @property
    def total_paid(self) -> int:
        return sum(r.instalment for r in self.rows)

    @property
    def closing(self) -> int:
        return self.rows[-1].closing

    def notes(self) -> tuple[str, ...]:
        grace = (
            "capitalizados: se suman al saldo y se pagan con las cuotas de capital"
            if self.capitalise_grace_interest
            else "pagados mes a mes"
        )
        return (
            f"Tasa mensual = (1 + {decimal_percent(self.rate_ea.scaleb(2))})^(1/12) − 1 = "
            f"{decimal_percent(self.monthly_rate.scaleb(2), places=10)} (nunca la tasa anual "
            "dividida por 12).",
            f"Gracia a capital de {self.grace_months} meses; intereses de la gracia {grace}.",
            f"Cuota fija (sistema francés) de {pesos_cents(self.instalment)} durante "
            f"{self.term_months - self.grace_months} meses.",
            "Cada interés mensual y la cuota se redondean al centavo (mitad hacia arriba); el "
            "abono a capital es la cuota menos el interés; la última cuota paga el saldo exacto "
            "y absorbe los residuos del redondeo.",
            "Las fechas son el mismo día de cada mes desde el desembolso (o el último día del "
            "mes si no lo tiene), sin correr a día hábil.",
            f"Totales: abono a capital {pesos_cents(self.principal_paid)} = monto "
            f"{pesos_cents(self.principal)} + intereses capitalizados "
            f"{pesos_cents(self.interest_capitalised)}; cuotas {pesos_cents(self.total_paid)} = "
            f"intereses pagados {pesos_cents(self.interest_paid)} + abono a capital "
            f"{pesos_cents(self.principal_paid)}; saldo final {pesos_cents(self.closing)}.",
        )


def amortization_schedule(
    principal_centavos: int,
    rate_ea: Decimal,
    term_months: int,
    grace_months: int,
    capitalise_grace_interest: bool,
    start: date,
) -> Schedule:
    """Monthly schedule: capital grace, then equal instalments; see the module's notes."""
    if principal_centavos <= 0:
        raise CreditError("El monto del crédito debe ser positivo.")
    if grace_months < 0 or term_months <= grace_months:
        raise CreditError(
            f"El plazo ({term_months} meses) debe ser mayor que la gracia ({grace_months} "
            "meses), y la gracia no negativa."
        )
    m = monthly_rate(rate_ea)
    rows: list[ScheduleRow] = []
    balance = principal_centavos

    def accrue(amount: int) -> int:
        with localcontext(PRECISE):
            return round_centavos(amount * m)

    for n in range(1, grace_months + 1):
        interest = accrue(balance)
        capitalised = interest if capitalise_grace_interest else 0
        rows.append(
            ScheduleRow(
                number=n,
                day=add_months(start, n),
                opening=balance,
                interest=interest,
                capitalised=capitalised,
                principal=0,
                instalment=interest - capitalised,
                closing=balance + capitalised,
            )
        )
        balance += capitalised

    remaining = term_months - grace_months
    with localcontext(PRECISE) as ctx:
        if m == 0:
            exact = Decimal(balance) / remaining
        else:
            exact = balance * m / (1 - ctx.power(1 + m, -remaining))
    instalment = round_centavos(exact)

    for n in range(grace_months + 1, term_months + 1):
        interest = accrue(balance)
        # The last month repays the balance exactly; the others the instalment less interest.
        due = balance if n == term_months else instalment - interest
        principal = min(max(due, 0), balance)
        rows.append(
            ScheduleRow(
                number=n,
                day=add_months(start, n),
                opening=balance,
                interest=interest,
                capitalised=0,
                principal=principal,
                instalment=interest + principal,
                closing=balance - principal,
            )
        )
        balance -= principal

    assert balance == 0
    return Schedule(
        principal=principal_centavos,
        rate_ea=rate_ea,
        monthly_rate=m,
        term_months=term_months,
        grace_months=grace_months,
        capitalise_grace_interest=capitalise_grace_interest,
        start=start,
        instalment=instalment,
        rows=tuple(rows),
    )


# --- collateral --------------------------------------------------------------------------


@dataclass(frozen=True)
class Coverage:
    shares: int
    fixed_price: int  # centavos per share
    balance: int  # centavos
    required: Fraction  # the coverage the lender asks for (1 = 100 %)

    @property
    def value(self) -> int:
        """The shares at the fixed price (art. 7.4), in centavos."""
        return self.shares * self.fixed_price

    @property
    def ratio(self) -> Fraction:
        return Fraction(self.value, self.balance)

    @property
    def covered(self) -> bool:
        return self.ratio >= self.required

    @property
    def text(self) -> str:
        return (
            f"{group(self.shares)} acciones × {pesos(self.fixed_price)} (precio fijo) = "
            f"{pesos(self.value)} frente a un saldo de {pesos(self.balance)}: cobertura del "
            f"{exact_percent(self.ratio)} {'≥' if self.covered else '<'} "
            f"{exact_percent(self.required)} exigido; "
            + ("la garantía cubre el saldo." if self.covered else "la garantía no cubre el saldo.")
        )


def collateral_coverage(
    shares: int,
    fixed_price_centavos: int,
    loan_balance_centavos: int,
    *,
    required: Fraction = Fraction(1),
) -> Coverage:
    """How far the pledged shares, at the fixed price (art. 7.4), cover the loan's balance."""
    if shares < 0:
        raise CreditError("El número de acciones en garantía no puede ser negativo.")
    if fixed_price_centavos <= 0:
        raise CreditError("El precio fijo debe ser positivo.")
    if loan_balance_centavos <= 0:
        raise CreditError("La cobertura se calcula sobre un saldo del crédito positivo.")
    if required <= 0:
        raise CreditError("La cobertura exigida debe ser positiva.")
    return Coverage(shares, fixed_price_centavos, loan_balance_centavos, required)
