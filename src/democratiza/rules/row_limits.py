"""Each limit's sentence and the binding limits', written for one row in plain Python.

The same text as the column expressions of ``limit_texts`` (which explain a million rows in
seconds), for the few rows of a group of single acceptances, a page or the calculator,
where building and running those expressions costs far more than the rows themselves
(``rules.explain_rows``). ``tests/test_explanations.py`` holds both to the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from democratiza.money import decimal_percent, dollars, group, pesos, price_text
from democratiza.programs.schema import Citation, LimitRule
from democratiza.rules.caps import OUTSTANDING
from democratiza.rules.engine import CompiledProgram, limit_column, source_column
from democratiza.words import count, word

Row = Mapping[str, Any]  # one row of the engine's results (or of its bases), by column


def in_shares(n: int) -> str:
    """'1 acción', '23.785 acciones'."""
    return count(n, "acción", "acciones")


def _where_cap(rule: LimitRule, where: str) -> str:
    """After a cap's shares: how a percentage was rounded, then the article."""
    share = rule.cap_offered or rule.cap_outstanding
    if share is not None:
        return f", {word('redondeo', share.rounding)} ({where})"
    return f" ({where})"


class RowLimits:
    """The limits' sentences of one compiled program, row by row."""

    def __init__(self, compiled: CompiledProgram) -> None:
        self.compiled = compiled
        self.offer = compiled.offer
        self.program = compiled.offer.program
        # Per rule, the parts of its sentence that do not change from row to row.
        self._price = price_text(self.offer.price)
        self._cites = {r.id: self.cite(r.citation) for r in self.program.limits}
        self._multiples = {r.id: _multiple(r) for r in self.program.limits if r.base}
        self._denominators = {
            r.id: compiled.base_denominator(r) for r in self.program.limits if r.base
        }
        lot = self.program.validity.lot
        lots = "" if lot is None else f"{in_shares(lot.value)} ({self.cite(lot.citation)})"
        self._lots = lots and f", en lotes de {lots}"

    def cite(self, citation: Citation) -> str:
        return f"{self.program.norms[citation.norm].short} {citation.ref}"

    def limit_text(self, rule: LimitRule, row: Row, base: Row) -> str:
        shares = row[limit_column(rule)]
        where = self._cites[rule.id]
        if rule.cap_shares is not None:
            return f"{rule.name}: tope de {group(rule.cap_shares)} acciones ({where})"
        if rule.base is None:
            arithmetic = self._cap_arithmetic(rule)
            return f"{rule.name}: {arithmetic} = {in_shares(shares)}{_where_cap(rule, where)}"
        numerator = base.get(f"base__{rule.id}")
        source_index = row.get(source_column(rule))
        if numerator is None or shares is None or source_index is None:
            return f"{rule.name}: no se pudo calcular ({where})"
        source = rule.base.sources[source_index]
        den = self._denominators[rule.id]
        whole, rest = divmod(numerator, den)
        amount = whole if rest == 0 else Fraction(numerator, den)  # centavos, exact
        label = word("monto", source)
        if source == "ingresos_usd":
            trm = self.offer.money("trm") or 0
            label += f" {dollars(int(amount * 100 / trm))} × TRM {pesos(trm)}"
        return (
            f"{rule.name}: {self._multiples[rule.id]} × {pesos(amount)} ({label}) / "
            f"{self._price} = {in_shares(shares)} ({where})"
        )

    def _cap_arithmetic(self, rule: LimitRule) -> str:
        """What a cap is computed from, as a person writes it."""
        price = self._price
        if rule.cap_pesos is not None:
            return f"{pesos(rule.cap_pesos * 100)} / {price}"
        if rule.cap_smmlv is not None:
            name = rule.cap_smmlv.parameter
            salary = self.offer.money(name)
            assert salary is not None
            where = self.cite(self.program.parameters[name].citation)
            year = rule.cap_smmlv.year
            return (
                f"{rule.cap_smmlv.times} × {pesos(salary)} (salario mínimo mensual legal "
                f"vigente de {year}, {where}) / {price}"
            )
        if rule.cap_offered is not None:
            offered = self.offer.money("acciones_ofrecidas")
            assert offered is not None
            share = decimal_percent(rule.cap_offered.percent)
            return f"{share} de {group(offered)} acciones ofrecidas"
        if rule.cap_outstanding is not None:
            outstanding = self.offer.money(OUTSTANDING)
            assert outstanding is not None
            param = self.cite(self.program.parameters[OUTSTANDING].citation)
            share = decimal_percent(rule.cap_outstanding.percent)
            return f"{share} de {group(outstanding)} acciones en circulación ({param})"
        plan = self.program.instalment_plan
        assert plan is not None and plan.max_financed is not None
        financed = decimal_percent(100 - plan.down_payment.value)
        return f"{pesos(plan.max_financed.value * 100)} / ({financed} financiado × {price})"

    def binding_rules(self, row: Row) -> list[LimitRule]:
        """Every limit that gives the permitted quantity: the decree takes "el menor monto",
        and when two limits give the same number of shares both bind (the first listed is
        the one recorded as ``regla_limitante``)."""
        least = row.get("limite_minimo")
        tied = [
            r for r in self.program.limits if least is not None and row[limit_column(r)] == least
        ]
        return tied or [self.program.limit(row["regla_limitante"])]

    def binding_text(self, row: Row, base: Row) -> str:
        """The binding limit with its arithmetic; several, when they tie."""
        texts = [self.limit_text(rule, row, base) for rule in self.binding_rules(row)]
        if len(texts) == 1:
            return texts[0] + self._lots
        listed = ", ".join(texts[:-1]) + " y " + texts[-1]
        return f"{listed}, que dan la misma cantidad (se toma el menor monto){self._lots}"

    def by_binding(self, row: Row, base: Row) -> str:
        """'el límite …' or, when limits tie, 'los límites … y …'."""
        article = "el límite" if len(self.binding_rules(row)) == 1 else "los límites"
        return f"{article} {self.binding_text(row, base)}"


def _multiple(rule: LimitRule) -> str:
    frac = rule.fraction
    if frac.denominator == 1:
        return str(frac.numerator)
    return f"{frac.numerator}/{frac.denominator}"
