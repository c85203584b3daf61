"""ofertas: el archivo de programa guardado con la oferta y su huella

Revision ID: 0007
Revises: 0006

Why: an offer read its rules from the installed program file each time it was loaded, so
editing the file changed the rules of offers already running, and an offer created from a
file given by path could not be loaded again (only its id was stored). Now each offer keeps
the exact text of the program file it was created with (``programa_texto``) and its SHA-256
(``programa_huella``); the adjudication record names that hash (``huella_programa``).

Offers created before this revision are given the text of the installed bundled file when
its version is the one the offer was created with: that is the program they were loaded
with until now. The others (a file given by path, or a bundled file of another version)
keep no text, and loading them says why.
"""

from __future__ import annotations

import sqlalchemy as sa
import yaml
from alembic import op

from democratiza.programs.loader import bundled_program_ids, read_program

revision = "0007"
down_revision = "0006"


def _backfill() -> None:
    offers = sa.table(
        "ofertas",
        sa.column("id", sa.Integer),
        sa.column("programa", sa.String),
        sa.column("version_programa", sa.Integer),
        sa.column("programa_texto", sa.Text),
        sa.column("programa_huella", sa.String),
    )
    conn = op.get_bind()
    bundled = set(bundled_program_ids())
    rows = conn.execute(sa.select(offers.c.id, offers.c.programa, offers.c.version_programa))
    for offer_id, program_id, version in rows.all():
        if program_id not in bundled:
            continue
        found = read_program(program_id)
        data = yaml.safe_load(found.text)
        if not isinstance(data, dict) or data.get("version") != version:
            continue
        conn.execute(
            offers.update()
            .where(offers.c.id == offer_id)
            .values(programa_texto=found.text, programa_huella=found.sha256)
        )


def upgrade() -> None:
    with op.batch_alter_table("ofertas") as batch:
        batch.add_column(sa.Column("programa_texto", sa.Text(), nullable=True))
        batch.add_column(sa.Column("programa_huella", sa.String(length=64), nullable=True))
    with op.batch_alter_table("adjudicaciones") as batch:
        batch.add_column(sa.Column("huella_programa", sa.String(length=64), nullable=True))
    _backfill()


def downgrade() -> None:
    with op.batch_alter_table("adjudicaciones") as batch:
        batch.drop_column("huella_programa")
    with op.batch_alter_table("ofertas") as batch:
        batch.drop_column("programa_huella")
        batch.drop_column("programa_texto")
