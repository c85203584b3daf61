"""After the adjudication, the figures the office acts on: value adjudicated, paid, unpaid and
resolved, each defined once, for the offer's page, the API and ``oferta ver``.

Why beside ``adjudication.figures`` and not in it: they read the payments and the sale
(``compliance.ledger``), a layer above the adjudication. The definitions:

- **valor adjudicado**: every award's shares × the price it pays (its own after an
  interruption, Ley 226 art. 11 num. 2), in centavos;
- **pagado**: every payment received for those awards;
- **por pagar**: what each award still owes (its value less what was paid for it, never
  below zero), summed: an award paid in excess does not pay another's; shown until the
  period is settled, when what was not paid is resolved instead;
- **pagado de más**: what awards received beyond their value, summed (shown when there
  is any), so that adjudicado = pagado − pagado de más + por pagar always adds up;
- **resueltas**: once the payment period is settled, the shares not paid for, whose award
  was resolved (GEB art. 5) and which go back for a later stage, and their value.
"""

from __future__ import annotations

from dataclasses import dataclass
from weakref import WeakKeyDictionary

import polars as pl
from sqlalchemy import Connection, Engine

from democratiza.compliance.ledger import Ledger
from democratiza.money import group, pesos
from democratiza.storage import audit

TITLES: dict[str, str] = {
    "valor_adjudicado": "valor adjudicado",
    "pagado": "pagado",
    "por_pagar": "por pagar",
    "pagado_de_mas": "pagado de más (por encima del valor de su adjudicación)",
    "acciones_resueltas": "acciones resueltas por falta de pago",
    "valor_resuelto": "valor resuelto por falta de pago",
}


@dataclass(frozen=True)
class SettlementFigures:
    valor_adjudicado: int  # centavos
    pagado: int  # centavos received
    por_pagar: int  # centavos still owed, award by award
    pagado_de_mas: int  # centavos received beyond each award's value, award by award
    liquidada: bool  # the payment period was settled
    acciones_pagadas: int  # once settled (0 before)
    acciones_resueltas: int  # once settled (0 before)
    valor_resuelto: int  # centavos, once settled


def settlement_figures(conn: Connection, ledger: Ledger) -> SettlementFigures | None:
    """The figures of the ledger's awards; None while it takes no payments (not adjudicated).

    Counted once for each state of the audit log (its last entry) and then remembered by
    this process for that database. Why: counting reads every award with its price (a join
    of the adjudication and the acceptances: 0,2 s of PostgreSQL for 200.000 awards), and
    the offer's page, the one the office opens most after the adjudication, counted them
    on every view. Why the audit log's last entry tells when to count again: every change
    the figures read (a payment, a payment file, the settlement, the adjudication itself,
    a filing) is written with its audit entry in the same transaction, and entries are
    numbered in the order their transactions commit (the chain's lock). A process that
    counted at entry N gives the figures of N or later; one that sees entry N+1 counts
    again. So every process, on any machine, shows what a count now would show.
    """
    if ledger.waiting is not None:
        return None
    seen = audit.anchor(conn).entries
    remembered = _COUNTED.setdefault(conn.engine, {})
    found = remembered.get(ledger.entity)
    if found is not None and found[0] == seen:
        return found[1]
    counted = _counted(conn, ledger)
    remembered[ledger.entity] = (seen, counted)
    return counted


# Per database (engine) and ledger (``Ledger.entity``): the audit log's last entry when the
# figures were counted, and the figures.
_COUNTED: WeakKeyDictionary[Engine, dict[str, tuple[int, SettlementFigures]]] = WeakKeyDictionary()


def _counted(conn: Connection, ledger: Ledger) -> SettlementFigures:
    key = ledger.key
    awarded = ledger.awarded(conn)
    joined = awarded.join(ledger.paid(conn), on=key, how="left").with_columns(
        pl.col("pagado").fill_null(0),
        (pl.col("adjudicada") * pl.col("precio")).alias("valor"),
    )
    owed = (pl.col("valor") - pl.col("pagado")).clip(lower_bound=0)
    excess = (pl.col("pagado") - pl.col("valor")).clip(lower_bound=0)
    sold = ledger.sold(conn)
    resolved = (
        joined.join(sold, on="radicado", how="inner")
        .select(
            pl.col("acciones_pagadas").sum().alias("pagadas"),
            (pl.col("adjudicada") - pl.col("acciones_pagadas")).sum().alias("resueltas"),
            ((pl.col("adjudicada") - pl.col("acciones_pagadas")) * pl.col("precio"))
            .sum()
            .alias("valor_resuelto"),
        )
        .row(0, named=True)
    )
    totals = joined.select(
        pl.col("valor").sum(),
        pl.col("pagado").sum(),
        owed.sum().alias("por_pagar"),
        excess.sum().alias("pagado_de_mas"),
    ).row(0, named=True)
    return SettlementFigures(
        valor_adjudicado=int(totals["valor"] or 0),
        pagado=int(totals["pagado"] or 0),
        por_pagar=int(totals["por_pagar"] or 0),
        pagado_de_mas=int(totals["pagado_de_mas"] or 0),
        liquidada=not sold.is_empty(),
        acciones_pagadas=int(resolved["pagadas"] or 0),
        acciones_resueltas=int(resolved["resueltas"] or 0),
        valor_resuelto=int(resolved["valor_resuelto"] or 0),
    )


def shown_figures(found: SettlementFigures) -> list[tuple[str, str]]:
    """(value as read, its title), in the one order every place shows them."""
    figures = [
        (pesos(found.valor_adjudicado), TITLES["valor_adjudicado"]),
        (pesos(found.pagado), TITLES["pagado"]),
    ]
    if found.pagado_de_mas:
        figures.append((pesos(found.pagado_de_mas), TITLES["pagado_de_mas"]))
    if not found.liquidada:  # once settled nothing is owed: the unpaid shares are resolved
        figures.append((pesos(found.por_pagar), TITLES["por_pagar"]))
    else:
        figures += [
            (group(found.acciones_resueltas), TITLES["acciones_resueltas"]),
            (pesos(found.valor_resuelto), TITLES["valor_resuelto"]),
        ]
    return figures
