"""servicio web: auditoria, usuarios, tokens, sesiones, trabajos

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    op.create_table(
        "auditoria",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("cuando", sa.DateTime(), nullable=False),
        sa.Column("quien", sa.String(length=200), nullable=False),
        sa.Column("accion", sa.String(length=60), nullable=False),
        sa.Column("entidad", sa.String(length=200), nullable=False),
        sa.Column("antes", sa.Text(), nullable=True),
        sa.Column("despues", sa.Text(), nullable=True),
        sa.Column("huella_anterior", sa.String(length=64), nullable=False),
        sa.Column("huella", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("huella_anterior"),
    )
    op.create_table(
        "usuarios",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("login", sa.String(length=80), nullable=False),
        sa.Column("nombre", sa.String(length=200), nullable=False),
        sa.Column("rol", sa.String(length=20), nullable=False),
        sa.Column("comisionista", sa.String(length=120), nullable=True),
        sa.Column("hash", sa.String(length=200), nullable=False),
        sa.Column("intentos_fallidos", sa.Integer(), nullable=False),
        sa.Column("bloqueado_hasta", sa.DateTime(), nullable=True),
        sa.Column("activo", sa.Boolean(), nullable=False),
        sa.Column("creado_en", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("login"),
    )
    op.create_table(
        "tokens_api",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("comisionista", sa.String(length=120), nullable=False),
        sa.Column("huella", sa.String(length=64), nullable=False),
        sa.Column("descripcion", sa.String(length=200), nullable=False),
        sa.Column("creado_en", sa.DateTime(), nullable=False),
        sa.Column("creado_por", sa.String(length=200), nullable=False),
        sa.Column("revocado_en", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("huella"),
    )
    op.create_table(
        "sesiones",
        sa.Column("huella", sa.String(length=64), nullable=False),
        sa.Column("usuario_id", sa.Integer(), nullable=False),
        sa.Column("csrf", sa.String(length=64), nullable=False),
        sa.Column("creada_en", sa.DateTime(), nullable=False),
        sa.Column("expira_en", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["usuario_id"], ["usuarios.id"]),
        sa.PrimaryKeyConstraint("huella"),
    )
    with op.batch_alter_table("sesiones", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sesiones_usuario_id"), ["usuario_id"], unique=False)
    op.create_table(
        "trabajos",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("tipo", sa.String(length=30), nullable=False),
        sa.Column("estado", sa.String(length=20), nullable=False),
        sa.Column("paso", sa.Integer(), nullable=False),
        sa.Column("pasos", sa.Integer(), nullable=False),
        sa.Column("mensaje", sa.Text(), nullable=False),
        sa.Column("resultado", sa.Text(), nullable=True),
        sa.Column("quien", sa.String(length=200), nullable=False),
        sa.Column("comisionista", sa.String(length=120), nullable=True),
        sa.Column("creado_en", sa.DateTime(), nullable=False),
        sa.Column("actualizado_en", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )


def downgrade() -> None:
    op.drop_table("trabajos")
    with op.batch_alter_table("sesiones", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sesiones_usuario_id"))
    op.drop_table("sesiones")
    op.drop_table("tokens_api")
    op.drop_table("usuarios")
    op.drop_table("auditoria")
