"""ofertas.programa_normas: los textos que cita el programa, guardados con la oferta

Revision ID: 0014
Revises: 0012

Why: a program file may cite texts written by the program office beside it (a decree the
package does not ship), not only the package's own texts. An offer keeps, with the program
file's text, every text the file cites and its SHA-256 (canonical JSON: name, text, hash), so
its rules are rebuilt from exactly the words it was created with, and its public package can
carry them. Offers created before keep it empty: their programs cite only the package's
texts, which they are rebuilt from as before.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0012"


def upgrade() -> None:
    op.add_column("ofertas", sa.Column("programa_normas", sa.Text(), nullable=True))


def downgrade() -> None:
    # Not a batch: SQLite drops a column in place, where a batch would copy ``ofertas``,
    # which other tables reference.
    op.drop_column("ofertas", "programa_normas")
