"""lineas_credito de la oferta; aceptaciones.precio; las fechas de negocio de la oferta

Revision ID: 0011
Revises: 0010

Why: the Primera Etapa opens only once one or several credit lines together make available
at least 10 % of the value of the shares offered, each meeting the conditions of Ley 226
art. 11 num. 3 (GEB arts. 6.4 and 7); the office registers them, and the opening checks them.
After an interruption the price may be adjusted (art. 11 num. 2): each acceptance records the
price it was evaluated at and will pay; the rows before this migration were all evaluated at
the offer's initial price and keep it empty. The dates with legal effect (adjudication,
publication, payment deadline) are business dates the office gives, kept apart from the audit
timestamps; offers adjudicated before keep them empty (their adjudication's timestamp stands).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"


def upgrade() -> None:
    op.create_table(
        "lineas_credito",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("oferta_id", sa.Integer(), nullable=False),
        sa.Column("entidad", sa.String(length=200), nullable=False),
        sa.Column("monto_disponible", sa.BigInteger(), nullable=False),
        sa.Column("plazo_meses", sa.Integer(), nullable=False),
        sa.Column("gracia_meses", sa.Integer(), nullable=False),
        sa.Column("tasa_ea", sa.String(length=20), nullable=False),
        sa.Column("fecha_otorgamiento", sa.Date(), nullable=False),
        sa.Column("capitalizar_gracia", sa.Boolean(), nullable=False),
        sa.Column("garantia", sa.String(length=20), nullable=False),
        sa.Column("quien", sa.String(length=200), nullable=False),
        sa.Column("registrada_en", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["oferta_id"], ["ofertas.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_lineas_credito_oferta_id", "lineas_credito", ["oferta_id"])
    op.add_column("aceptaciones", sa.Column("precio", sa.BigInteger(), nullable=True))
    for name in ("fecha_adjudicacion", "fecha_publicacion", "fecha_limite_pago"):
        op.add_column("ofertas", sa.Column(name, sa.Date(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("ofertas") as batch:
        for name in ("fecha_adjudicacion", "fecha_publicacion", "fecha_limite_pago"):
            batch.drop_column(name)
    with op.batch_alter_table("aceptaciones") as batch:
        batch.drop_column("precio")
    op.drop_index("ix_lineas_credito_oferta_id", table_name="lineas_credito")
    op.drop_table("lineas_credito")
