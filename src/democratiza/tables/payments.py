"""The payment file: one row per payment of a Primera Etapa award (``compliance.payment_batches``).

An award may be paid in parts, so no column is unique in the file.
"""

from __future__ import annotations

from democratiza.tables.format import Column, FileFormat
from democratiza.vocabulary import PAYMENT_METHODS

PAYMENTS = FileFormat(
    "pagos",
    (
        Column("radicado", "texto", True, "Radicado de la aceptación adjudicada", "000001-000002"),
        Column("fecha", "fecha", True, "Día del pago", "2018-03-15"),
        Column("monto", "pesos", True, "Pesos pagados", "8000000"),
        Column("forma", "texto", True, "contado, credito, cesantias o cuotas", "contado"),
    ),
    {"forma": PAYMENT_METHODS},
    key=None,
)
