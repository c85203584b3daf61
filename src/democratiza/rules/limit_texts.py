"""Each limit's sentence, with its arithmetic, as a column: one expression for every row.

"Una vez el patrimonio líquido: 1 × $ 48.000.000 (patrimonio líquido) / $ 2.018 = 23.785
acciones (Decreto 706/2017 art. 8.2.1)". What does not change from row to row (the rule's
name, multiple, price and citation) is written once; the amount, the figure it came from and
the shares are read from the engine's columns.
"""

from __future__ import annotations

import polars as pl

from democratiza.money import (
    COLUMN_GROUPS,
    Parts,
    decimal_percent,
    dollars_parts,
    group,
    group_parts,
    joined,
    pesos,
    pesos_parts,
    price_text,
)
from democratiza.programs.schema import LimitRule
from democratiza.rules.caps import OUTSTANDING, fixed_cap, plan_of
from democratiza.rules.engine import CompiledProgram, limit_column, source_column
from democratiza.words import count, word

# Thousands groups of a quantity of shares: every limit fits (Int64, below 10¹⁹), so a limit
# beyond the largest acceptance (MAX_SHARES, 10¹⁵) is written whole.
SHARE_GROUPS = COLUMN_GROUPS
TIED = ", que dan la misma cantidad (se toma el menor monto)"


def shares_parts(shares: pl.Expr) -> Parts:
    """'1 acción', '23.785 acciones' (``words.count``), as parts."""
    noun = pl.when(shares == 1).then(pl.lit(" acción")).otherwise(pl.lit(" acciones"))
    return [*group_parts(shares, SHARE_GROUPS), noun]


def base_column(rule: LimitRule) -> str:
    """The column holding the numerator of a limit's base (``CompiledProgram.bases``)."""
    return f"base__{rule.id}"


class LimitTexts:
    """The sentences of one program's limits, for one offer (its price and TRM)."""

    def __init__(self, compiled: CompiledProgram, cite: dict[str, str]) -> None:
        self.compiled = compiled
        self.offer = compiled.offer
        self.rules = compiled.offer.program.limits
        self.cite = cite
        self._price = price_text(self.offer.price)

    def sentences(self, rule: LimitRule) -> list[tuple[pl.Expr, pl.Expr]]:
        """The rule's sentence as (rows, text) pairs that together cover the rows where it
        applies: one pair per figure the amount may come from, so that each row is written
        with its own figure's words and only the rows in dollars pay for the conversion."""
        shares = pl.col(limit_column(rule))
        applies = shares.is_not_null()
        where = self.cite[rule.id]
        if rule.base is None:
            return [(applies, pl.lit(self.cap_sentence(rule)))]
        assert rule.base is not None
        numerator = pl.col(base_column(rule))
        source = pl.col(source_column(rule))
        frac = rule.fraction
        multiple = str(frac.numerator) if frac.denominator == 1 else str(frac)
        denominator = self.compiled.base_denominator(rule)
        failed = pl.lit(f"{rule.name}: no se pudo calcular ({where})")
        pairs = [(applies & (numerator.is_null() | source.is_null()), failed)]
        for index, name in enumerate(rule.base.sources):
            computed = joined(
                [
                    pl.lit(f"{rule.name}: {multiple} × "),
                    *pesos_parts(numerator, denominator),
                    pl.lit(f" ({word('monto', name)}"),
                    *self._in_dollars(name, numerator, denominator),
                    pl.lit(f") / {self._price} = "),
                    *shares_parts(shares),
                    pl.lit(f" ({where})"),
                ]
            )
            used = applies & numerator.is_not_null() & (source == index)
            pairs.append((used, computed))
        return pairs

    def cap_sentence(self, rule: LimitRule) -> str:
        """A cap's sentence: the same for every row it applies to."""
        where = self.cite[rule.id]
        if rule.cap_shares is not None:
            return f"{rule.name}: tope de {group(rule.cap_shares)} acciones ({where})"
        cap = fixed_cap(rule, self.offer)
        shares = count(cap.shares, "acción", "acciones")
        if rule.cap_smmlv is not None:
            assert cap.smmlv is not None
            param = self.offer.program.parameters[rule.cap_smmlv.parameter].citation
            salary = (
                f"salario mínimo mensual legal vigente de {rule.cap_smmlv.year}, "
                f"{self.offer.program.cite(param)}"
            )
            return (
                f"{rule.name}: {rule.cap_smmlv.times} × {pesos(cap.smmlv)} ({salary}) / "
                f"{self._price} = {shares} ({where})"
            )
        if rule.cap_offered is not None:
            assert cap.offered is not None
            share = rule.cap_offered
            return (
                f"{rule.name}: {decimal_percent(share.percent)} de {group(cap.offered)} "
                f"acciones ofrecidas = {shares}, {word('redondeo', share.rounding)} ({where})"
            )
        if rule.cap_outstanding is not None:
            assert cap.outstanding is not None
            share = rule.cap_outstanding
            param = self.offer.program.parameters[OUTSTANDING].citation
            return (
                f"{rule.name}: {decimal_percent(share.percent)} de {group(cap.outstanding)} "
                f"acciones en circulación ({self.offer.program.cite(param)}) = {shares}, "
                f"{word('redondeo', share.rounding)} ({where})"
            )
        assert cap.centavos is not None
        if rule.cap_financed is not None:
            financed = decimal_percent(100 - plan_of(self.offer).down_payment.value)
            return (
                f"{rule.name}: {pesos(cap.centavos)} / ({financed} financiado × "
                f"{self._price}) = {shares} ({where})"
            )
        return f"{rule.name}: {pesos(cap.centavos)} / {self._price} = {shares} ({where})"

    def _in_dollars(self, name: str, numerator: pl.Expr, denominator: int) -> Parts:
        """For an amount converted from dollars: ' US$ 20.000 × TRM $ 2.984'; else nothing."""
        if name != "ingresos_usd":
            return []
        trm = self.offer.money("trm") or 0
        usd = (numerator * 100) // (denominator * trm) if trm else pl.lit(0, pl.Int128)
        return [pl.lit(" "), *dollars_parts(usd), pl.lit(f" × TRM {pesos(trm)}")]

    def binds(self, rule: LimitRule) -> pl.Expr:
        """Whether the rule binds the row: its number of shares is the least of the row's
        limits (``limite_minimo``); false where it does not apply."""
        return (pl.col(limit_column(rule)) == pl.col("limite_minimo")).fill_null(False)

    def binding(self, sentences: dict[str, str]) -> tuple[pl.Expr, pl.Expr]:
        """(the binding limits' sentences, how many bind), from the sentence columns.

        Every limit equal to the smallest binds: the decree takes "el menor monto", and when
        two limits give the same shares both are it. One: its sentence; several: "A, B y C,
        que dan la misma cantidad (se toma el menor monto)".
        """
        ties = [self.binds(r) for r in self.rules]
        count = pl.sum_horizontal([t.cast(pl.UInt8) for t in ties])
        tied = [
            pl.when(t).then(pl.col(sentences[r.id])) for r, t in zip(self.rules, ties, strict=True)
        ]
        one = pl.coalesce(tied)
        listed = pl.concat_list(tied).list.drop_nulls()
        several = pl.concat_str(
            [
                listed.list.head(count.cast(pl.Int64) - 1).list.join(", "),
                pl.lit(" y "),
                listed.list.last(),
                pl.lit(TIED),
            ]
        )
        return pl.when(count > 1).then(several).otherwise(one), count
