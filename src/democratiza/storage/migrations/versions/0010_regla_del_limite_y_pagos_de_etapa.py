"""aceptaciones.regla_limite; pagos y enajenación de las etapas siguientes

Revision ID: 0010
Revises: 0008

Why: when a person's earlier filings consume their limit, a later acceptance is reduced at
the adjudication by the person's smallest limit, which another of their acceptances may
carry; the rule behind each acceptance's smallest limit is kept so that the reduction names
its rule and article even when that acceptance itself was not reduced at intake.

And a later stage's awards are paid and settled as the Primera Etapa's: its payment files
(lotes_pagos_etapa), its payments (pagos_etapa) and its sale (enajenaciones_etapa), per order.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0008"


def _payment_columns() -> list[sa.Column[object]]:
    return [
        sa.Column("fecha", sa.Date(), nullable=False),
        sa.Column("monto", sa.BigInteger(), nullable=False),
        sa.Column("forma", sa.String(length=20), nullable=False),
        sa.Column("quien", sa.String(length=120), nullable=False),
        sa.Column("registrado_en", sa.DateTime(), nullable=False),
    ]


def upgrade() -> None:
    with op.batch_alter_table("aceptaciones") as batch:
        batch.add_column(sa.Column("regla_limite", sa.String(length=60), nullable=True))
    op.create_table(
        "lotes_pagos_etapa",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("etapa_id", sa.Integer(), nullable=False),
        sa.Column("lote", sa.String(length=120), nullable=False),
        sa.Column("archivo", sa.String(length=400), nullable=False),
        sa.Column("huella", sa.String(length=64), nullable=False),
        sa.Column("filas", sa.Integer(), nullable=False),
        sa.Column("recibido_en", sa.DateTime(), nullable=False),
        sa.Column("quien", sa.String(length=120), nullable=False),
        sa.ForeignKeyConstraint(["etapa_id"], ["etapas.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("etapa_id", "lote", name="uq_lote_pagos_etapa"),
    )
    op.create_table(
        "pagos_etapa",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("orden_id", sa.Integer(), nullable=False),
        *_payment_columns(),
        sa.ForeignKeyConstraint(["orden_id"], ["ordenes.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_pagos_etapa_orden_id", "pagos_etapa", ["orden_id"])
    op.create_table(
        "enajenaciones_etapa",
        sa.Column("orden_id", sa.Integer(), nullable=False),
        sa.Column("fecha_enajenacion", sa.Date(), nullable=False),
        sa.Column("acciones_pagadas", sa.BigInteger(), nullable=False),
        sa.Column("acciones_resueltas", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["orden_id"], ["ordenes.id"]),
        sa.PrimaryKeyConstraint("orden_id"),
    )


def downgrade() -> None:
    op.drop_table("enajenaciones_etapa")
    op.drop_index("ix_pagos_etapa_orden_id", table_name="pagos_etapa")
    op.drop_table("pagos_etapa")
    op.drop_table("lotes_pagos_etapa")
    with op.batch_alter_table("aceptaciones") as batch:
        batch.drop_column("regla_limite")
