"""The caps a program file fixes for everyone a limit applies to, in whole shares.

A cap is the same number for every row: in shares (``tope_acciones``); in pesos
(``tope_pesos``) or in minimum salaries of a year (``tope_smmlv``), as the most whole shares
whose price fits in it; in a percentage of the shares offered (``tope_porcentaje_oferta``),
rounded as the file says; in a percentage of the issuer's outstanding shares
(``tope_porcentaje_emisor``, the count a cited parameter), rounded the same way; or, for an
acceptant paying in instalments, the most whole shares whose financed part (the price less
the down payment) fits in the maximum financed amount (``tope_financiado``).
Every figure is exact: pesos in centavos, percentages as fractions.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import floor

from democratiza.money import to_centavos
from democratiza.programs.parameters import Offer
from democratiza.programs.schema import InstalmentPlan, LimitRule, offered_part

OUTSTANDING = "acciones_en_circulacion"  # the parameter a cap of the issuer's shares needs


@dataclass(frozen=True)
class Cap:
    """A cap's shares and the figures it comes from (centavos; shares offered)."""

    shares: int
    centavos: int | None = None  # the amount in pesos the shares' price must fit in
    smmlv: int | None = None  # the year's minimum salary, in centavos
    offered: int | None = None  # the shares offered
    outstanding: int | None = None  # the issuer's outstanding shares


def plan_of(offer: Offer) -> InstalmentPlan:
    plan = offer.program.instalment_plan
    assert plan is not None and plan.max_financed is not None, "the loader refuses it"
    return plan


def fixed_cap(rule: LimitRule, offer: Offer) -> Cap:
    """The rule's cap for this offer (the engine has required its parameters first)."""
    price = offer.price  # exact: a fraction of a centavo where the decree gives one
    if rule.cap_shares is not None:
        return Cap(rule.cap_shares)
    if rule.cap_pesos is not None:
        amount = to_centavos(rule.cap_pesos)
        return Cap(floor(amount / price), centavos=amount)
    if rule.cap_smmlv is not None:
        smmlv = offer.money(rule.cap_smmlv.parameter)
        assert smmlv is not None, "required before the limits are built"
        amount = rule.cap_smmlv.times * smmlv
        return Cap(floor(amount / price), centavos=amount, smmlv=smmlv)
    if rule.cap_offered is not None:
        offered = offer.money("acciones_ofrecidas")
        assert offered is not None, "required before the limits are built"
        share = rule.cap_offered
        return Cap(offered_part(offered, share.percent, share.rounding), offered=offered)
    if rule.cap_outstanding is not None:
        outstanding = offer.money(OUTSTANDING)
        assert outstanding is not None, "required before the limits are built"
        share = rule.cap_outstanding
        shares = offered_part(outstanding, share.percent, share.rounding)
        return Cap(shares, outstanding=outstanding)
    assert rule.cap_financed is not None, "a rule without a base is one of the caps"
    plan = plan_of(offer)
    assert plan.max_financed is not None
    amount = to_centavos(plan.max_financed.value)
    return Cap(floor(Fraction(amount) / (plan.financed_part * price)), centavos=amount)


def cap_parameters(rule: LimitRule) -> list[str]:
    """The offer parameters a cap needs besides the price."""
    if rule.cap_smmlv is not None:
        return [rule.cap_smmlv.parameter]
    if rule.cap_offered is not None:
        return ["acciones_ofrecidas"]
    if rule.cap_outstanding is not None:
        return [OUTSTANDING]
    return []
