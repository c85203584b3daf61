"""claves_seudonimos: la clave de cada oferta para los seudónimos de su paquete público

Revision ID: 0008
Revises: 0007

Why: the public package of an adjudication names each filing by a pseudonym, a keyed hash of
its identification; the key is the program office's, one per offer, and never leaves the
database (without it, a pseudonym cannot be recomputed from an identification number).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"


def upgrade() -> None:
    op.create_table(
        "claves_seudonimos",
        sa.Column("oferta_id", sa.Integer(), nullable=False),
        sa.Column("clave", sa.String(length=64), nullable=False),
        sa.Column("creada_en", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["oferta_id"], ["ofertas.id"]),
        sa.PrimaryKeyConstraint("oferta_id"),
    )


def downgrade() -> None:
    op.drop_table("claves_seudonimos")
