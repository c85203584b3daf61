"""Recompute a package's allocation from the package alone, and name where it differs.

The allocation is computed again from ``parametros.json`` and the permitted quantities (or
the book) of ``adjudicacion.csv``, by the same exact arithmetic the adjudication used
(``allocation``, ``stages.clearing``). What a package must carry for that is ``NEEDS``; a
package without it is refused in words before anything is computed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
from numpy.typing import NDArray

from democratiza.adjudication.adjudicate import AllocationResult, allocate
from democratiza.adjudication.joint import by_person, within_joint_caps
from democratiza.stages.clearing import clear
from democratiza.verification.package import AWARDS, FIRST_STAGE, LATER_STAGE, PARAMETERS

# What the recomputation reads, by kind of package: parameters, then columns of the table.
NEEDS = {
    FIRST_STAGE: (
        ("acciones_ofrecidas", "metodo", "residuo", "lote_acciones", "porcentaje_lineal"),
        ("orden", "seudonimo", "categoria", "cantidad_permitida", "adjudicada"),
    ),
    LATER_STAGE: (
        (
            "acciones_ofrecidas",
            "precio_minimo_centavos",
            "lote",
            "mecanismo",
            "precio_corte_centavos",
        ),
        ("orden", "seudonimo", "precio_centavos", "cantidad", "valida", "asignada"),
    ),
}
UNFIT = "sus parámetros o su tabla tienen valores que la adjudicación no puede tomar"


def needs_problem(parameters: object, table: pl.DataFrame) -> str | None:
    """What the recomputation needs and the package lacks (or ``None``)."""
    if not isinstance(parameters, dict) or parameters.get("tipo") not in NEEDS:
        kinds = " o ".join(NEEDS)
        return f"{PARAMETERS} no dice un tipo de paquete conocido (tipo: {kinds})"
    keys, columns = NEEDS[parameters["tipo"]]
    missing = [k for k in keys if k not in parameters]
    if missing:
        return f"a {PARAMETERS} le falta {', '.join(missing)}"
    absent = [c for c in columns if c not in table.columns]
    if absent:
        return f"a {AWARDS} le falta la columna {', '.join(absent)}"
    return None


def recomputed(parameters: dict[str, Any], table: pl.DataFrame) -> pl.DataFrame:
    """The package's table with each award computed again from the package alone."""
    if parameters["tipo"] == FIRST_STAGE:
        demand = table["cantidad_permitida"].to_numpy().astype(np.int64)
        # One acceptant per person: a person's filings carry one pseudonym.
        keys = table.select(pl.col("seudonimo").rank("dense")).to_series().to_numpy()

        def share(wanted: NDArray[np.int64], supply: int) -> AllocationResult:
            return allocate(
                wanted,
                supply,
                parameters["metodo"],
                parameters["residuo"],
                int(parameters["lote_acciones"]),
                parameters["porcentaje_lineal"],
            )

        caps = [
            (cap["categorias"], int(cap["tope_acciones"]))
            for cap in parameters.get("topes_conjuntos", [])
        ]
        if caps:  # the joint caps first, as the adjudication applies them
            categories = table["categoria"].cast(pl.String).to_list()
            demand, _ = within_joint_caps(demand, keys, categories, caps, share)
        result = by_person(demand, keys, int(parameters["acciones_ofrecidas"]), share)
        return table.with_columns(pl.Series("adjudicada", result.awards))
    valid = table.filter(pl.col("valida"))
    cleared = clear(
        valid["precio_centavos"].to_numpy().astype(np.int64),
        valid["cantidad"].to_numpy().astype(np.int64),
        np.arange(valid.height, dtype=np.int64),  # the table is in the order of receipt
        int(parameters["acciones_ofrecidas"]),
        int(parameters["precio_minimo_centavos"]),
        int(parameters["lote"]),
        parameters["mecanismo"],
        parameters["precio_corte_centavos"],
    )
    assigned = pl.Series("asignada", cleared.allocations)
    positions = table.with_row_index("_i").filter(pl.col("valida"))["_i"]
    full = pl.Series("asignada", np.zeros(table.height, dtype=np.int64)).scatter(
        positions, assigned
    )
    return table.with_columns(full)


def first_difference(published: pl.DataFrame, computed: pl.DataFrame) -> str:
    award = "adjudicada" if "adjudicada" in published.columns else "asignada"
    if published.height != computed.height or published.columns != computed.columns:
        return "la tabla no tiene las filas o las columnas que la adjudicación da"
    differs = (published[award] != computed[award]).arg_true()
    if differs.len():
        i = int(differs[0])
        return (
            f"fila {i + 2} (orden {published['orden'][i]}, seudónimo "
            f"{published['seudonimo'][i]}): el paquete dice {published[award][i]} acciones y la "
            f"adjudicación da {computed[award][i]}"
        )
    return "la tabla publicada difiere en su forma de la que la adjudicación da (mismos números)"
