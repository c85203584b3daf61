"""Each condition of the credit lines checked, with its arithmetic in Spanish.

Arts. 7.1 to 7.4 line by line (``check_credit_line``, ``check_credit_lines``), and the 10 %
of the value of the shares offered, met by the lines that meet the rest, together (art. 7
inc. 1). The rate's cap is the interés bancario corriente in force on the day the credit is
granted; a day without a certified value stops the check, naming the period.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from fractions import Fraction
from math import ceil

from democratiza.compliance.credit.lines import (
    CreditError,
    CreditLine,
    CreditRuleId,
    CreditTerms,
    ShareCollateral,
)
from democratiza.compliance.series import (
    MissingSeriesValue,
    RateSeries,
    certification_period,
    period_label,
    shipped_rates,
)
from democratiza.money import decimal_percent, pesos
from democratiza.programs.parameters import make_offer
from democratiza.programs.schema import Program


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
        ceil(shares * offer.price),
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
