"""One person, many acceptances: the limits apply to the person, not to each acceptance.

Decision of the program office where the decrees are silent (docs/lecturas.md): acceptances
by one identification document, through one broker or several, count together against that
person's limits in the order they were received (``recepcion``: the system's order, never a
broker's declared time); what exceeds the limit is reduced, latest received first. The
person's limit is the smallest limit any of their valid acceptances carries: each acceptance
brings its own documents, and the decree's rule is "se tomará en cuenta el menor monto".
"""

from __future__ import annotations

import polars as pl

PERSON = ["tipo_identificacion", "numero_identificacion"]
ORDER = ["recepcion"]  # the order of receipt, unique (``storage.receipts.receipt_rank``)


def per_person(acceptances: pl.DataFrame) -> pl.DataFrame:
    """Adds ``cantidad_persona`` (what the person's limits leave for each acceptance),
    ``limite_persona``, ``usado_antes`` (shares the person's earlier acceptances took) and,
    for a reduced acceptance, ``consumido_por`` (the radicados that took them).

    Input columns: the PERSON and ORDER columns, ``cantidad_permitida``, ``limite_minimo``
    (null when no limit applies) and ``decision``. Rejected acceptances keep 0 and use
    nothing. Output rows are in person then receipt order.
    """
    valid = pl.col("decision") != "rechazada"
    asked = pl.when(valid).then(pl.col("cantidad_permitida")).otherwise(0)
    # One small integer per person, then one sort: people together, each in filing order.
    person = pl.struct(PERSON).rank("dense").alias("_persona")
    ranked = acceptances.with_columns(person, asked.alias("_pedida")).sort("_persona", *ORDER)
    first = pl.col("_persona") != pl.col("_persona").shift(1).fill_null(-1)
    total = pl.col("_pedida").cum_sum()
    ranked = ranked.with_columns(
        pl.when(valid).then(pl.col("limite_minimo")).min().over("_persona").alias("limite_persona"),
        # Asked before this one by the same person: running total minus the person's start.
        (
            total
            - pl.col("_pedida")
            - pl.when(first).then(total - pl.col("_pedida")).forward_fill()
        ).alias("_antes"),
    )
    # Once what was asked passes the limit every later acceptance gets nothing, so the room
    # left is the limit minus what was asked before (never below zero).
    limit = pl.col("limite_persona")
    out = ranked.with_columns(
        pl.when(limit.is_null())
        .then(pl.col("_pedida"))
        .otherwise(pl.min_horizontal("_pedida", (limit - pl.col("_antes")).clip(0)))
        .alias("cantidad_persona"),
        pl.min_horizontal("_antes", limit).alias("usado_antes"),
    ).with_columns((pl.col("cantidad_persona") < pl.col("_pedida")).alias("_reducida"))
    used = _used_by(out)
    return out.join(used, on="radicado", how="left", maintain_order="left").drop(
        "_pedida", "_antes", "_reducida", "_persona"
    )


def _used_by(people: pl.DataFrame) -> pl.DataFrame:
    """For each acceptance the person's limit reduced, the valid ones filed before it.

    Only the people with a reduction are looked at: usually a handful among a million.
    """
    affected = people.filter(pl.col("_reducida").any().over("_persona"))
    valid = affected.filter(pl.col("decision") != "rechazada")
    earlier = (
        pl.col("radicado").implode().over(PERSON).list.head(pl.int_range(pl.len()).over(PERSON))
    )
    return (
        valid.with_columns(earlier.list.join(", ").alias("consumido_por"))
        .filter(pl.col("_reducida"))
        .select("radicado", "consumido_por")
    )
