"""Fines for breaching the undertakings: base, amount, adjustment, default interest, payments.

The amount (GEB art. 11.1; Central de Seguros, inciso of fines) is shares × base per share ×
the band's percentage, where the base is the greatest of the values the program lists. It is
exact (centavos × a whole percentage) and is rounded to centavos half-up only when it is
collected.

What happens after the breach depends on the program (``multas.metodo_ajuste``):

``ipc_1_enero`` (GEB art. 11 and 11.1)
    Every 1 January after the breach, up to and including the statement's date, the unpaid
    fine is multiplied by (1 + the previous year's CPI), exactly. On top, default interest at
    the highest legal rate (usura) from the breach until payment, each day at the rate in
    force that day: for a stretch of ``d`` days at an effective annual rate ``i`` the rate of
    the stretch is (1 + i)^(d/365) − 1 (50 significant digits; the annual rate is never
    divided). Interest accrues on the fine's balance only, never on unpaid interest (no
    anatocismo). Days count from the breach day (included) to the payment day (excluded).
    A payment goes first to the interest accrued up to its date, the rest to the fine
    (art. 11.1); anything above both is reported as excess. On a 1 January that is also a
    payment day the adjustment comes first.

``tasa_moratoria_dia_pago`` (Central de Seguros)
    See ``payment_day_statement``: one rate, the one certified for the day of payment,
    applied from the breach to that day. The text says nothing of partial payments, so
    they are refused.

Rounding: every interest accrual is rounded to centavos half-up when it is booked (it is
computed with 50 significant digits); the fine's balance is carried exactly (the CPI
factors and payments are finite decimals) and rounded half-up only when it is collected or
shown as the total due. A payment that covers the fine's rounded balance settles it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import (
    ROUND_HALF_UP,
    Context,
    Decimal,
    DivisionByZero,
    Inexact,
    InvalidOperation,
    Overflow,
    localcontext,
)
from typing import Literal

from democratiza.compliance.bands import REFERENCE_LABELS, BandMatch, band_for
from democratiza.compliance.series import CpiSeries, MaxLegalRate
from democratiza.money import decimal_percent, group, pesos
from democratiza.programs.schema import Citation, FineAdjustment, FineBand, FineBaseKey, Program

# Products of finite decimals are exact with enough digits; Inexact traps any rounding.
EXACT = Context(prec=400, traps=[InvalidOperation, DivisionByZero, Overflow, Inexact])
# Powers with a fractional exponent are irrational: 50 significant digits, then centavos.
PRECISE = Context(prec=50, rounding=ROUND_HALF_UP, traps=[InvalidOperation, DivisionByZero])

BASE_LABELS: dict[FineBaseKey, str] = {
    "precio_adquisicion": "precio de adquisición por acción",
    "contraprestacion": "precio u otra contraprestación obtenida por acción",
    "precio_segunda_etapa": "precio por acción del vendedor en la Segunda Etapa",
}


class FineError(ValueError):
    """A fine that cannot be computed as asked; the message (Spanish) says why."""


def round_centavos(value: Decimal) -> int:
    """Half-up to whole centavos (0,5 centavos goes away from zero)."""
    with localcontext(EXACT) as ctx:
        ctx.traps[Inexact] = False
        return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def period_rate(annual: Decimal, days: int) -> Decimal:
    """(1 + annual)^(days/365) − 1 with 50 significant digits (annual as a fraction)."""
    if days == 0:
        return Decimal(0)
    with localcontext(PRECISE) as ctx:
        return ctx.power(1 + annual, Decimal(days) / 365) - 1


# --- the program's terms ---------------------------------------------------------------


@dataclass(frozen=True)
class FineTerms:
    """What a program's ``multas`` section says, in the form the computation needs."""

    program_id: str
    bands: tuple[FineBand, ...]
    base_keys: tuple[FineBaseKey, ...]
    base_texts: tuple[str, ...]  # the program's own words for each base, same order
    reference_label: str  # "fecha de enajenación" / "fecha de adjudicación"
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
        raise FineError(f"El tramo del {band.percent} % no es del programa {self.program_id}.")

    @classmethod
    def from_program(cls, program: Program) -> FineTerms:
        fines = program.fines
        missing = [
            key
            for key, value in (
                ("claves_bases", fines.base_keys),
                ("fecha_referencia", fines.reference_date),
                ("metodo_ajuste", fines.adjustment_method),
                ("regla_base", fines.base_rule),
            )
            if value is None
        ]
        if missing:
            raise FineError(
                f"El programa {program.id} no permite calcular multas: a su sección 'multas' "
                f"le faltan {', '.join(missing)}."
            )
        assert fines.base_keys is not None and fines.reference_date is not None
        assert fines.adjustment_method is not None and fines.base_rule is not None
        if fines.adjustment_method == "ipc_1_enero" and fines.default_interest is None:
            raise FineError(
                f"El programa {program.id} ajusta por IPC pero no dice los intereses de mora "
                "('multas.intereses_mora'); no se calcula la multa."
            )

        def cite(citation: Citation) -> str:
            return f"{program.norms[citation.norm].short} {citation.ref}"

        return cls(
            program_id=program.id,
            bands=fines.bands,
            base_keys=fines.base_keys,
            base_texts=tuple(b.value for b in fines.base_values),
            reference_label=REFERENCE_LABELS[fines.reference_date],
            adjustment=fines.adjustment_method,
            default_interest=fines.default_interest is not None,
            base_citations=tuple(cite(b.citation) for b in fines.base_values),
            base_rule_citation=cite(fines.base_rule.citation),
            band_citations=tuple(cite(b.citation) for b in fines.bands),
            adjustment_citation=cite(fines.adjustment.citation),
            interest_citation=(
                None if fines.default_interest is None else cite(fines.default_interest.citation)
            ),
            payments_citation=(
                None if fines.partial_payments is None else cite(fines.partial_payments.citation)
            ),
        )


