"""What a broker reads of a stage once it is allocated: the cut price, the shares assigned to
each of its orders and what each pays, and their sums.

Why: the broker's stage page listed its orders and their decision, but not what came of
them: to tell a buyer how many shares they got and what to pay, the broker had to open the
CSV. The figures are the allocation file's own (``reports.stage_report.priced``: assigned
shares × the stage's single price), in centavos here and written by the page.
"""

from __future__ import annotations

from typing import Any

import polars as pl
from sqlalchemy import Engine

from democratiza.reports.stage_report import priced
from democratiza.stages.allocate import stored_allocation

ALLOCATED = ("adjudicada", "publicada")


def broker_allocation(engine: Engine, stage_code: str, broker: str) -> dict[str, Any] | None:
    """The broker's orders' allocation (radicado → assigned, to pay) and its sums; None
    before the stage is allocated or when it was declared void."""
    done = stored_allocation(engine, stage_code)
    price = done.header.get("precio")
    if not isinstance(price, int):
        return None
    mine = priced(done).filter(pl.col("comisionista") == broker)
    return {
        "precio": price,
        "asignadas": int(mine["asignada"].sum() or 0),
        "valor_a_pagar": int(mine["valor_a_pagar"].sum() or 0),
        "ordenes_con_acciones": int((mine["asignada"] > 0).sum()),
        "por_orden": {
            str(r): (int(a), int(v))
            for r, a, v in zip(
                mine["radicado"], mine["asignada"], mine["valor_a_pagar"], strict=True
            )
        },
    }
