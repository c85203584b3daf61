"""One person, many acceptances: the limits apply to the person, not to each acceptance.

Decision of the program office where the decrees are silent (dominio.md §3): acceptances by
one identification document, through one broker or several, count together against that
person's limits in filing order (filing time, then radicado); what exceeds the limit is
reduced, latest first. The person's limit is the smallest limit any of their valid
acceptances carries: each acceptance brings its own documents, and the decree's rule is
"se tomará en cuenta el menor monto".
"""

from __future__ import annotations

import polars as pl

PERSON = ["tipo_identificacion", "numero_identificacion"]
ORDER = ["fecha_radicacion", "radicado"]


def per_person(acceptances: pl.DataFrame) -> pl.DataFrame:
    """Adds ``cantidad_persona`` (what the person's limits leave for each acceptance),
    ``limite_persona``, ``usado_antes`` (shares the person's earlier acceptances took) and,
    for a reduced acceptance, ``consumido_por`` (the radicados that took them).

    Input columns: the PERSON and ORDER columns, ``cantidad_permitida``, ``limite_minimo``
    (null when no limit applies) and ``decision``. Rejected acceptances keep 0 and use
    nothing. Output rows are in person then filing order.
    """
    valid = pl.col("decision") != "rechazada"
    asked = pl.when(valid).then(pl.col("cantidad_permitida")).otherwise(0)
    ranked = acceptances.sort([*PERSON, *ORDER]).with_columns(
        asked.alias("_pedida"),
        pl.when(valid).then(pl.col("limite_minimo")).min().over(PERSON).alias("limite_persona"),
    )
    # Asked before this one; once it passes the limit every later acceptance gets nothing, so
    # the room left is the limit minus what was asked before (never below zero).
    asked_before = (pl.col("_pedida").cum_sum() - pl.col("_pedida")).over(PERSON)
    limit = pl.col("limite_persona")
    # Who used the limit: the person's valid acceptances filed before a reduced one.
    valid_radicado = pl.when(valid).then(pl.col("radicado"))
    rank = valid_radicado.cum_count().over(PERSON)
    filed = valid_radicado.drop_nulls().implode().over(PERSON)
    return (
        ranked.with_columns(asked_before.alias("_antes"))
        .with_columns(
            pl.when(limit.is_null())
            .then(pl.col("_pedida"))
            .otherwise(pl.min_horizontal("_pedida", (limit - pl.col("_antes")).clip(0)))
            .alias("cantidad_persona"),
            pl.min_horizontal("_antes", limit).alias("usado_antes"),
        )
        .with_columns(
            pl.when(pl.col("cantidad_persona") < pl.col("_pedida"))
            .then(filed.list.head(rank - 1).list.join(", "))
            .alias("consumido_por")
        )
        .drop("_pedida", "_antes")
    )
