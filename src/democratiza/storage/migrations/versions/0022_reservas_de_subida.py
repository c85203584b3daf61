"""reservas_de_subida: los bytes que las subidas anónimas de una máquina tienen a la vez

Revision ID: 0022
Revises: 0021

Why: the bytes anonymous uploads (the public verifier) may hold at once were counted in each
process's memory, so a machine running several service processes held that many times the
budget in its one temporary folder. On PostgreSQL each upload reserves its bytes in this
table (``web.server.shared_budget``) under a transaction-scoped advisory lock per machine,
once before its body is read and once when its answer is sent: never per chunk. SQLite
keeps the budget in memory and leaves the table empty.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"


def upgrade() -> None:
    op.create_table(
        "reservas_de_subida",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("maquina", sa.String(255), nullable=False),
        sa.Column("proceso", sa.Integer(), nullable=False),
        sa.Column("bytes", sa.BigInteger(), nullable=False),
        sa.Column("vence", sa.BigInteger(), nullable=False),
    )
    op.create_index("ix_reservas_de_subida_maquina", "reservas_de_subida", ["maquina"])


def downgrade() -> None:
    op.drop_table("reservas_de_subida")
