"""fallos_de_entrada, intentos_por_direccion: los límites que comparten los procesos

Revision ID: 0018
Revises: 0014

Why: with several service processes (or machines) on one PostgreSQL, the wait after failed
logins and the attempts per address kept in each process's memory were multiplied by the
number of processes. On PostgreSQL they are kept in these two tables, read and written under
a transaction-scoped advisory lock per account-and-address (``web.security.shared_limits``);
SQLite, one machine, keeps them in memory and leaves the tables empty.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0014"


def upgrade() -> None:
    op.create_table(
        "fallos_de_entrada",
        sa.Column("login", sa.String(200), primary_key=True),
        sa.Column("direccion", sa.String(64), primary_key=True),
        sa.Column("fallos", sa.Integer(), nullable=False),
        sa.Column("ultimo", sa.BigInteger(), nullable=False),
        sa.Column("espera_hasta", sa.BigInteger(), nullable=False),
    )
    op.create_index("ix_fallos_de_entrada_ultimo", "fallos_de_entrada", ["ultimo"])
    op.create_table(
        "intentos_por_direccion",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("grupo", sa.String(40), nullable=False),
        sa.Column("direccion", sa.String(64), nullable=False),
        sa.Column("momento", sa.BigInteger(), nullable=False),
    )
    op.create_index(
        "ix_intentos_por_direccion_clave",
        "intentos_por_direccion",
        ["grupo", "direccion", "momento"],
    )
    op.create_index("ix_intentos_por_direccion_momento", "intentos_por_direccion", ["momento"])


def downgrade() -> None:
    op.drop_table("intentos_por_direccion")
    op.drop_table("fallos_de_entrada")