# --- base per share and amount ---------------------------------------------------------


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
            f"El programa {terms.program_id} no usa como base: "
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


@dataclass(frozen=True)
class FineAmount:
    """shares × base × percentage, exact in centavos."""

    shares: int
    base: FineBase
    band: BandMatch

    @property
    def percent(self) -> int:
        assert self.band.percent is not None
        return self.band.percent

    @property
    def exact(self) -> Decimal:
        return Decimal(self.shares * self.base.centavos * self.percent).scaleb(-2, EXACT)

    @property
    def centavos(self) -> int:
        return round_centavos(self.exact)

    def explain(self) -> str:
        return (
            f"{group(self.shares)} acciones × {pesos(self.base.centavos)} "
            f"({BASE_LABELS[self.base.chosen.key]}) × {self.percent} % = "
            f"{pesos(self.exact)}"
        )


def fine_amount(shares: int, base: FineBase, band: BandMatch) -> FineAmount:
    if shares <= 0:
        raise FineError("El número de acciones del incumplimiento debe ser positivo.")
    if band.window is None:
        raise FineError(f"No hay multa: {band.reason}")
    return FineAmount(shares, base, band)


def fine_for(
    terms: FineTerms,
    reference: date,
    breach: date,
    shares: int,
    values: Mapping[FineBaseKey, int | None],
) -> tuple[BandMatch, FineAmount | None]:
    """The band a breach falls in and, if it falls in one, the fine (base × shares × %).

    ``reference`` is the date the bands count from (the sale or the adjudication).
    """
    band = band_for(reference, breach, terms.bands, terms.reference_label)
    if band.percent is None:
        return band, None
    return band, fine_amount(shares, fine_base(terms, values), band)


# --- statement ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Payment:
    day: date
    centavos: int


# What a step of the account is: the fine imposed, default interest of a rate period, the
# 1 January CPI adjustment, the adjustment at the payment day's rate, or a payment.
StepKind = Literal["multa", "intereses", "ajuste_ipc", "ajuste_tasa", "pago"]


