"""The reference of the explanations: the same Spanish text, written one row at a time.

Deliberately plain Python over each row (the way the explanations were first written): the
columnar ``rules.explain`` must give byte-identical text for every row
(``tests/test_explanations.py``). It is never used by the application.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

import polars as pl

from democratiza.money import decimal_percent, dollars, group, pesos
from democratiza.programs.schema import Citation, LimitRule
from democratiza.rules.checks import Check
from democratiza.rules.engine import CompiledProgram, limit_column, source_column
from democratiza.rules.explain import Explanation
from democratiza.words import count, word

PERSON = {"natural": "personas naturales", "juridica": "personas jurídicas"}


def where_cap(rule: LimitRule, where: str) -> str:
    """After a cap's shares: how a percentage was rounded, then the article."""
    if rule.cap_offered is not None:
        return f", {word('redondeo', rule.cap_offered.rounding)} ({where})"
    return f" ({where})"


def in_shares(n: int) -> str:
    """'1 acción', '23.785 acciones'."""
    return count(n, "acción", "acciones")


class ReferenceExplainer:
    def __init__(self, compiled: CompiledProgram) -> None:
        self.compiled = compiled
        self.offer = compiled.offer
        self.program = compiled.offer.program
        # Per rule, the parts of its sentence that do not change from row to row.
        self._price = pesos(self.offer.price_centavos)
        self._cites = {r.id: self._c(r.citation) for r in self.program.limits}
        self._multiples = {r.id: self._multiple(r) for r in self.program.limits if r.base}
        self._denominators = {
            r.id: compiled.base_denominator(r) for r in self.program.limits if r.base
        }

    def cite_rule(self, rule: LimitRule) -> str:
        return self._cites[rule.id]

    @staticmethod
    def _multiple(rule: LimitRule) -> str:
        frac = rule.fraction
        if frac.denominator == 1:
            return str(frac.numerator)
        return f"{frac.numerator}/{frac.denominator}"

    def _c(self, citation: Citation) -> str:
        return f"{self.program.norms[citation.norm].short} {citation.ref}"

    def limit_text(self, rule: LimitRule, row: Mapping[str, Any], base: Mapping[str, Any]) -> str:
        shares = row[limit_column(rule)]
        where = self._cites[rule.id]
        if rule.cap_shares is not None:
            return f"{rule.name}: tope de {group(rule.cap_shares)} acciones ({where})"
        if rule.base is None:
            arithmetic = self._cap_arithmetic(rule)
            return f"{rule.name}: {arithmetic} = {in_shares(shares)}{where_cap(rule, where)}"
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
            where = self._c(self.program.parameters[name].citation)
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
        plan = self.program.instalment_plan
        assert plan is not None and plan.max_financed is not None
        financed = decimal_percent(100 - plan.down_payment.value)
        return f"{pesos(plan.max_financed.value * 100)} / ({financed} financiado × {price})"

    def binding_rules(self, row: Mapping[str, Any]) -> list[LimitRule]:
        """Every limit that gives the permitted quantity: the decree takes "el menor monto",
        and when two limits give the same number of shares both bind (the first listed is
        the one recorded as ``regla_limitante``)."""
        least = row.get("limite_minimo")
        tied = [
            r for r in self.program.limits if least is not None and row[limit_column(r)] == least
        ]
        return tied or [self.program.limit(row["regla_limitante"])]

    def binding_text(self, row: Mapping[str, Any], base: Mapping[str, Any]) -> str:
        """The binding limit with its arithmetic; several, when they tie."""
        texts = [self.limit_text(rule, row, base) for rule in self.binding_rules(row)]
        lot = self.program.validity.lot
        lots = (
            "" if lot is None else f", en lotes de {in_shares(lot.value)} ({self._c(lot.citation)})"
        )
        if len(texts) == 1:
            return texts[0] + lots
        listed = ", ".join(texts[:-1]) + " y " + texts[-1]
        return f"{listed}, que dan la misma cantidad (se toma el menor monto){lots}"

    def by_binding(self, row: Mapping[str, Any], base: Mapping[str, Any]) -> str:
        """'el límite …' or, when limits tie, 'los límites … y …'."""
        article = "el límite" if len(self.binding_rules(row)) == 1 else "los límites"
        return f"{article} {self.binding_text(row, base)}"

    def cause_text(self, check: Check, row: Mapping[str, Any], base: Mapping[str, Any]) -> str:
        program, where = self.program, self._c(check.citation)
        kind = check.kind
        if kind == "categoria":
            return (
                f"La categoría '{row['categoria']}' no es destinataria en este programa ({where})."
            )
        if kind == "estado_certificado":
            return (
                f"El certificado laboral acredita '{row['estado_certificado']}' y la categoría "
                f"exige '{check.subject}' ({where})."
            )
        if kind == "justa_causa":
            return f"Ex trabajador retirado por justa causa alegada por el empleador ({where})."
        if kind in ("documento", "vigencia_documento"):
            doc = program.documents[int(check.subject)]
            if kind == "documento":
                return f"Falta el documento: {doc.name} ({where})."
            return (
                f"{doc.name}: sin fecha o expedido fuera de los {doc.max_age_months} mes(es) "
                f"anteriores a la radicación ({where})."
            )
        if kind == "compromiso":
            rules = [*program.undertakings, program.sworn_statement]
            text = next(u.text for u in rules if u is not None and u.id == check.subject)
            return f"Falta la manifestación escrita: {text} ({where})."
        if kind == "forma_pago" and check.subject:
            return (
                f"La forma de pago '{row['forma_pago']}' solo se admite para "
                f"{PERSON[check.subject]} ({where})."
            )
        if kind == "forma_pago":
            allowed = ", ".join(
                m.id + (f" (solo {PERSON[m.only_for]})" if m.only_for else "")
                for m in program.payment_methods
            )
            return (
                f"Forma de pago '{row['forma_pago']}' no admitida; se admite: {allowed} ({where})."
            )
        if kind == "cantidad":
            return f"La cantidad debe ser un número entero de acciones mayor que cero ({where})."
        if kind == "cantidad_minima":
            return (
                f"La cantidad es inferior al mínimo de {in_shares(int(check.subject))} por "
                f"aceptación ({where})."
            )
        if kind == "lote":
            lot = in_shares(int(check.subject))
            return f"La cantidad no es un múltiplo del lote de {lot} ({where})."
        if kind == "fuera_de_plazo":
            filed = row["fecha_radicacion"]
            return f"Radicada el {filed:%Y-%m-%d}, fuera del plazo de la oferta ({where})."
        if kind == "directivo_nuevo":
            return (
                f"Directivo nuevo no vinculado el día hábil anterior al cierre "
                f"({check.subject}) ({where})."
            )
        if kind == "falta_valor":
            rule = program.limit(check.subject)
            assert rule.base is not None
            needed = " o ".join(word("monto", s) for s in rule.base.sources)
            return (
                f"No se puede calcular el límite «{rule.name}»: falta {needed}; "
                f"no se calcula sobre cero ({where})."
            )
        return f"La cantidad permitida es cero: {self.binding_text(row, base)}."

    def explain(self, row: Mapping[str, Any], base: Mapping[str, Any]) -> Explanation:
        causes = tuple(
            self.cause_text(check, row, base)
            for i, check in enumerate(self.compiled.checks)
            if row["causas"] >> i & 1
        )
        limits = tuple(
            self.limit_text(rule, row, base)
            for rule in self.program.limits
            if row[limit_column(rule)] is not None
        )
        decision = row["decision"]
        asked, allowed = row["cantidad"], row["cantidad_permitida"]
        if decision == "rechazada":
            summary = f"Rechazada: {count(len(causes), 'causa', 'causas')}."
        elif decision == "reducida":
            summary = (
                f"Reducida de {group(asked)} a {in_shares(allowed)} por "
                f"{self.by_binding(row, base)}."
            )
        else:
            summary = f"Aceptada por {in_shares(allowed)}: ningún límite es menor."
        return Explanation(decision, summary, limits, causes)

    def explain_all(self, results: pl.DataFrame, frame: pl.DataFrame) -> Iterator[Explanation]:
        bases = self.compiled.bases(frame)
        for row, base in zip(
            results.iter_rows(named=True), bases.iter_rows(named=True), strict=True
        ):
            yield self.explain(row, base)

    def explain_not_accepted(
        self, results: pl.DataFrame, frame: pl.DataFrame, limit: int | None = None
    ) -> list[Explanation | None]:
        """Each row's explanation if it was not accepted (at most ``limit`` of them), else None.

        Why only those: a broker is told why a row was reduced or rejected; building the
        texts of accepted rows (most of a batch) only to drop them cost the interpreter time
        other requests were waiting for.
        """
        positions = (
            results.with_row_index("_fila")
            .filter(pl.col("decision").cast(pl.String) != "aceptada")["_fila"]
            .head(limit if limit is not None else results.height)
            .to_list()
        )
        explained: list[Explanation | None] = [None] * results.height
        if positions:
            found = self.explain_all(results[positions], frame[positions])
            for position, explanation in zip(positions, found, strict=True):
                explained[position] = explanation
        return explained
