"""A deliberately plain per-row reference of the limit arithmetic, in ``Decimal``.

It shares no code with the engine's arithmetic: it reads the program file's values and
works one acceptance at a time, the way a person with a calculator would. The tests and
the benchmark check the columnar engine against it.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal, localcontext
from typing import Any

from democratiza.programs.parameters import Offer
from democratiza.programs.schema import Condition, LimitRule

# The natural persons' categories: those of the company's own, and every natural person
# where a Primera Etapa is open to all (Ley 1118 de 2006 style).
NATURAL = {"trabajador_activo", "pensionado", "extrabajador", "persona_natural"}


@dataclass(frozen=True)
class ReferenceResult:
    limits: dict[str, int | None]
    permitted: int
    binding: str | None


def _pesos(centavos: int | None) -> Decimal | None:
    return None if centavos is None else Decimal(centavos) / 100


def _holds(cond: Condition, row: dict[str, Any], offer: Offer) -> bool:
    natural = row["categoria"] in NATURAL
    if cond.person is not None and (cond.person == "natural") != natural:
        return False
    if cond.categories is not None and row["categoria"] not in cond.categories:
        return False
    pairs = [
        (cond.files_tax_return, "obligado_declarar"),
        (cond.foreigner, "extranjero"),
        (cond.manager, "directivo"),
    ]
    for wanted, column in pairs:
        if wanted is not None and bool(row[column]) != wanted:
            return False
    if cond.new_manager is not None:
        cutoff = offer.day("fecha_corte_directivos")
        joined = row["fecha_ingreso_directivo"]
        new = (
            bool(row["directivo"])
            and cutoff is not None
            and joined is not None
            and (joined > cutoff)
        )
        if new != cond.new_manager:
            return False
    return True


def _source(name: str, row: dict[str, Any], offer: Offer) -> Decimal | None:
    if name == "ingresos_usd":
        usd = row["ingresos_usd"]
        trm = offer.money("trm")
        if usd is None or trm is None:
            return None
        return (Decimal(usd) / 100) * (Decimal(trm) / 100)
    if name == "patrimonio_ajustado":
        parts = [row["activos_totales"], row["pasivos_totales"], row["superavit_valorizacion"]]
        if any(p is None for p in parts):
            return None
        assets, debts, surplus = (Decimal(p) / 100 for p in parts)
        return assets - debts - surplus
    if name == "salario_mensual_anualizado":
        definition = offer.program.remuneration
        months, monthly = row["meses_en_cargo"], row["salario_mensual"]
        if definition is None or months is None or monthly is None:
            return None
        if months >= definition.min_months:
            return None
        return Decimal(monthly) / 100 * definition.monthly_factor
    if name == "remuneracion_anual" and offer.program.remuneration is not None:
        months = row["meses_en_cargo"]
        if months is not None and months < offer.program.remuneration.min_months:
            return None  # fewer months in post than the definition asks: the monthly figure
    return _pesos(row[name])


def _cap(rule: LimitRule, offer: Offer) -> int:
    """A cap the file fixes, worked out in pesos the way the decree words it."""
    price = Decimal(offer.price_centavos) / 100
    if rule.cap_shares is not None:
        return rule.cap_shares
    if rule.cap_offered is not None:
        offered = Decimal(offer.values["acciones_ofrecidas"])  # type: ignore[arg-type]
        exact = offered * rule.cap_offered.percent / 100
        mode = {"abajo": ROUND_FLOOR, "arriba": ROUND_CEILING, "cercano": ROUND_HALF_UP}
        return int(exact.to_integral_value(rounding=mode[rule.cap_offered.rounding]))
    if rule.cap_pesos is not None:
        pesos = rule.cap_pesos
    elif rule.cap_smmlv is not None:
        salary = _pesos(offer.money(rule.cap_smmlv.parameter))
        assert salary is not None
        pesos = rule.cap_smmlv.times * salary
    else:
        plan = offer.program.instalment_plan
        assert plan is not None and plan.max_financed is not None
        financed = (100 - plan.down_payment.value) / 100
        price = price * financed  # the part of each share's price that is financed
        pesos = plan.max_financed.value
    with localcontext() as ctx:
        ctx.prec = 60
        return int((pesos / price).to_integral_value(rounding=ROUND_FLOOR))


def reference_limit(rule: LimitRule, row: dict[str, Any], offer: Offer) -> int | None:
    if not _holds(rule.applies_when, row, offer):
        return None
    if rule.cap_financed is not None and row["forma_pago"] != rule.cap_financed:
        return None
    if rule.base is None:
        return _cap(rule, offer)
    values = [_source(s, row, offer) for s in rule.base.sources]
    present = [v for v in values if v is not None]
    if not present:
        return None
    amount = max(present) if rule.base.combine == "mayor" else present[0]
    if amount <= 0:
        return 0
    frac = rule.fraction
    price = Decimal(offer.price_centavos) / 100
    with localcontext() as ctx:
        ctx.prec = 60
        limit_value = amount * frac.numerator / frac.denominator
        shares = (limit_value / price).to_integral_value(rounding=ROUND_FLOOR)
        # The definition itself: the largest n with n × price ≤ limit value.
        assert shares * price <= limit_value < (shares + 1) * price
    return int(shares)


def reference_evaluate(offer: Offer, row: dict[str, Any]) -> ReferenceResult:
    limits = {rule.id: reference_limit(rule, row, offer) for rule in offer.program.limits}
    applicable = [(rid, v) for rid, v in limits.items() if v is not None]
    least = min((v for _, v in applicable), default=None)
    requested = row["cantidad"]
    permitted = max(0, requested if least is None else min(requested, least))
    lot = offer.program.validity.lot
    if lot is not None:  # in whole lots
        permitted -= permitted % lot.value
    binding = next((rid for rid, v in applicable if v == least), None)
    return ReferenceResult(limits, permitted, binding)
