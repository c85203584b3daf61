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
from democratiza.rules.cause_texts import PERSON, fixed_sentence
from democratiza.rules.checks import Check
from democratiza.rules.engine import CompiledProgram, limit_column
from democratiza.rules.row_limits import Row, RowLimits, in_shares
from democratiza.words import count


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
        """A cause's sentence for one row: those that quote the row are written here, the
        others are ``cause_texts.fixed_sentence``, the one the columns write."""
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
        if kind == "fuera_de_plazo":
            filed = row["fecha_radicacion"]
            return f"Radicada el {filed:%Y-%m-%d}, fuera del plazo de la oferta ({where})."
        if kind == "permitida_cero":
            return f"La cantidad permitida es cero: {self.limits.binding_text(row, base)}."
        return fixed_sentence(check, program, where)

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