@dataclass(frozen=True)
class StatementRow:
    """One step of a fine's account. Money in centavos; the fine's balance is exact."""

    kind: StepKind
    day: date
    concept: str
    days: int | None = None
    rate_percent: Decimal | None = None  # % EA (interest), or the CPI % (adjustment)
    period_rate: Decimal | None = None  # the stretch's rate as a fraction, 50 digits
    interest: int = 0  # default interest booked
    adjustment: Decimal = Decimal(0)  # change in the fine's value (CPI or payment-day rate)
    payment: int = 0
    to_interest: int = 0
    to_fine: int = 0
    excess: int = 0  # paid above everything due
    interest_balance: int = 0
    fine_balance: Decimal = Decimal(0)

    @property
    def balance(self) -> int:
        """Everything due after this step, in centavos (the fine rounded half-up)."""
        return self.interest_balance + round_centavos(self.fine_balance)


@dataclass(frozen=True)
class Statement:
    program_id: str
    fine: FineAmount
    until: date
    rows: tuple[StatementRow, ...]
    notes: tuple[str, ...]  # the readings applied, in Spanish
    sources: tuple[str, ...]  # every series value's ``fuente`` used, first use first

    @property
    def due(self) -> int:
        """What settles the fine on ``until`` (after that day's payments)."""
        return self.rows[-1].balance


def _check_payments(breach: date, until: date, payments: Sequence[Payment]) -> None:
    if until < breach:
        raise FineError(
            f"La fecha del estado de cuenta ({until:%Y-%m-%d}) es anterior al incumplimiento "
            f"({breach:%Y-%m-%d})."
        )
    previous = breach
    for p in payments:
        if p.centavos <= 0:
            raise FineError(f"El pago del {p.day:%Y-%m-%d} debe ser positivo.")
        if not breach <= p.day <= until:
            raise FineError(
                f"El pago del {p.day:%Y-%m-%d} está fuera del periodo del estado de cuenta "
                f"({breach:%Y-%m-%d} a {until:%Y-%m-%d})."
            )
        if p.day < previous:
            raise FineError("Los pagos deben venir en orden de fecha.")
        previous = p.day


def _opening(fine: FineAmount, reference_label: str) -> StatementRow:
    window = fine.band.window
    assert window is not None
    return StatementRow(
        kind="multa",
        day=fine.band.breach,
        concept=(
            f"Multa por incumplimiento: {fine.explain()} "
            f"(tramo del {window.band.percent} %, {reference_label} "
            f"{fine.band.reference:%Y-%m-%d})"
        ),
        fine_balance=fine.exact,
    )


GEB_NOTES = (
    "Intereses de mora a la tasa de usura vigente cada día, desde el día del incumplimiento "
    "(incluido) hasta el día del pago (excluido); la tasa efectiva anual i se convierte a "
    "los días del periodo como (1 + i)^(días/365) − 1.",
    "Los intereses se causan sobre el saldo de la multa, nunca sobre intereses.",
    "Donde no hay tasa de usura certificada se usa 1,5 × el interés bancario corriente "
    "(Código de Comercio art. 884).",
    "Cada 1 de enero el saldo de la multa se multiplica por 1 + el IPC del año anterior "
    "(DANE), antes de aplicar un pago de ese día.",
    "Los pagos se aplican primero a los intereses causados hasta su fecha y luego a la multa.",
    "Cada partida de intereses se redondea al centavo (mitad hacia arriba); el saldo de la "
    "multa se lleva exacto y se redondea al centavo al cobrarlo.",
)


