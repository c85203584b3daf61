"""The order file brokers send in a Segunda Etapa: one row per investor's order.

Read, typed and refused by the same code as acceptances (``tables.readers``,
``tables.parse``): every bad cell is reported with file, row and column, and a file with any
bad cell is refused whole.
"""

from __future__ import annotations

from democratiza.tables.format import Column, FileFormat
from democratiza.vocabulary import ID_TYPES

PERSON_KINDS = ("natural", "juridica")
NATIONALITIES = ("colombiana", "extranjera")

ORDER_COLUMNS: tuple[Column, ...] = (
    Column("referencia", "texto", True, "Referencia única de la orden en el comisionista", "OR-1"),
    Column("comisionista", "texto", True, "Sociedad comisionista de bolsa que ingresa la orden"),
    Column(
        "fecha_ingreso",
        "fecha_hora",
        True,
        "Momento de ingreso de la orden: decide entre órdenes iguales en el margen",
        "2018-07-05T09:30:00",
    ),
    Column("tipo_identificacion", "texto", True, "CC, CE, PA, TI, NIT, PEP o PPT", "NIT"),
    Column("numero_identificacion", "texto", True, "Número del documento, sin puntos"),
    Column("nombre", "texto", True, "Nombre o razón social del inversionista"),
    Column("tipo_persona", "texto", True, "natural o juridica", "juridica"),
    Column("nacionalidad", "texto", True, "colombiana o extranjera", "colombiana"),
    Column(
        "capacidad_legal",
        "si_no",
        False,
        "Declara capacidad legal para participar en el capital social del emisor",
        "si",
    ),
    Column("precio", "pesos", True, "Precio por acción que ofrece pagar", "2018.00"),
    Column("cantidad", "cantidad", True, "Acciones que ofrece comprar", "5000"),
)

ORDERS = FileFormat(
    "ordenes",
    ORDER_COLUMNS,
    {
        "tipo_identificacion": ID_TYPES,
        "tipo_persona": PERSON_KINDS,
        "nacionalidad": NATIONALITIES,
    },
    declared_time="fecha_ingreso",
)
