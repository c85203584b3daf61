"""Which orders enter the book: the stage's rules, checked on every order at intake.

An order that breaks a rule is kept (the broker sees it, the auditor too) but marked
``rechazada`` with every reason, each naming where the rule comes from; it never reaches
the clearing. The rules:

- entered within the stage's window (the aviso / reglamento: the stage file's ``fuente``);
- the investor declares legal capacity to hold the issuer's shares (``inversionistas`` of
  the program file, e.g. GEB art. 3.2);
- a whole number of shares, at least the minimum order (the aviso);
- a price at or above the stage's minimum price (``precio_minimo`` of the program file,
  e.g. Ley 226 art. 10).
"""

from __future__ import annotations

from datetime import datetime, time

import polars as pl

from democratiza.money import group, pesos
from democratiza.programs.schema import CitedText
from democratiza.stages.lifecycle import StoredStage
from democratiza.stages.terms import rules


def _cite(stage: StoredStage, rule: CitedText) -> str:
    return stage.program.cite(rule.citation)


def check_orders(stage: StoredStage, frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` (typed orders) with ``decision`` (valida / rechazada) and ``motivo``."""
    terms, later = stage.terms, rules(stage.program)
    opens = datetime.combine(terms.opens, time.min)
    closes = datetime.combine(terms.closes, time.max)
    entered = pl.col("fecha_ingreso")
    checks = [
        (
            (entered < opens) | (entered > closes),
            f"ingresada fuera del plazo de la etapa, del {terms.opens} al {terms.closes} "
            f"({terms.source})",
        ),
        (
            ~pl.col("capacidad_legal").fill_null(False),
            "no declara capacidad legal para participar en el capital social; pueden comprar "
            f"{later.investors.value} ({_cite(stage, later.investors)})",
        ),
        (pl.col("cantidad_fraccionaria"), "la cantidad de acciones no es entera"),
        (
            pl.col("cantidad") < terms.minimum_order,
            f"cantidad por debajo de la orden mínima de {group(terms.minimum_order)} acciones "
            f"({terms.source})",
        ),
        (
            pl.col("precio") < stage.minimum_price,
            f"precio por debajo del precio mínimo de la etapa, {pesos(stage.minimum_price)} "
            f"({_cite(stage, later.minimum_price)})",
        ),
    ]
    reasons = pl.concat_list(
        [
            pl.when(bad).then(pl.lit(text)).otherwise(pl.lit(None, dtype=pl.String))
            for bad, text in checks
        ]
    ).list.drop_nulls()
    return (
        frame.with_columns(reasons.alias("_razones"))
        .with_columns(
            pl.when(pl.col("_razones").list.len() > 0)
            .then(pl.lit("rechazada"))
            .otherwise(pl.lit("valida"))
            .alias("decision"),
            pl.when(pl.col("_razones").list.len() > 0)
            .then(pl.col("_razones").list.join("; "))
            .otherwise(pl.lit(None, dtype=pl.String))
            .alias("motivo"),
        )
        .drop("_razones")
    )
