"""cifras_ofertas: las cifras de cada oferta, contadas por última vez, para todos los procesos

Revision ID: 0021
Revises: 0020

Why: each service process kept in its memory the figures of an offer it had counted; with
several processes (or machines) on one PostgreSQL, only the recount was shared (one at a
time), and each process went on serving its own figures, so two clerks' pages could show
different counts. The figures of the last count, with the key they were counted for, are
kept here (``web.api.shared_figures``) and every process serves them. SQLite, one machine,
keeps them in memory and leaves the table empty.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"


def upgrade() -> None:
    op.create_table(
        "cifras_ofertas",
        sa.Column("oferta_id", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("clave", sa.Text(), nullable=False),
        sa.Column("cifras", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("cifras_ofertas")
