"""A program's conditions ("aplica si", "exigible si") as column predicates."""

from __future__ import annotations

import polars as pl

from democratiza.programs.parameters import Offer
from democratiza.programs.schema import Condition
from democratiza.vocabulary import NATURAL_CATEGORIES


def is_natural() -> pl.Expr:
    return pl.col("categoria").is_in(sorted(NATURAL_CATEGORIES))


def flag(column: str) -> pl.Expr:
    """A yes/no figure; not filed means no."""
    return pl.col(column).fill_null(False)


def is_new_manager(offer: Offer) -> pl.Expr:
    """A manager who reached the post after the program's cut-off date (GEB 8.2.4 and kin)."""
    cutoff = offer.day("fecha_corte_directivos")
    if cutoff is None:
        # The engine refuses a batch with dated managers when the cut-off is unknown.
        return pl.lit(False)
    return flag("directivo") & (pl.col("fecha_ingreso_directivo") > pl.lit(cutoff)).fill_null(False)


def condition(cond: Condition, offer: Offer) -> pl.Expr:
    parts: list[pl.Expr] = []
    if cond.person is not None:
        parts.append(is_natural() if cond.person == "natural" else ~is_natural())
    if cond.categories is not None:
        parts.append(pl.col("categoria").is_in(list(cond.categories)))
    if cond.files_tax_return is not None:
        parts.append(flag("obligado_declarar") == cond.files_tax_return)
    if cond.foreigner is not None:
        parts.append(flag("extranjero") == cond.foreigner)
    if cond.manager is not None:
        parts.append(flag("directivo") == cond.manager)
    if cond.new_manager is not None:
        parts.append(is_new_manager(offer) == cond.new_manager)
    return pl.all_horizontal(parts) if parts else pl.lit(True)