def cpi_rate_statement(
    terms: FineTerms,
    fine: FineAmount,
    until: date,
    payments: Sequence[Payment],
    cpi: CpiSeries,
    rates: MaxLegalRate,
) -> Statement:
    """GEB art. 11 and 11.1: CPI every 1 January, default interest at usura, interest first."""
    breach = fine.band.breach
    _check_payments(breach, until, payments)
    fine_balance = fine.exact
    interest_balance = 0
    rows = [_opening(fine, terms.reference_label)]
    sources: dict[str, None] = {}
    januaries = [date(y, 1, 1) for y in range(breach.year + 1, until.year + 1)]
    pending = list(payments)
    cursor = breach  # the first day not yet accrued

    while True:
        stops = [until] + januaries[:1] + [p.day for p in pending[:1]]
        stop = min(stops)
        # Default interest from cursor to the day before stop, stretch by stretch of rate.
        while cursor < stop and fine_balance > 0:
            rate = rates.on(cursor, f"los intereses de mora del {cursor:%Y-%m-%d}")
            end = min(stop, rate.end + timedelta(days=1))
            days = (end - cursor).days
            sources[rate.source] = None
            stretch = period_rate(rate.rate, days)
            with localcontext(PRECISE):
                interest = round_centavos(fine_balance * stretch)
            interest_balance += interest
            last = end - timedelta(days=1)
            rows.append(
                StatementRow(
                    kind="intereses",
                    day=last,
                    concept=(
                        f"Intereses de mora del {cursor:%Y-%m-%d} al {last:%Y-%m-%d}; "
                        f"usura del periodo {rate.label}: {decimal_percent(rate.percent)} EA, "
                        f"{rate.origin}"
                    ),
                    days=days,
                    rate_percent=rate.percent,
                    period_rate=stretch,
                    interest=interest,
                    interest_balance=interest_balance,
                    fine_balance=fine_balance,
                )
            )
            cursor = end
        cursor = stop
        if januaries and januaries[0] == stop:
            januaries.pop(0)
            if fine_balance > 0:
                year = stop.year - 1
                item = cpi.for_year(year, f"el ajuste del 1 de enero de {stop.year}")
                sources[item.source] = None
                adjusted = EXACT.multiply(fine_balance, item.factor)
                rows.append(
                    StatementRow(
                        kind="ajuste_ipc",
                        day=stop,
                        concept=(
                            f"Ajuste del 1 de enero de {stop.year} por el IPC de {year}: "
                            f"{pesos(fine_balance)} × (1 + {decimal_percent(item.percent)})"
                            f" = {pesos(adjusted)}"
                        ),
                        rate_percent=item.percent,
                        adjustment=EXACT.subtract(adjusted, fine_balance),
                        interest_balance=interest_balance,
                        fine_balance=adjusted,
                    )
                )
                fine_balance = adjusted
        while pending and pending[0].day == stop:
            paid = pending.pop(0)
            to_interest = min(paid.centavos, interest_balance)
            owed_fine = round_centavos(fine_balance)
            to_fine = min(paid.centavos - to_interest, owed_fine)
            interest_balance -= to_interest
            settled = to_fine == owed_fine
            fine_balance = Decimal(0) if settled else EXACT.subtract(fine_balance, to_fine)
            rows.append(
                StatementRow(
                    kind="pago",
                    day=stop,
                    concept="Pago",
                    payment=paid.centavos,
                    to_interest=to_interest,
                    to_fine=to_fine,
                    excess=paid.centavos - to_interest - to_fine,
                    interest_balance=interest_balance,
                    fine_balance=fine_balance,
                )
            )
        if stop == until:
            break
    return Statement(terms.program_id, fine, until, tuple(rows), GEB_NOTES, tuple(sources))


CENTRAL_NOTES = (
    "Lectura del texto («Estos valores serán ajustados a la tasa máxima moratoria legal que "
    "certifique la Superintendencia Bancaria para el día en que se efectúe el pago de la "
    "multa»): una sola tasa, la certificada para el día del pago, aplicada desde el día del "
    "incumplimiento (incluido) hasta el día del pago (excluido) como "
    "(1 + i)^(días/365) − 1; no hay intereses de mora aparte.",
    "La tasa máxima moratoria legal es la de usura; donde no hay tasa certificada se usa "
    "1,5 × el interés bancario corriente (Código de Comercio art. 884).",
    "El texto no dice cómo se imputan pagos parciales: no se modelan.",
    "El valor ajustado se redondea al centavo (mitad hacia arriba) al cobrarlo.",
)


