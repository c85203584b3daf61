"""The official series the program office loads once and every later check reads.

Why: the shipped interés bancario corriente holds only the points the sources list, with
gaps; a credit line granted in a gap could not be checked, and the offer could never open
from the web (the CLI took the official series with ``--serie-ibc``, once per command).
The office now loads the Superfinanciera's full series (gap-free: ``series.parse_rates``
with ``complete``) from the offer's page or ``democratiza credito serie-ibc``; it is kept as
sent, and the latest of its kind is the one in force, for the web and the CLI alike.
"""

from __future__ import annotations

import hashlib
from datetime import datetime

from sqlalchemy import Connection, insert, select

from democratiza.compliance.series import (
    MaxLegalRate,
    RateKind,
    RateSeries,
    parse_rates,
    shipped_rates,
)
from democratiza.storage import audit
from democratiza.storage.schema import official_series

IBC: RateKind = "interes_bancario_corriente"
# What to do when a date has no certified rate: said wherever the gap stops a check.
HOW_TO_LOAD = (
    "La serie oficial completa de la Superintendencia Financiera (CSV con desde, hasta, "
    "tasa_ea, fuente) se carga en la página de la oferta, sección «Líneas de crédito», o en "
    "la línea de comandos con 'democratiza credito serie-ibc ARCHIVO.csv' (o con "
    "'--serie-ibc ARCHIVO.csv' en una sola orden); una línea con la fecha equivocada se "
    "corrige o se retira en esa misma sección."
)


def save_official_rates(
    conn: Connection, kind: RateKind, text: str, file_name: str, who: str
) -> RateSeries:
    """Read the office's series (gap-free; every problem raises ``SeriesFileError`` with
    its row and column) and keep it as the one in force."""
    series = parse_rates(text, file_name, kind, complete=True)
    digest = hashlib.sha256(text.encode()).hexdigest()
    values = {
        "tipo": kind,
        "archivo": file_name[:200],
        "contenido": text,
        "huella": digest,
        "quien": who,
        "cargada_en": datetime.now(),
    }
    conn.execute(insert(official_series).values(**values))
    first, last = series.periods[0], series.periods[-1]
    audit.append(
        conn,
        who,
        "serie.cargar",
        f"series/{kind}",
        None,
        {
            "archivo": values["archivo"],
            "huella": digest,
            "periodos": len(series.periods),
            "desde": first.start.isoformat(),
            "hasta": last.end.isoformat(),
        },
    )
    return series


def official_rates(conn: Connection, kind: RateKind) -> RateSeries | None:
    """The series of ``kind`` the office loaded last, or None if it never loaded one."""
    row = conn.execute(
        select(official_series.c.contenido, official_series.c.archivo)
        .where(official_series.c.tipo == kind)
        .order_by(official_series.c.id.desc())
        .limit(1)
    ).first()
    if row is None:
        return None
    return parse_rates(row.contenido, row.archivo, kind, complete=True)


def rates_in_force(conn: Connection, kind: RateKind) -> RateSeries:
    """The office's official series if it loaded one, otherwise the shipped points."""
    return official_rates(conn, kind) or shipped_rates(kind)


def max_rate_in_force(conn: Connection) -> MaxLegalRate:
    """The maximum legal rate a fine's default interest runs at, for the office: the usura
    and interés bancario corriente series the office loaded, each where it loaded one, else
    the shipped points (``rates_in_force``); the web, the API and the CLI read it here."""
    return MaxLegalRate(rates_in_force(conn, "usura"), rates_in_force(conn, IBC))
