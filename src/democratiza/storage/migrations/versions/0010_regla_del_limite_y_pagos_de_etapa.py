"""aceptaciones.regla_limite: la regla detrás del límite menor de cada aceptación

Revision ID: 0010
Revises: 0008

Why: when a person's earlier filings consume their limit, a later acceptance is reduced at
the adjudication by the person's smallest limit, which another of their acceptances may
carry; the rule behind each acceptance's smallest limit is kept so that the reduction names
its rule and article even when that acceptance itself was not reduced at intake.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0008"


def upgrade() -> None:
    with op.batch_alter_table("aceptaciones") as batch:
        batch.add_column(sa.Column("regla_limite", sa.String(length=60), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("aceptaciones") as batch:
        batch.drop_column("regla_limite")
