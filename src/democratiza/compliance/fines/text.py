"""A fine's account in words: the statement as plain Spanish text, one step a paragraph,
and the phrases and citations the CSV and PDF statements share with it."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from democratiza.compliance.fines.account import Statement, StatementRow
from democratiza.compliance.fines.amount import FineAmount
from democratiza.compliance.fines.terms import BaseCandidate, FineTerms
from democratiza.money import decimal_percent, pesos


def base_result(candidate: BaseCandidate, chosen: BaseCandidate, rule: str) -> str:
    """How a candidate base fared; ``rule`` is where the program says the greatest is taken."""
    if candidate.centavos is None:
        return "sin valor conocido, no se compara"
    if candidate == chosen:
        return f"elegida: la mayor ({rule})"
    if candidate.centavos == chosen.centavos:
        return "igual a la elegida; se toma la primera de la lista"
    return "menor que la elegida"


def rate_conversion(row: StatementRow) -> str:
    """'(1 + 28,74 %)^(17/365) − 1' for a stretch at an effective annual rate."""
    if row.rate_percent is None or row.days is None or row.period_rate is None:
        return ""
    return f"(1 + {decimal_percent(row.rate_percent)})^({row.days}/365) − 1"


def payment_wording(row: StatementRow) -> str:
    """A payment and how it was applied: to the interest first, then to the fine."""
    text = (
        f"Pago de {pesos(row.payment)}: primero {pesos(row.to_interest)} a los intereses "
        f"causados, luego {pesos(row.to_fine)} a la multa"
    )
    if row.excess:
        text += f"; excedente a devolver {pesos(row.excess)}"
    return text


def fine_citation(fine: FineAmount, terms: FineTerms) -> str:
    """Where the fine's base and band are written: 'Decreto 706/2017 art. 11(b); … 11.1(b)'."""
    window = fine.band.window
    assert window is not None, "a fine always has its band"
    chosen = terms.base_keys.index(fine.base.chosen.key)
    return f"{terms.base_citations[chosen]}; {terms.band_citation(window.band)}"


def step_citation(row: StatementRow, fine: FineAmount, terms: FineTerms) -> str:
    """The article a step of the account applies."""
    if row.kind == "multa":
        return fine_citation(fine, terms)
    if row.kind == "intereses":
        return terms.interest_citation or ""
    if row.kind in ("ajuste_ipc", "ajuste_tasa"):
        return terms.adjustment_citation
    if row.kind == "pago":
        return terms.payments_citation or terms.adjustment_citation
    return ""


# The decimals of a percentage a stretch's rate is shown with, everywhere it is read (the
# text, the PDF, the CSV). The interest is computed with the rate's 50 digits; shown to ten
# decimals of a percent, the rate is off by at most half a centavo on 10¹⁰ pesos, which is
# what a reader checking the interest by hand needs, and no longer than one can read.
RATE_PLACES = 10


def shown_period_rate(rate: Decimal) -> Decimal:
    """A stretch's rate (a fraction) to ``RATE_PLACES`` decimals of a percent, half up:
    0.0118355736316448… -> 0.011835573632."""
    return rate.quantize(Decimal(1).scaleb(-(RATE_PLACES + 2)), rounding=ROUND_HALF_UP)


def _rate_text(row: StatementRow) -> str | None:
    """'26,39 % EA = 1,4216401087 % por 22 días' (the stretch's rate to ``RATE_PLACES``)."""
    if row.rate_percent is None or row.period_rate is None or row.days is None:
        return None  # an adjustment by CPI says its rate in the concept
    stretch = decimal_percent(row.period_rate.scaleb(2), places=RATE_PLACES)
    return f"{decimal_percent(row.rate_percent)} EA = {stretch} por {row.days} días"


def statement_text(statement: Statement) -> str:
    """The account in Spanish, one step per paragraph."""
    fine = statement.fine
    lines = [
        f"Estado de cuenta de la multa al {statement.until:%Y-%m-%d}: {statement.program_name}",
        fine.base.explain(),
        fine.band.reason,
        "",
    ]
    for row in statement.rows:
        lines.append(f"{row.day:%Y-%m-%d}  {row.concept}")
        details = []
        rate = _rate_text(row)
        if rate is not None:
            details.append(rate)
        if row.interest:
            details.append(f"intereses causados {pesos(row.interest)}")
        if row.adjustment:
            details.append(f"ajuste {pesos(row.adjustment)}")
        if row.payment:
            details += [
                f"pago {pesos(row.payment)}",
                f"a intereses {pesos(row.to_interest)}",
                f"a la multa {pesos(row.to_fine)}",
            ]
        if row.excess:
            details.append(f"excedente a devolver {pesos(row.excess)}")
        details += [
            f"saldo intereses {pesos(row.interest_balance)}",
            f"saldo multa {pesos(row.fine_balance)}",
            f"saldo total {pesos(row.balance)}",
        ]
        lines.append("            " + "; ".join(details))
    lines += ["", f"Saldo a pagar el {statement.until:%Y-%m-%d}: {pesos(statement.due)}", ""]
    lines.append("Lecturas aplicadas:")
    lines += [f"- {note}" for note in statement.notes]
    if statement.sources:
        lines += ["", "Fuentes de las series:"]
        lines += [f"- {source}" for source in statement.sources]
    return "\n".join(lines) + "\n"
