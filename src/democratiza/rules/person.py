"""One person, many acceptances: the limits apply to the person, not to each acceptance.

Decision of the program office where the decrees are silent (docs/lecturas.md): acceptances
by one identification document, through one broker or several, count together against that
person's limits in the order they were received (``recepcion``: the system's order, never a
broker's declared time); what exceeds the limit is reduced, latest received first. The
person's limit is the smallest limit any of their valid acceptances carries: each acceptance
brings its own documents, and the decree's rule is "se tomará en cuenta el menor monto".

An acceptance cut this way is ``reducida`` from then on, whatever it was at intake: its
binding rule is the one behind the person's smallest limit (the earliest received filing
that carries it), and ``consumido_por`` names the filings that used that limit before it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from democratiza.programs.schema import Program

PERSON = ["tipo_identificacion", "numero_identificacion"]
ORDER = ["recepcion"]  # the order of receipt, unique (``storage.radicados``)


# An acceptance's smallest limit whatever its way of paying, and its rule: the same as
# ``limite_minimo`` and ``regla_limite`` unless the program caps one way of paying.
GENERAL = ("limite_general", "regla_general")


def stored_general(program: Program) -> list[pl.Expr]:
    """``GENERAL`` as an acceptance is stored: as decided where the program caps one way of
    paying, NULL elsewhere, meaning "the same as ``limite_minimo`` and ``regla_limite``".

    Why not stored twice: a million acceptances would carry two more columns that repeat
    two others, and writing them made the intake a quarter slower. Read back with
    ``read_general``; ``per_person`` reads the smallest limit where they are absent.
    """
    if program.caps_a_way_of_paying:
        return [pl.col(name) for name in GENERAL]
    return [
        pl.lit(None, dtype=pl.Int64).alias(GENERAL[0]),
        pl.lit(None, pl.String).alias(GENERAL[1]),
    ]


def read_general(program: Program) -> tuple[str, ...]:
    """The ``GENERAL`` columns to read back from stored acceptances: none where the program
    caps no way of paying (they are NULL there, ``stored_general``, and older rows hold
    copies of ``limite_minimo`` and ``regla_limite``)."""
    return GENERAL if program.caps_a_way_of_paying else ()


PERSON_HASH = pl.struct(PERSON).hash()  # one number per identification (collisions checked)
PERSON_KEY = "clave_persona"  # a number per person (``person_keys``), when a caller has it


def person_keys(acceptances: pl.DataFrame, identity: Sequence[str] = PERSON) -> pl.Series:
    """A number per person, one per identification (type and number, or the ``identity``
    columns given): 0, 1, 2, ..., the same on every row of one person and different for
    different persons, in the input's order.

    Persons are told apart by a 64-bit hash of their identification, far cheaper than ranking
    the texts; two persons whose hashes collide would be merged, so the rows are checked, and
    the exact ranking is used in that (astronomically rare) case. A caller that works on one
    population many times (the program designer) computes these once and passes them in the
    ``PERSON_KEY`` column, to ``per_person`` and to the adjudication's figures.
    """
    identity = list(identity)
    hashed = acceptances.select(
        pl.int_range(pl.len(), dtype=pl.UInt32).alias("_fila"),
        (PERSON_HASH if identity == PERSON else pl.struct(identity).hash()).alias("_huella"),
        *identity,
    ).sort("_huella")
    same_hash = pl.col("_huella") == pl.col("_huella").shift(1)
    same_person = pl.all_horizontal(pl.col(c) == pl.col(c).shift(1) for c in identity)
    collided = hashed.select((same_hash & ~same_person).any()).item()
    if collided:
        exact = acceptances.select(pl.struct(identity).rank("dense").cast(pl.UInt32) - 1)
        return exact.to_series().alias(PERSON_KEY)
    numbers = hashed.select((~same_hash.fill_null(False)).cum_sum().cast(pl.UInt32) - 1)
    keys = np.empty(hashed.height, dtype=np.uint32)  # back in the input's order, by position
    keys[hashed["_fila"].to_numpy()] = numbers.to_series().to_numpy()
    return pl.Series(PERSON_KEY, keys)


def per_person(acceptances: pl.DataFrame) -> pl.DataFrame:
    """Adds ``cantidad_persona`` (what the person's limits leave for each acceptance),
    ``limite_persona``, ``usado_antes`` (shares the person's earlier acceptances took) and,
    for a reduced acceptance, ``consumido_por`` (the radicados that took them); a reduced
    acceptance's ``decision`` becomes ``reducida`` and its ``regla_limitante`` the rule
    behind the person's limit.

    Input columns: the PERSON and ORDER columns (and PERSON_KEY, when the caller has it),
    ``radicado``, ``cantidad_permitida``, ``limite_minimo`` (null when no limit applies),
    ``regla_limite`` (its rule), ``decision`` and ``regla_limitante``. Rejected acceptances
    keep 0 and use nothing. Output rows are in the order of the input.
    """
    valid = pl.col("decision") != "rechazada"
    # The work is done on the few numbers it reads (the texts only for the reduced persons),
    # each person's acceptances together in the order of receipt; the answers go back to the
    # input's rows by position.
    given = PERSON_KEY in acceptances.columns
    keys = acceptances[PERSON_KEY] if given else person_keys(acceptances)
    general = "limite_general" if "limite_general" in acceptances.columns else "limite_minimo"
    slim = acceptances.select(
        pl.int_range(pl.len(), dtype=pl.UInt32).alias("_fila"),
        keys.alias("_persona"),
        *ORDER,
        pl.when(valid).then(pl.col("cantidad_permitida")).otherwise(0).alias("_pedida"),
        pl.when(valid).then(pl.col("limite_minimo")).alias("_limite"),
        pl.when(valid).then(pl.col(general)).alias("_general"),
    )
    # A filing whose own smallest limit is below the limits that concern every filing is
    # held by a cap of its way of paying (``tope_financiado``): that cap binds the person's
    # filings paying that way, and only them.
    paying = pl.col("_limite").is_not_null() & (
        pl.col("_general").is_null() | (pl.col("_limite") < pl.col("_general"))
    )
    ranked = slim.sort("_persona", *ORDER).with_columns(paying.alias("_cuotas"))
    first = pl.col("_persona") != pl.col("_persona").shift(1).fill_null(-1)

    def before(amount: pl.Expr) -> pl.Expr:
        """What the person's earlier filings (in the order of receipt) add up to."""
        total = amount.cum_sum()
        return total - amount - pl.when(first).then(total - amount).forward_fill()

    # First the cap of the way of paying, on the person's filings paying that way; then the
    # person's limit on everything. Once a filing passes a limit every later one it binds
    # gets nothing, so the room left is the limit minus what was asked before (never below
    # zero); what the first step cut is never asked in the second.
    in_cuotas = pl.when(pl.col("_cuotas")).then(pl.col("_pedida")).otherwise(0)
    ranked = ranked.with_columns(
        pl.col("_general").min().over("_persona").alias("_limite_general"),
        pl.col("_limite").filter(pl.col("_cuotas")).min().over("_persona").alias("_tope_pago"),
        before(in_cuotas).alias("_antes_pago"),
    )
    pay_cap = pl.col("_tope_pago")
    ranked = ranked.with_columns(
        pl.when(pl.col("_cuotas"))
        .then(pl.min_horizontal("_pedida", (pay_cap - pl.col("_antes_pago")).clip(0)))
        .otherwise(pl.col("_pedida"))
        .alias("_tras_pago"),
    ).with_columns(before(pl.col("_tras_pago")).alias("_antes"))
    limit = pl.col("_limite_general")
    by_pay = pl.col("_tras_pago") < pl.col("_pedida")
    out = ranked.with_columns(
        pl.when(limit.is_null())
        .then(pl.col("_tras_pago"))
        .otherwise(pl.min_horizontal("_tras_pago", (limit - pl.col("_antes")).clip(0)))
        .alias("cantidad_persona"),
        pl.when(pl.col("_cuotas"))
        .then(pl.min_horizontal(limit, pay_cap))
        .otherwise(limit)
        .alias("limite_persona"),
        pl.when(by_pay)
        .then(pl.min_horizontal("_antes_pago", pay_cap))
        .otherwise(pl.min_horizontal("_antes", limit))
        .alias("usado_antes"),
        by_pay.alias("_por_pago"),
    ).with_columns((pl.col("cantidad_persona") < pl.col("_pedida")).alias("_reducida"))
    # Back to the input's order: the few reduced acceptances' texts are put in their places.
    used = _used_by(out, acceptances)
    back = np.empty(out.height, dtype=np.uint32)  # where each input row's answer now is
    back[out["_fila"].to_numpy()] = np.arange(out.height, dtype=np.uint32)
    found = out.select("cantidad_persona", "limite_persona", "usado_antes")[back]
    at = used["_fila"]
    found = found.with_columns(
        pl.repeat(None, found.height, dtype=used.schema[name], eager=True)
        .scatter(at, used[name])
        .alias(name)
        for name in ("consumido_por", "_regla_persona")
    )
    reduced = found["consumido_por"].is_not_null()
    decided = acceptances.with_columns(
        pl.when(reduced)
        .then(pl.lit("reducida"))
        .otherwise(pl.col("decision"))
        .cast(acceptances.schema["decision"])
        .alias("decision"),
        pl.when(reduced)
        .then(pl.coalesce(found["_regla_persona"], pl.col("regla_limitante")))
        .otherwise(pl.col("regla_limitante"))
        .alias("regla_limitante"),
    )
    return decided.hstack(found.drop("_regla_persona"))


def _used_by(people: pl.DataFrame, acceptances: pl.DataFrame) -> pl.DataFrame:
    """For each acceptance the person's limits reduced, the valid ones received before it
    that the same limit binds, and that limit's rule (of the earliest received filing that
    carries it): the cap of a way of paying when that cut it, the person's limit otherwise.

    Only the people with a reduction are looked at (usually a handful among a million), and
    only their rows' texts are taken from ``acceptances`` (by ``_fila``).
    """
    reduced = people.select(pl.col("_persona").filter(pl.col("_reducida")).unique())
    affected = people.filter(pl.col("_persona").is_in(reduced.to_series().implode()))
    rows = affected["_fila"]
    general = "regla_general" if "regla_general" in acceptances.columns else "regla_limite"
    affected = affected.with_columns(
        acceptances["radicado"].gather(rows),
        acceptances["decision"].gather(rows),
        acceptances["regla_limite"].gather(rows).alias("_regla"),
        acceptances[general].gather(rows).alias("_regla_g"),
    )
    valid = affected.filter(pl.col("decision") != "rechazada")
    person = "_persona"
    earlier = (
        pl.col("radicado").implode().over(person).list.head(pl.int_range(pl.len()).over(person))
    )
    paying_before = (pl.col("_cuotas").cast(pl.Int64).cum_sum() - pl.col("_cuotas")).over(person)
    earlier_paying = (
        pl.col("radicado").filter(pl.col("_cuotas")).implode().over(person).list.head(paying_before)
    )
    binding = pl.col("_regla_g").filter(pl.col("_general") == pl.col("_limite_general"))
    binding_pay = pl.col("_regla").filter(
        pl.col("_cuotas") & (pl.col("_limite") == pl.col("_tope_pago"))
    )
    return (
        valid.with_columns(
            pl.when(pl.col("_por_pago"))
            .then(earlier_paying)
            .otherwise(earlier)
            .list.join(", ")
            .alias("consumido_por"),
            pl.when(pl.col("_por_pago"))
            .then(binding_pay.first().over(person))
            .otherwise(binding.first().over(person))
            .alias("_regla_persona"),
        )
        .filter(pl.col("_reducida"))
        .select("_fila", "consumido_por", "_regla_persona")
    )
