"""The rules engine: one columnar pass over any number of acceptances.

A single acceptance (the calculator) is a batch of one; there is no second code path. The
result is structured (rule ids, limits, cause bits); Spanish text is rendered from it only
when shown or exported (``rules.explain``).

Decision, per acceptance:
1. every check of the program runs; each failure is one cause bit;
2. every applicable limit gives a maximum in whole shares; a limit whose figure is missing
   is a cause ("never computed on a zero");
3. permitted = min(requested, limits), down to whole lots where the file has a lot
   (``validez.lote``); the binding limit is the smallest, ties going to the rule listed
   first in the program file;
4. rejected if any cause (a permitted quantity of zero is one), reduced if permitted <
   requested, accepted otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import polars as pl

from democratiza.programs.parameters import Offer, OfferParameterError
from democratiza.programs.schema import NO_LIMITS, LimitRule, missing_section
from democratiza.rules.amounts import Base, base_amount, shares_within
from democratiza.rules.caps import cap_parameters, fixed_cap
from democratiza.rules.checks import Check, build_checks, missing_value_check, zero_permitted_check
from democratiza.rules.conditions import condition
from democratiza.tables.acceptances import typed_schema

DECISIONS = pl.Enum(["aceptada", "reducida", "rechazada"])
MAX_CAUSES = 63  # stored as a signed 64-bit integer in the database
# What identifies an acceptance in every result and export.
IDENTITY_COLUMNS = (
    "fila",
    "referencia",
    "comisionista",
    "fecha_radicacion",
    "tipo_identificacion",
    "numero_identificacion",
    "nombre",
    "categoria",
)


def limit_column(rule: LimitRule) -> str:
    return f"limite__{rule.id}"


def source_column(rule: LimitRule) -> str:
    return f"fuente__{rule.id}"


@dataclass(frozen=True)
class CompiledProgram:
    """A program's rules as column expressions, for one offer's parameters."""

    offer: Offer

    @cached_property
    def checks(self) -> list[Check]:
        checks = [
            *build_checks(self.offer),
            *(missing_value_check(r) for r in self.offer.program.limits if r.base),
            zero_permitted_check(self.offer),
        ]
        if len(checks) > MAX_CAUSES:
            raise ValueError(
                f"el programa define {len(checks)} causales; el máximo es {MAX_CAUSES}"
            )
        return checks

    @cached_property
    def _bases(self) -> dict[str, Base]:
        """Each amount limit's base, built once and shared by evaluation and explanations."""
        return {
            rule.id: base_amount(rule.base, self.offer)
            for rule in self.offer.program.limits
            if rule.base is not None
        }

    def _applies(self, rule: LimitRule) -> pl.Expr:
        applies = condition(rule.applies_when, self.offer)
        if rule.cap_financed is not None:  # the financed amount concerns those who finance
            return applies & (pl.col("forma_pago") == rule.cap_financed).fill_null(False)
        return applies

    def _limit(self, rule: LimitRule) -> tuple[pl.Expr, pl.Expr | None]:
        """(shares allowed by the rule or null, index of the source used or None)."""
        applies = self._applies(rule)
        if rule.base is None:
            cap = fixed_cap(rule, self.offer).shares
            return pl.when(applies).then(pl.lit(cap, dtype=pl.Int64)), None
        base = self._bases[rule.id]
        frac = rule.fraction
        shares = shares_within(base.amount, frac.numerator, frac.denominator, self.offer.price)
        return pl.when(applies).then(shares), pl.when(applies).then(base.source_index)

    def bases(self, frame: pl.DataFrame) -> pl.DataFrame:
        """Each amount limit's base (numerator over its fixed denominator), for explanations."""
        return frame.select(
            base.amount.numerator.alias(f"base__{rule_id}") for rule_id, base in self._bases.items()
        )

    def base_denominator(self, rule: LimitRule) -> int:
        return self._bases[rule.id].amount.denominator

    def required_parameters(self, frame: pl.DataFrame) -> None:
        """Refuse the batch when a row needs an offer parameter the office has not set."""
        program, offer = self.offer.program, self.offer
        if not program.limits:  # the text at hand has none: no quantity is invented
            raise OfferParameterError([missing_section(program, "limites", NO_LIMITS)])
        for rule in program.limits:
            needed = cap_parameters(rule)
            if needed:
                offer.require(needed, f"calcular el límite «{rule.name}»")
        uses_usd = any(r.base and "ingresos_usd" in r.base.sources for r in program.limits)
        if uses_usd and frame["ingresos_usd"].is_not_null().any():
            offer.require(["trm"], "convertir los ingresos en dólares de los extranjeros")
        uses_new = any(r.applies_when.new_manager is not None for r in program.limits)
        dated = frame.filter(
            pl.col("directivo").fill_null(False) & pl.col("fecha_ingreso_directivo").is_not_null()
        )
        if uses_new and dated.height:
            offer.require(["fecha_corte_directivos"], "saber quién es directivo nuevo")
            if program.validity.new_managers is not None:
                why = "verificar la vinculación de los directivos nuevos"
                offer.require(["fecha_cierre"], why)

    def evaluate(self, frame: pl.DataFrame) -> pl.DataFrame:
        """Decide every acceptance of ``frame`` (columns as ``tables.acceptances.typed_schema``)."""
        self.required_parameters(frame)
        lazy = frame.lazy()
        for step in self._plan:
            lazy = lazy.with_columns(step)
        return lazy.select(self._outputs).collect()

    @cached_property
    def _plan(self) -> tuple[list[pl.Expr], ...]:
        """The evaluation's expressions, built once per program and offer (they do not depend
        on the rows): a single acceptance is not charged for building them again."""
        rules = self.offer.program.limits
        checks = self.checks
        limit_cols = [limit_column(r) for r in rules]
        stage1: list[pl.Expr] = []
        for rule in rules:
            shares, source = self._limit(rule)
            stage1.append(shares.alias(limit_column(rule)))
            if source is not None:
                stage1.append(source.alias(source_column(rule)))
        for i, check in enumerate(checks):
            if check.fails is not None:
                stage1.append(check.fails.fill_null(True).alias(f"_c{i}"))

        # A limit that applies but came out null lacks the figure it is a multiple of.
        bit = {c.code: i for i, c in enumerate(checks)}
        missing = [
            (self._applies(r) & pl.col(limit_column(r)).is_null()).alias(
                f"_c{bit['falta_valor:' + r.id]}"
            )
            for r in rules
            if r.base
        ]
        least = pl.min_horizontal(limit_cols)
        # Ties go to the rule listed first in the program file (documented tie-break).
        binding = pl.coalesce(
            [
                pl.when(pl.col(col) == least).then(pl.lit(rule.id))
                for rule, col in zip(rules, limit_cols, strict=True)
            ]
        )
        # The limits that concern every filing, whatever its way of paying: a cap of one way
        # of paying (``tope_financiado``) limits only the person's filings paying that way
        # (``rules.person``), so the person's other filings are held to these alone.
        general = [
            (rule, col)
            for rule, col in zip(rules, limit_cols, strict=True)
            if not rule.cap_financed
        ]
        stage2 = [*missing, least.alias("_limite_minimo"), binding.alias("_limitante")]
        if len(general) < len(rules):  # else the same limit and rule (``_outputs``)
            least_general = (
                pl.min_horizontal([c for _, c in general]) if general else pl.lit(None, pl.Int64)
            )
            binding_general = (
                pl.coalesce(
                    [pl.when(pl.col(c) == least_general).then(pl.lit(r.id)) for r, c in general]
                )
                if general
                else pl.lit(None, dtype=pl.String)
            )
            stage2 += [
                least_general.cast(pl.Int64).alias("_limite_general"),
                binding_general.alias("_regla_general"),
            ]
        permitted = pl.min_horizontal(pl.col("cantidad"), pl.col("_limite_minimo")).clip(
            lower_bound=0
        )
        lot = self.offer.program.validity.lot_shares
        if lot > 1:  # what the limits permit, in whole lots (``validez.lote``)
            permitted = permitted // lot * lot
        stage3 = [permitted.alias("cantidad_permitida")]
        zero = f"_c{bit['cantidad_permitida_cero']}"
        # An acceptance not in whole lots is rejected for that; its zero is not the limits'.
        asked = pl.col("cantidad") > 0
        if lot > 1:
            asked = asked & (pl.col("cantidad") % lot == 0)
        stage4 = [((pl.col("cantidad_permitida") == 0) & asked).alias(zero)]
        causes = pl.sum_horizontal(
            [
                pl.col(f"_c{i}").cast(pl.UInt64) * pl.lit(1 << i, dtype=pl.UInt64)
                for i in range(len(checks))
            ]
        )
        stage5 = [causes.alias("causas")]
        rejected = pl.col("causas") != 0
        reduced = pl.col("cantidad_permitida") < pl.col("cantidad")
        decision = (
            pl.when(rejected)
            .then(pl.lit("rechazada"))
            .when(reduced)
            .then(pl.lit("reducida"))
            .otherwise(pl.lit("aceptada"))
            .cast(DECISIONS)
        )
        stage6 = [
            decision.alias("decision"),
            pl.when(rejected)
            .then(0)
            .otherwise(pl.col("cantidad_permitida"))
            .alias("cantidad_permitida"),
            # The binding rule is named for reductions and for a zero permitted quantity.
            pl.when((reduced & ~rejected) | pl.col(zero))
            .then(pl.col("_limitante"))
            .alias("regla_limitante"),
        ]
        return stage1, stage2, stage3, stage4, stage5, stage6

    @cached_property
    def _outputs(self) -> list[pl.Expr | str]:
        rules = self.offer.program.limits
        payment = self.offer.program.caps_a_way_of_paying  # else the general is the least
        general = "general" if payment else "minimo"
        return [
            *IDENTITY_COLUMNS,
            "forma_pago",
            "estado_certificado",
            "cantidad",
            "cantidad_permitida",
            pl.col("_limite_minimo").alias("limite_minimo"),
            "decision",
            "regla_limitante",
            # The rule behind limite_minimo, reduced or not: a person's later filings may be
            # cut by it (``rules.person``).
            pl.col("_limitante").alias("regla_limite"),
            pl.col(f"_limite_{general}").alias("limite_general"),
            pl.col("_regla_general" if payment else "_limitante").alias("regla_general"),
            "causas",
            *(limit_column(r) for r in rules),
            *(source_column(r) for r in rules if r.base),
        ]


def frame_from_rows(rows: list[dict[str, object]]) -> pl.DataFrame:
    """Typed acceptances from plain dicts (calculator, tests); absent keys are null."""
    schema = typed_schema()
    unknown = {k for row in rows for k in row} - set(schema)
    if unknown:
        raise KeyError(f"columnas desconocidas: {sorted(unknown)}")
    full = [{**dict.fromkeys(schema), **{"fila": i + 1}, **row} for i, row in enumerate(rows)]
    return pl.DataFrame(full, schema=schema)
