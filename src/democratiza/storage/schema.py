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

from democratiza.tables.acceptances import COLUMNS

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
    # The program file's exact text and its SHA-256: the offer's rules, whatever the file
    # becomes later (empty only for an offer older than migration 0007 that kept none).
    Column("programa_texto", Text),
    Column("programa_huella", String(64)),
    # The texts the program cites, each with its SHA-256 (canonical JSON list of nombre,
    # texto, huella; migration 0014): empty for an offer whose program cites only the
    # package's texts and was created before.
    Column("programa_normas", Text),
    # Business dates the office gives (migration 0011), apart from the audit timestamps: the
    # adjudication's (Central's fine bands count from it), the publication's, and the
    # payment deadline the results notice sets.
    Column("fecha_adjudicacion", Date),
    Column("fecha_publicacion", Date),
    Column("fecha_limite_pago", Date),
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

# The credit lines registered for an offer (migration 0011): the Primera Etapa opens only once
# they together meet Ley 226 art. 11 num. 3. The rate is kept as written (a fraction, "0.2048"),
# never as a float.
credit_lines = Table(
    "lineas_credito",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("oferta_id", ForeignKey("ofertas.id"), nullable=False, index=True),
    Column("entidad", String(200), nullable=False),
    Column("monto_disponible", BigInteger, nullable=False),  # centavos
    Column("plazo_meses", Integer, nullable=False),  # the capital grace included
    Column("gracia_meses", Integer, nullable=False),
    Column("tasa_ea", String(20), nullable=False),  # efectivo anual, as a fraction
    Column("fecha_otorgamiento", Date, nullable=False),
    Column("capitalizar_gracia", Boolean, nullable=False),
    Column("garantia", String(20), nullable=False),  # precio_fijo, otro_valor, no_admitidas
    Column("quien", String(200), nullable=False),
    Column("registrada_en", DateTime, nullable=False),
)

# The official series the office loads (migration 0024): the Superfinanciera's interés
# bancario corriente, whole and gap-free, as its file was sent; the latest of a kind is the
# one in force (``compliance.official_series``).
official_series = Table(
    "series_oficiales",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("tipo", String(40), nullable=False, index=True),
    Column("archivo", String(200), nullable=False),
    Column("contenido", Text, nullable=False),
    Column("huella", String(64), nullable=False),  # SHA-256 of the text
    Column("quien", String(200), nullable=False),
    Column("cargada_en", DateTime, nullable=False),
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
    # The broker's own count of its batches in the offer (``storage.radicados``).
    Column("numero", Integer, nullable=False),
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
    # The order of receipt, never shown to a broker (``storage.radicados``).
    Column("recepcion", BigInteger, nullable=False),
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
    Column("regla_limite", String(60)),  # the rule behind limite_minimo (migration 0010)
    # The smallest limit whatever the way of paying, and its rule (migration 0019): a cap of
    # one way of paying limits only the person's filings paying that way (``rules.person``).
    Column("limite_general", BigInteger),
    Column("regla_general", String(60)),
    # The price it was evaluated at and will pay, centavos per share (Ley 226 art. 11 num. 2:
    # the adjusted price after an interruption); empty for rows older than migration 0011,
    # which were all evaluated at the offer's initial price.
    Column("precio", BigInteger),
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
    Column("huella_programa", String(64)),  # SHA-256 of the offer's program file
)

awards = Table(
    "adjudicados",
    metadata,
    Column("adjudicacion_id", ForeignKey("adjudicaciones.id"), primary_key=True),
    Column("aceptacion_id", ForeignKey("aceptaciones.id"), primary_key=True),
    Column("cantidad_persona", BigInteger, nullable=False),  # after the per-person limits
    Column("adjudicada", BigInteger, nullable=False),
)

# Payments and the sale are the same for every stage (``compliance.ledger``): the Primera
# Etapa's are keyed by acceptance, a later stage's by order; the columns are these.


def _payment_columns() -> list[Column[object]]:
    return [
        Column("fecha", Date, nullable=False),
        Column("monto", BigInteger, nullable=False),  # centavos
        Column("forma", String(20), nullable=False),  # contado, credito, cesantias, cuotas
        Column("quien", String(120), nullable=False),
        Column("registrado_en", DateTime, nullable=False),
    ]


