"""Credit lines for the Primera Etapa (Ley 226 de 1995 art. 11.3; GEB arts. 6.4 and 7).

``lines`` (a program's conditions and a proposed line), ``checks`` (each condition checked,
with its arithmetic), ``schedule`` (a loan's amortisation schedule) and ``collateral`` (how
far the pledged shares cover the balance). Rates are fractions (``Decimal("0.18")`` is 18 %
efectivo anual), as ``RatePeriod.rate``.
"""
