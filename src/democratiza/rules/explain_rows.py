"""The explanations of a few rows, written one row at a time in plain Python.

Why a second way to write the same sentences: ``rules.explain`` builds every sentence as a
column expression, so a million rows are explained in seconds; but each of its steps is a
Polars query, and for the thirty rows of a group of single acceptances those queries (more
than a hundred) cost 20 ms where these loops cost under one. ``Explainer.explain_all`` uses
this for a few rows and the columns for many; ``tests/test_explanations.py`` holds both to
the same bytes on every row of generated populations of every program (every decision,
limit, tie and cause), so a sentence changed in one place and not the other fails there.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import polars as pl

from democratiza.money import group
from democratiza.rules.cause_texts import PERSON
from democratiza.rules.checks import Check
from democratiza.rules.engine import CompiledProgram, limit_column
from democratiza.rules.row_limits import Row, RowLimits, in_shares
from democratiza.words import count, word


@dataclass(frozen=True)
class Explanation:
    decision: str
    summary: str
    limits: tuple[str, ...]  # every applicable limit with its arithmetic
    causes: tuple[str, ...]  # every cause of rejection found

    def lines(self) -> list[str]:
        return [self.summary, *self.causes, *self.limits]


class RowExplainer:
    """One ``Explanation`` per row of a compiled program's results, row by row."""

    def __init__(self, compiled: CompiledProgram) -> None:
        self.compiled = compiled
        self.program = compiled.offer.program
        self.limits = RowLimits(compiled)

    def cause_text(self, check: Check, row: Row, base: Row) -> str:
        program, where = self.program, self.limits.cite(check.citation)
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
        return f"La cantidad permitida es cero: {self.limits.binding_text(row, base)}."

    def explain(self, row: Row, base: Row) -> Explanation:
        causes = tuple(
            self.cause_text(check, row, base)
            for i, check in enumerate(self.compiled.checks)
            if row["causas"] >> i & 1
        )
        limits = tuple(
            self.limits.limit_text(rule, row, base)
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
                f"{self.limits.by_binding(row, base)}."
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
