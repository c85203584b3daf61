"""pagos enajenaciones eventos de tenencia

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.create_table(
        "enajenaciones",
        sa.Column("aceptacion_id", sa.Integer(), nullable=False),
        sa.Column("fecha_enajenacion", sa.Date(), nullable=False),
        sa.Column("acciones_pagadas", sa.BigInteger(), nullable=False),
        sa.Column("acciones_resueltas", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["aceptacion_id"],
            ["aceptaciones.id"],
        ),
        sa.PrimaryKeyConstraint("aceptacion_id"),
    )
    op.create_table(
        "eventos_tenencia",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("aceptacion_id", sa.Integer(), nullable=False),
        sa.Column("tipo", sa.String(length=30), nullable=False),
        sa.Column("fecha", sa.Date(), nullable=False),
        sa.Column("acciones", sa.BigInteger(), nullable=False),
        sa.Column("contraprestacion", sa.BigInteger(), nullable=True),
        sa.Column("detalle", sa.Text(), nullable=False),
        sa.Column("quien", sa.String(length=120), nullable=False),
        sa.Column("registrado_en", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["aceptacion_id"],
            ["aceptaciones.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("eventos_tenencia", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_eventos_tenencia_aceptacion_id"), ["aceptacion_id"], unique=False
        )

    op.create_table(
        "pagos",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("aceptacion_id", sa.Integer(), nullable=False),
        sa.Column("fecha", sa.Date(), nullable=False),
        sa.Column("monto", sa.BigInteger(), nullable=False),
        sa.Column("forma", sa.String(length=20), nullable=False),
        sa.Column("quien", sa.String(length=120), nullable=False),
        sa.Column("registrado_en", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["aceptacion_id"],
            ["aceptaciones.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("pagos", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_pagos_aceptacion_id"), ["aceptacion_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("pagos", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_pagos_aceptacion_id"))

    op.drop_table("pagos")
    with op.batch_alter_table("eventos_tenencia", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_eventos_tenencia_aceptacion_id"))

    op.drop_table("eventos_tenencia")
    op.drop_table("enajenaciones")
