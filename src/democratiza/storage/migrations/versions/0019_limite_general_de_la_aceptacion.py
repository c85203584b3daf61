"""aceptaciones.limite_general y regla_general: el límite que no depende de la forma de pago

Revision ID: 0019
Revises: 0018

Why: a cap of one way of paying (``tope_financiado: cuotas``) limits only the person's
filings that pay that way; a person's cash filing must not be cut by it. The person rule
(``rules.person``) needs, for each acceptance, besides its smallest limit, the smallest of
the limits that concern every filing whatever its way of paying, and that limit's rule.
Acceptances stored before keep their smallest limit as that limit (the rule they were
adjudicated by), so their adjudications recompute as they were recorded.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"


def upgrade() -> None:
    op.add_column("aceptaciones", sa.Column("limite_general", sa.BigInteger(), nullable=True))
    op.add_column("aceptaciones", sa.Column("regla_general", sa.String(length=60), nullable=True))
    op.execute(
        "UPDATE aceptaciones SET limite_general = limite_minimo, regla_general = regla_limite"
    )


def downgrade() -> None:
    # Not a batch: SQLite drops a column in place, where a batch would copy ``aceptaciones``,
    # which other tables reference.
    op.drop_column("aceptaciones", "regla_general")
    op.drop_column("aceptaciones", "limite_general")
