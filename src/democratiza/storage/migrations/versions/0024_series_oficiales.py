"""series_oficiales: the official series the program office loads from the web or the CLI

Revision ID: 0024
Revises: 0022

Why: a credit line granted on a date the shipped interés bancario corriente points do not
cover could not be checked, and the offer could not open; the office could give the official
series only on the command line (``--serie-ibc``), once per command. Loaded once and kept,
the series is the one every check reads afterwards, from the web and the command line alike.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0022"


def upgrade() -> None:
    op.create_table(
        "series_oficiales",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tipo", sa.String(length=40), nullable=False),
        sa.Column("archivo", sa.String(length=200), nullable=False),
        sa.Column("contenido", sa.Text(), nullable=False),
        sa.Column("huella", sa.String(length=64), nullable=False),
        sa.Column("quien", sa.String(length=200), nullable=False),
        sa.Column("cargada_en", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_series_oficiales_tipo", "series_oficiales", ["tipo"])


def downgrade() -> None:
    op.drop_index("ix_series_oficiales_tipo", table_name="series_oficiales")
    op.drop_table("series_oficiales")
