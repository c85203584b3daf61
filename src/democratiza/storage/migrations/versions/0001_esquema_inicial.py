"""esquema inicial

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "ofertas",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("codigo", sa.String(length=80), nullable=False),
        sa.Column("programa", sa.String(length=80), nullable=False),
        sa.Column("version_programa", sa.Integer(), nullable=False),
        sa.Column("parametros", sa.Text(), nullable=False),
        sa.Column("estado", sa.String(length=20), nullable=False),
        sa.Column("creada_en", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("codigo"),
    )
    op.create_table(
        "adjudicaciones",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("oferta_id", sa.Integer(), nullable=False),
        sa.Column("version_programa", sa.Integer(), nullable=False),
        sa.Column("parametros", sa.Text(), nullable=False),
        sa.Column("metodo", sa.String(length=40), nullable=False),
        sa.Column("residuo", sa.String(length=40), nullable=False),
        sa.Column("huella_entradas", sa.String(length=64), nullable=False),
        sa.Column("huella_resultado", sa.String(length=64), nullable=False),
        sa.Column("registro", sa.Text(), nullable=False),
        sa.Column("creada_en", sa.DateTime(), nullable=False),
        sa.Column("quien", sa.String(length=120), nullable=False),
        sa.ForeignKeyConstraint(
            ["oferta_id"],
            ["ofertas.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("oferta_id"),
    )
    op.create_table(
        "eventos_oferta",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("oferta_id", sa.Integer(), nullable=False),
        sa.Column("tipo", sa.String(length=30), nullable=False),
        sa.Column("de_estado", sa.String(length=20), nullable=True),
        sa.Column("a_estado", sa.String(length=20), nullable=True),
        sa.Column("quien", sa.String(length=120), nullable=False),
        sa.Column("cuando", sa.DateTime(), nullable=False),
        sa.Column("por_que", sa.Text(), nullable=False),
        sa.Column("detalle", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["oferta_id"],
            ["ofertas.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("eventos_oferta", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_eventos_oferta_oferta_id"), ["oferta_id"], unique=False
        )

    op.create_table(
        "lotes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("oferta_id", sa.Integer(), nullable=False),
        sa.Column("comisionista", sa.String(length=120), nullable=False),
        sa.Column("lote", sa.String(length=120), nullable=False),
        sa.Column("archivo", sa.String(length=400), nullable=False),
        sa.Column("huella", sa.String(length=64), nullable=False),
        sa.Column("filas", sa.Integer(), nullable=False),
        sa.Column("recibido_en", sa.DateTime(), nullable=False),
        sa.Column("quien", sa.String(length=120), nullable=False),
        sa.ForeignKeyConstraint(
            ["oferta_id"],
            ["ofertas.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("oferta_id", "comisionista", "lote", name="uq_lote_comisionista"),
    )
    op.create_table(
        "aceptaciones",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("oferta_id", sa.Integer(), nullable=False),
        sa.Column("lote_id", sa.Integer(), nullable=False),
        sa.Column("radicado", sa.String(length=40), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("vigente", sa.Boolean(), nullable=False),
        sa.Column("estado", sa.String(length=20), nullable=False),
        sa.Column("motivo", sa.Text(), nullable=True),
        sa.Column("referencia", sa.Text(), nullable=False),
        sa.Column("comisionista", sa.Text(), nullable=False),
        sa.Column("fecha_radicacion", sa.DateTime(), nullable=False),
        sa.Column("tipo_identificacion", sa.Text(), nullable=False),
        sa.Column("numero_identificacion", sa.Text(), nullable=False),
        sa.Column("nombre", sa.Text(), nullable=False),
        sa.Column("categoria", sa.Text(), nullable=False),
        sa.Column("cantidad", sa.BigInteger(), nullable=False),
        sa.Column("forma_pago", sa.Text(), nullable=False),
        sa.Column("extranjero", sa.Boolean(), nullable=True),
        sa.Column("obligado_declarar", sa.Boolean(), nullable=True),
        sa.Column("patrimonio_liquido", sa.BigInteger(), nullable=True),
        sa.Column("ingresos_declaracion", sa.BigInteger(), nullable=True),
        sa.Column("ingresos_certificado", sa.BigInteger(), nullable=True),
        sa.Column("ingresos_usd", sa.BigInteger(), nullable=True),
        sa.Column("estado_certificado", sa.Text(), nullable=True),
        sa.Column("retiro_justa_causa", sa.Boolean(), nullable=True),
        sa.Column("fecha_certificado", sa.Date(), nullable=True),
        sa.Column("directivo", sa.Boolean(), nullable=True),
        sa.Column("fecha_ingreso_directivo", sa.Date(), nullable=True),
        sa.Column("remuneracion_anual", sa.BigInteger(), nullable=True),
        sa.Column("salario_mensual", sa.BigInteger(), nullable=True),
        sa.Column("meses_en_cargo", sa.BigInteger(), nullable=True),
        sa.Column("activos_totales", sa.BigInteger(), nullable=True),
        sa.Column("pasivos_totales", sa.BigInteger(), nullable=True),
        sa.Column("superavit_valorizacion", sa.BigInteger(), nullable=True),
        sa.Column("ingresos_estados_financieros", sa.BigInteger(), nullable=True),
        sa.Column("limite_inversion", sa.BigInteger(), nullable=True),
        sa.Column("fecha_constitucion", sa.Date(), nullable=True),
        sa.Column("compromiso_no_negociar", sa.Boolean(), nullable=True),
        sa.Column("compromiso_beneficiario_real", sa.Boolean(), nullable=True),
        sa.Column("compromiso_no_dar_en_pago", sa.Boolean(), nullable=True),
        sa.Column("compromiso_no_subrogar", sa.Boolean(), nullable=True),
        sa.Column("compromiso_aceptar_condiciones", sa.Boolean(), nullable=True),
        sa.Column("declaracion_cuenta_propia", sa.Boolean(), nullable=True),
        sa.Column("cantidad_fraccionaria", sa.Boolean(), nullable=False),
        sa.Column("cantidad_permitida", sa.BigInteger(), nullable=False),
        sa.Column("limite_minimo", sa.BigInteger(), nullable=True),
        sa.Column("decision", sa.String(length=12), nullable=False),
        sa.Column("regla_limitante", sa.String(length=60), nullable=True),
        sa.Column("causas", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["lote_id"],
            ["lotes.id"],
        ),
        sa.ForeignKeyConstraint(
            ["oferta_id"],
            ["ofertas.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("oferta_id", "radicado", "version", name="uq_radicado_version"),
    )
    with op.batch_alter_table("aceptaciones", schema=None) as batch_op:
        batch_op.create_index(
            "ix_aceptaciones_referencia", ["oferta_id", "comisionista", "referencia"], unique=False
        )

    op.create_table(
        "adjudicados",
        sa.Column("adjudicacion_id", sa.Integer(), nullable=False),
        sa.Column("aceptacion_id", sa.Integer(), nullable=False),
        sa.Column("cantidad_persona", sa.BigInteger(), nullable=False),
        sa.Column("adjudicada", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["aceptacion_id"],
            ["aceptaciones.id"],
        ),
        sa.ForeignKeyConstraint(
            ["adjudicacion_id"],
            ["adjudicaciones.id"],
        ),
        sa.PrimaryKeyConstraint("adjudicacion_id", "aceptacion_id"),
    )


def downgrade() -> None:
    op.drop_table("adjudicados")
    with op.batch_alter_table("aceptaciones", schema=None) as batch_op:
        batch_op.drop_index("ix_aceptaciones_referencia")

    op.drop_table("aceptaciones")
    op.drop_table("lotes")
    with op.batch_alter_table("eventos_oferta", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_eventos_oferta_oferta_id"))

    op.drop_table("eventos_oferta")
    op.drop_table("adjudicaciones")
    op.drop_table("ofertas")
