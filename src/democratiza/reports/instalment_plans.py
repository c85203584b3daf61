"""The instalment plans of the awards paid in instalments, for the program office.

Only for a program that offers payment in instalments (``formas_de_pago[].cuotas``): one
line per payment of each award whose acceptance chose ``cuotas``: the down payment
(``pago`` 0) and each instalment (1 to the plan's number), in pesos, as
``compliance.instalments`` works them out. Their due dates are the aviso's.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from democratiza.adjudication.record import Adjudication
from democratiza.compliance.instalments import instalment_schedule
from democratiza.money import pesos_cell
from democratiza.programs.parameters import Offer
from democratiza.tables.cells import write_csv

COLUMNS = [
    "radicado",
    "tipo_identificacion",
    "numero_identificacion",
    "nombre",
    "comisionista",
    "adjudicada",
    "pago",
    "monto",
]


def instalment_file(
    done: Adjudication,
    offer: Offer,
    payers: frozenset[str],
    out_dir: Path,
    prices: pl.DataFrame | None = None,
) -> Path | None:
    """``plan-cuotas.csv``, or None when the program has no payment in instalments.

    Each award is financed at the price its acceptance pays: ``prices`` (radicado, precio)
    where it is not the offer's (``adjudication.record.acceptance_prices``)."""
    plan = offer.program.instalment_plan
    if plan is None:
        return None
    rows: list[dict[str, object]] = []
    own = {} if prices is None else dict(zip(prices["radicado"], prices["precio"], strict=True))
    awarded = done.results.filter(
        pl.col("radicado").is_in(sorted(payers)), pl.col("adjudicada") > 0
    )
    for award in awarded.iter_rows(named=True):
        price = own.get(award["radicado"], offer.price_centavos)
        schedule = instalment_schedule(award["adjudicada"], price, plan)
        amounts = [schedule.down_payment, *schedule.instalments]
        rows += [
            {**{c: award[c] for c in COLUMNS[:6]}, "pago": i, "monto": pesos_cell(amount)}
            for i, amount in enumerate(amounts)
        ]
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "plan-cuotas.csv"
    whole = {"adjudicada", "pago"}
    schema: dict[str, pl.DataType] = {c: pl.Int64() if c in whole else pl.String() for c in COLUMNS}
    write_csv(pl.DataFrame(rows, schema=schema), path)
    return path
