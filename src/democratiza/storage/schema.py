"""The database tables (SQLAlchemy Core). Alembic migrations create them; tests check that
the migrated database and this description agree.

Table and column names are Spanish: auditors read the database directly.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Date,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from democratiza.intake.columns import COLUMNS

metadata = MetaData()

offers = Table(
    "ofertas",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("codigo", String(80), nullable=False, unique=True),
    Column("programa", String(80), nullable=False),
    Column("version_programa", Integer, nullable=False),
    Column("parametros", Text, nullable=False),  # canonical JSON of the offer's parameters
    Column("estado", String(20), nullable=False),
    Column("creada_en", DateTime, nullable=False),
)

offer_events = Table(
    "eventos_oferta",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("oferta_id", ForeignKey("ofertas.id"), nullable=False, index=True),
    Column("tipo", String(30), nullable=False),  # transicion, interrupcion, ajuste_precio
    Column("de_estado", String(20)),
    Column("a_estado", String(20)),
    Column("quien", String(120), nullable=False),
    Column("cuando", DateTime, nullable=False),
    Column("por_que", Text, nullable=False),
    Column("detalle", Text),
)

batches = Table(
    "lotes",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("oferta_id", ForeignKey("ofertas.id"), nullable=False),
    Column("comisionista", String(120), nullable=False),
    Column("lote", String(120), nullable=False),  # the broker's own batch id
    Column("archivo", String(400), nullable=False),
    Column("huella", String(64), nullable=False),  # SHA-256 of the file's bytes
    Column("filas", Integer, nullable=False),
    Column("recibido_en", DateTime, nullable=False),
    Column("quien", String(120), nullable=False),
    UniqueConstraint("oferta_id", "comisionista", "lote", name="uq_lote_comisionista"),
)

_KIND_TYPES = {
    "texto": Text,
    "entero": BigInteger,
    "cantidad": BigInteger,
    "pesos": BigInteger,  # centavos
    "dolares": BigInteger,  # cents of a dollar
    "si_no": Boolean,
    "fecha": Date,
    "fecha_hora": DateTime,
}


def _filed_columns() -> list[Column[object]]:
    """Every figure of the acceptance file, typed: what was filed is kept, queryable."""
    return [Column(c.name, _KIND_TYPES[c.kind], nullable=not c.required) for c in COLUMNS] + [
        Column("cantidad_fraccionaria", Boolean, nullable=False)
    ]


acceptances = Table(
    "aceptaciones",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("oferta_id", ForeignKey("ofertas.id"), nullable=False),
    Column("lote_id", ForeignKey("lotes.id"), nullable=False),
    Column("radicado", String(40), nullable=False),
    Column("version", Integer, nullable=False),
    Column("vigente", Boolean, nullable=False),
    Column("estado", String(20), nullable=False),  # radicada, corregida, retirada
    Column("motivo", Text),  # why a version was withdrawn
    *_filed_columns(),
    # The engine's decision at intake.
    Column("cantidad_permitida", BigInteger, nullable=False),
    Column("limite_minimo", BigInteger),  # the smallest limit that applied, for the person rule
    Column("decision", String(12), nullable=False),
    Column("regla_limitante", String(60)),
    Column("causas", BigInteger, nullable=False),
    UniqueConstraint("oferta_id", "radicado", "version", name="uq_radicado_version"),
    Index("ix_aceptaciones_referencia", "oferta_id", "comisionista", "referencia"),
)

adjudications = Table(
    "adjudicaciones",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("oferta_id", ForeignKey("ofertas.id"), nullable=False, unique=True),
    Column("version_programa", Integer, nullable=False),
    Column("parametros", Text, nullable=False),
    Column("metodo", String(40), nullable=False),
    Column("residuo", String(40), nullable=False),
    Column("huella_entradas", String(64), nullable=False),
    Column("huella_resultado", String(64), nullable=False),
    Column("registro", Text, nullable=False),  # the record's header (canonical JSON)
    Column("creada_en", DateTime, nullable=False),
    Column("quien", String(120), nullable=False),
)

awards = Table(
    "adjudicados",
    metadata,
    Column("adjudicacion_id", ForeignKey("adjudicaciones.id"), primary_key=True),
    Column("aceptacion_id", ForeignKey("aceptaciones.id"), primary_key=True),
    Column("cantidad_persona", BigInteger, nullable=False),  # after the per-person limits
    Column("adjudicada", BigInteger, nullable=False),
)

payments = Table(
    "pagos",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("aceptacion_id", ForeignKey("aceptaciones.id"), nullable=False, index=True),
    Column("fecha", Date, nullable=False),
    Column("monto", BigInteger, nullable=False),  # centavos
    Column("forma", String(20), nullable=False),  # contado, credito, cesantias
    Column("quien", String(120), nullable=False),
    Column("registrado_en", DateTime, nullable=False),
)

sales = Table(
    "enajenaciones",
    metadata,
    Column("aceptacion_id", ForeignKey("aceptaciones.id"), primary_key=True),
    Column("fecha_enajenacion", Date, nullable=False),  # the two years count from here
    Column("acciones_pagadas", BigInteger, nullable=False),
    Column("acciones_resueltas", BigInteger, nullable=False),  # unpaid: back to the pool
)

holding_events = Table(
    "eventos_tenencia",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("aceptacion_id", ForeignKey("aceptaciones.id"), nullable=False, index=True),
    Column("tipo", String(30), nullable=False),  # venta, dacion_en_pago, beneficiario_real, ...
    Column("fecha", Date, nullable=False),  # when it occurred, or was identified
    Column("acciones", BigInteger, nullable=False),
    Column("contraprestacion", BigInteger),  # centavos per share obtained, if any
    Column("detalle", Text, nullable=False),
    Column("quien", String(120), nullable=False),
    Column("registrado_en", DateTime, nullable=False),
)