def _sale_columns() -> list[Column[object]]:
    return [
        Column("fecha_enajenacion", Date, nullable=False),  # the two years count from here
        Column("acciones_pagadas", BigInteger, nullable=False),
        Column("acciones_resueltas", BigInteger, nullable=False),  # unpaid: back to the pool
    ]


def _payment_batch_columns() -> list[Column[object]]:
    return [
        Column("lote", String(120), nullable=False),
        Column("archivo", String(400), nullable=False),
        Column("huella", String(64), nullable=False),
        Column("filas", Integer, nullable=False),
        Column("recibido_en", DateTime, nullable=False),
        Column("quien", String(120), nullable=False),
    ]


payments = Table(
    "pagos",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("aceptacion_id", ForeignKey("aceptaciones.id"), nullable=False, index=True),
    *_payment_columns(),
)

sales = Table(
    "enajenaciones",
    metadata,
    Column("aceptacion_id", ForeignKey("aceptaciones.id"), primary_key=True),
    *_sale_columns(),
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

# The web service (migration 0003): the audit log, people, broker API tokens, sessions and
# background work. Secrets are never stored: passwords as argon2 hashes, tokens and session
# cookies as SHA-256.

audit_log = Table(
    "auditoria",
    metadata,
    Column("id", BigInteger, primary_key=True, autoincrement=False),  # 1, 2, 3… no gaps
    Column("cuando", DateTime, nullable=False),
    Column("quien", String(200), nullable=False),
    Column("accion", String(60), nullable=False),
    Column("entidad", String(200), nullable=False),
    Column("antes", Text),  # canonical JSON
    Column("despues", Text),  # canonical JSON
    # A UNIQUE previous hash: two entries can never chain from the same one (no fork).
    Column("huella_anterior", String(64), nullable=False, unique=True),
    Column("huella", String(64), nullable=False),
    # The id of the web request that caused it (migration 0020; none from the command line).
    Column("solicitud", String(64)),
)

users = Table(
    "usuarios",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("login", String(80), nullable=False, unique=True),
    Column("nombre", String(200), nullable=False),
    Column("rol", String(20), nullable=False),  # oficina, comisionista, auditor
    Column("comisionista", String(120)),  # the broker a broker's employee acts for
    Column("hash", String(200), nullable=False),  # argon2id
    Column("intentos_fallidos", Integer, nullable=False),
    Column("bloqueado_hasta", DateTime),
    Column("activo", Boolean, nullable=False),
    Column("creado_en", DateTime, nullable=False),
)

api_tokens = Table(
    "tokens_api",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("comisionista", String(120), nullable=False),
    Column("huella", String(64), nullable=False, unique=True),  # SHA-256 of the token
    Column("descripcion", String(200), nullable=False),
    Column("creado_en", DateTime, nullable=False),
    Column("creado_por", String(200), nullable=False),
    Column("revocado_en", DateTime),
)

sessions = Table(
    "sesiones",
    metadata,
    Column("huella", String(64), primary_key=True),  # SHA-256 of the cookie's value
    Column("usuario_id", ForeignKey("usuarios.id"), nullable=False, index=True),
    Column("csrf", String(64), nullable=False),
    Column("creada_en", DateTime, nullable=False),
    Column("expira_en", DateTime, nullable=False),
)

jobs = Table(
    "trabajos",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("tipo", String(30), nullable=False),  # lote, adjudicacion
    Column("estado", String(20), nullable=False),  # en_cola, en_curso, terminado, fallido
    Column("paso", Integer, nullable=False),
    Column("pasos", Integer, nullable=False),
    Column("mensaje", Text, nullable=False),
    Column("resultado", Text),  # JSON, once finished
    Column("quien", String(200), nullable=False),
    Column("comisionista", String(120)),  # a broker's job is visible to that broker only
    Column("creado_en", DateTime, nullable=False),
    Column("actualizado_en", DateTime, nullable=False),
)

# --------------------------------------------------------------- Segunda Etapa and later stages

stages = Table(
    "etapas",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("codigo", String(80), nullable=False, unique=True),
    Column("oferta_id", ForeignKey("ofertas.id"), nullable=False),  # the Primera Etapa
    Column("numero", Integer, nullable=False),  # 2 = Segunda Etapa, 3… Etapas Subsecuentes
    Column("estado", String(20), nullable=False),
    Column("terminos", Text, nullable=False),  # canonical JSON of the stage's terms
    Column("acciones", BigInteger, nullable=False),  # shares on offer in this stage
    Column("precio_minimo", BigInteger, nullable=False),  # centavos per share
    Column("origen", Text, nullable=False),  # canonical JSON: where the shares come from
    Column("creada_en", DateTime, nullable=False),
    UniqueConstraint("oferta_id", "numero", name="uq_etapa_numero"),
)

stage_events = Table(
    "eventos_etapa",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("etapa_id", ForeignKey("etapas.id"), nullable=False, index=True),
    Column("tipo", String(30), nullable=False),  # creacion, transicion, desierta
    Column("de_estado", String(20)),
    Column("a_estado", String(20)),
    Column("quien", String(120), nullable=False),
    Column("cuando", DateTime, nullable=False),
    Column("por_que", Text, nullable=False),
)

order_batches = Table(
    "lotes_ordenes",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("etapa_id", ForeignKey("etapas.id"), nullable=False),
    Column("comisionista", String(120), nullable=False),
    Column("lote", String(120), nullable=False),
    Column("archivo", String(400), nullable=False),
    Column("huella", String(64), nullable=False),
    Column("filas", Integer, nullable=False),
    Column("recibido_en", DateTime, nullable=False),
    Column("quien", String(120), nullable=False),
    Column("numero", Integer, nullable=False),  # the broker's own count, as for ``lotes``
    UniqueConstraint("etapa_id", "comisionista", "lote", name="uq_lote_ordenes_comisionista"),
)

orders = Table(
    "ordenes",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("etapa_id", ForeignKey("etapas.id"), nullable=False),
    Column("lote_id", ForeignKey("lotes_ordenes.id"), nullable=False),
    Column("radicado", String(40), nullable=False),
    Column("recepcion", BigInteger, nullable=False),  # the order of receipt, as for aceptaciones
    Column("version", Integer, nullable=False),
    Column("vigente", Boolean, nullable=False),
    Column("estado", String(20), nullable=False),  # radicada, corregida, retirada
    Column("referencia", Text, nullable=False),
    Column("comisionista", Text, nullable=False),
    Column("fecha_ingreso", DateTime, nullable=False),  # time of entry: the tie-break
    Column("tipo_identificacion", Text, nullable=False),
    Column("numero_identificacion", Text, nullable=False),
    Column("nombre", Text, nullable=False),
    Column("tipo_persona", Text, nullable=False),
    Column("nacionalidad", Text, nullable=False),
    Column("capacidad_legal", Boolean),
    Column("precio", BigInteger, nullable=False),  # centavos per share
    Column("cantidad", BigInteger, nullable=False),
    Column("cantidad_fraccionaria", Boolean, nullable=False),
    Column("decision", String(12), nullable=False),  # valida, rechazada
    Column("motivo", Text),  # why it was refused, or why a version was withdrawn
    UniqueConstraint("etapa_id", "radicado", "version", name="uq_orden_radicado_version"),
    Index("ix_ordenes_referencia", "etapa_id", "comisionista", "referencia"),
)

stage_allocations = Table(
    "adjudicaciones_etapa",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("etapa_id", ForeignKey("etapas.id"), nullable=False, unique=True),
    Column("mecanismo", String(40), nullable=False),
    Column("precio", BigInteger),  # the single clearing price; null when void
    Column("desierta", Boolean, nullable=False),
    Column("huella_entradas", String(64), nullable=False),
    Column("huella_resultado", String(64), nullable=False),
    Column("registro", Text, nullable=False),  # the record's header (canonical JSON)
    Column("creada_en", DateTime, nullable=False),
    Column("quien", String(120), nullable=False),
)

order_awards = Table(
    "asignaciones",
    metadata,
    Column("adjudicacion_id", ForeignKey("adjudicaciones_etapa.id"), primary_key=True),
    Column("orden_id", ForeignKey("ordenes.id"), primary_key=True),
    Column("asignada", BigInteger, nullable=False),
)

payment_batches = Table(
    "lotes_pagos",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("oferta_id", ForeignKey("ofertas.id"), nullable=False),
    *_payment_batch_columns(),
    UniqueConstraint("oferta_id", "lote", name="uq_lote_pagos"),
)

# A later stage's payments and sale (migration 0010): per order with shares allocated.

stage_payment_batches = Table(
    "lotes_pagos_etapa",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("etapa_id", ForeignKey("etapas.id"), nullable=False),
    *_payment_batch_columns(),
    UniqueConstraint("etapa_id", "lote", name="uq_lote_pagos_etapa"),
)

stage_payments = Table(
    "pagos_etapa",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("orden_id", ForeignKey("ordenes.id"), nullable=False, index=True),
    *_payment_columns(),
)

stage_sales = Table(
    "enajenaciones_etapa",
    metadata,
    Column("orden_id", ForeignKey("ordenes.id"), primary_key=True),
    *_sale_columns(),
)

pseudonym_keys = Table(
    "claves_seudonimos",
    metadata,
    Column("oferta_id", ForeignKey("ofertas.id"), primary_key=True),
    Column("clave", String(64), nullable=False),  # hex of 32 random bytes; never published
    Column("creada_en", DateTime, nullable=False),
)

broker_counters = Table(
    "contadores_comisionistas",
    metadata,
    Column("ambito", String(40), primary_key=True),  # oferta:<id> or etapa:<id>
    Column("comisionista", String(120), primary_key=True),
    Column("prefijo", String(8), nullable=False),  # the broker's tag in its radicados
    Column("ultimo_lote", Integer, nullable=False),
    UniqueConstraint("ambito", "prefijo", name="uq_contador_prefijo"),
)

# What several service processes (or machines) must agree on, on PostgreSQL
# (``web.security.shared_limits``); on SQLite the one machine keeps it in memory.
login_failures = Table(
    "fallos_de_entrada",
    metadata,
    Column("login", String(200), primary_key=True),
    Column("direccion", String(64), primary_key=True),
    Column("fallos", Integer, nullable=False),
    Column("ultimo", BigInteger, nullable=False),  # microseconds of the database's clock
    Column("espera_hasta", BigInteger, nullable=False),  # no attempt before (same clock)
    Index("ix_fallos_de_entrada_ultimo", "ultimo"),
)

address_attempts = Table(
    "intentos_por_direccion",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("grupo", String(40), nullable=False),
    Column("direccion", String(64), nullable=False),
    Column("momento", BigInteger, nullable=False),  # microseconds of the database's clock
    Index("ix_intentos_por_direccion_clave", "grupo", "direccion", "momento"),
    Index("ix_intentos_por_direccion_momento", "momento"),
)

upload_holds = Table(  # the bytes anonymous uploads hold, per machine (``server.shared_budget``)
    "reservas_de_subida",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("maquina", String(255), nullable=False),  # the host name of the reserving machine
    Column("proceso", Integer, nullable=False),  # its process id, on that machine
    Column("bytes", BigInteger, nullable=False),
    Column("vence", BigInteger, nullable=False),  # microseconds of the database's clock
    Index("ix_reservas_de_subida_maquina", "maquina"),
)

# The figures of each offer as last counted, and what they were counted for, for every
# process on one PostgreSQL (``web.api.shared_figures``); SQLite keeps them in memory. A
# cache: no foreign key, a row is only ever read for an offer that exists.
offer_figures_cache = Table(
    "cifras_ofertas",
    metadata,
    Column("oferta_id", Integer, primary_key=True, autoincrement=False),
    Column("clave", Text, nullable=False),  # JSON: the code's and the offer's key
    Column("cifras", Text, nullable=False),  # JSON: ``OfferFigures``
)
