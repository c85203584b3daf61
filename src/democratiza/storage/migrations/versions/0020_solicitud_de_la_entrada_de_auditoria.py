"""auditoria.solicitud: the id of the web request that caused each entry

Revision ID: 0020
Revises: 0019

Why: a broker who complains about a request gives its ``X-Request-Id``; the operator finds
its log line, and with this column the changes it made (the batch it filed, the lane's
process included). Entries written before have none, and their hashes are unchanged: the
id enters an entry's hash only when it has one (``storage.audit``).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"


def upgrade() -> None:
    op.add_column("auditoria", sa.Column("solicitud", sa.String(length=64), nullable=True))


def downgrade() -> None:
    # The entries that had an id no longer verify without it (it was inside their hash):
    # downgrade only a database whose entries have none.
    op.drop_column("auditoria", "solicitud")