def payment_day_statement(
    terms: FineTerms,
    fine: FineAmount,
    until: date,
    payments: Sequence[Payment],
    rates: MaxLegalRate,
) -> Statement:
    """Central de Seguros: the value adjusted at the maximum default rate of the payment day.

    Reading (the text is ambiguous on the span and on how the rate is applied): the fine,
    computed on the base per share, is adjusted from the day of the breach to the day of
    payment (``until`` when nothing is paid: what would be due that day) with the single
    effective annual rate certified for the payment day, ``(1 + i)^(days/365)``. The
    alternatives (counting from the adjudication, the rate of each period, or a one-off
    ``× (1 + i)``) are not modelled. Partial payments are refused: the text has no rule for
    them. The maximum legal default rate is the usura rate (1,5 × IBC where no usura
    certification is loaded).
    """
    breach = fine.band.breach
    _check_payments(breach, until, payments)
    if len(payments) > 1:
        raise FineError(
            f"El programa {terms.program_id} no dice cómo se imputan pagos parciales; "
            "solo se liquida un pago total."
        )
    day = payments[0].day if payments else until
    rate = rates.on(day, f"el ajuste de la multa pagada el {day:%Y-%m-%d}")
    days = (day - breach).days
    stretch = period_rate(rate.rate, days)
    with localcontext(PRECISE):
        adjustment = fine.exact * stretch
        adjusted = fine.exact + adjustment
    rows = [
        _opening(fine, terms.reference_label),
        StatementRow(
            kind="ajuste_tasa",
            day=day,
            concept=(
                f"Ajuste a la tasa máxima moratoria del día del pago, por {days} días desde "
                f"el incumplimiento; usura del periodo {rate.label}: "
                f"{decimal_percent(rate.percent)} EA, {rate.origin}"
            ),
            days=days,
            rate_percent=rate.percent,
            period_rate=stretch,
            adjustment=adjustment,
            fine_balance=adjusted,
        ),
    ]
    if payments:
        paid = payments[0]
        owed = round_centavos(adjusted)
        if paid.centavos < owed:
            raise FineError(
                f"El pago de {pesos(paid.centavos)} del {paid.day:%Y-%m-%d} no cubre la multa "
                f"ajustada de {pesos(owed)}; el programa {terms.program_id} no dice cómo se "
                "imputan pagos parciales."
            )
        rows.append(
            StatementRow(
                kind="pago",
                day=paid.day,
                concept="Pago",
                payment=paid.centavos,
                to_fine=owed,
                excess=paid.centavos - owed,
            )
        )
    return Statement(terms.program_id, fine, until, tuple(rows), CENTRAL_NOTES, (rate.source,))


def fine_statement(
    terms: FineTerms,
    fine: FineAmount,
    until: date,
    payments: Sequence[Payment] = (),
    *,
    cpi: CpiSeries | None = None,
    rates: MaxLegalRate,
) -> Statement:
    """The fine's account up to ``until`` by the program's adjustment method."""
    if terms.adjustment == "ipc_1_enero":
        if cpi is None:
            raise FineError("El ajuste por IPC necesita la serie del IPC del DANE.")
        return cpi_rate_statement(terms, fine, until, payments, cpi, rates)
    return payment_day_statement(terms, fine, until, payments, rates)


# --- rendering ---------------------------------------------------------------------------


def _rate_text(row: StatementRow) -> str | None:
    """'26,39 % EA = 1,4216401087 % por 22 días' (the stretch's rate shown to 10 decimals)."""
    if row.rate_percent is None or row.period_rate is None or row.days is None:
        return None  # an adjustment by CPI says its rate in the concept
    stretch = decimal_percent(row.period_rate.scaleb(2), places=10)
    return f"{decimal_percent(row.rate_percent)} EA = {stretch} por {row.days} días"


def statement_text(statement: Statement) -> str:
    """The account in Spanish, one step per paragraph."""
    fine = statement.fine
    lines = [
        f"Estado de cuenta de la multa (programa {statement.program_id}) "
        f"al {statement.until:%Y-%m-%d}",
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
