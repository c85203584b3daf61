"""contadores_comisionistas; lotes.numero; aceptaciones y ordenes: recepcion

Revision ID: 0012
Revises: 0011

Why: a radicado was ``<batch id>-<row>``, with the batch id drawn from one sequence for
every broker, so a broker could count other brokers' filings from the radicados it got.
Radicados are now ``<tag>-<the broker's own batch number>-<row>`` (``storage.radicados``)
and the legal order of receipt is a column of its own, ``recepcion``. The rows stored before
keep their radicados; their order of receipt is read from them here, once (batch id times
10⁹ plus the row, as it was read on every adjudication before), and each batch gets its
number among its broker's batches.
"""

from __future__ import annotations

import re

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"

_OLD_RADICADO = re.compile(r"(\d+)-(\d+)$")


def _receipts(table: str) -> None:
    conn = op.get_bind()
    rows = conn.execute(sa.text(f"SELECT id, radicado FROM {table}")).all()
    values = []
    for row_id, radicado in rows:
        found = _OLD_RADICADO.search(radicado)
        assert found, f"radicado {radicado!r} of {table} {row_id} is not <lote>-<fila>"
        values.append({"id": row_id, "r": int(found[1]) * 10**9 + int(found[2])})
    if values:
        conn.execute(sa.text(f"UPDATE {table} SET recepcion = :r WHERE id = :id"), values)


def _numbers(table: str, scope: str) -> None:
    op.execute(
        f"UPDATE {table} SET numero = (SELECT count(*) FROM {table} AS earlier "
        f"WHERE earlier.{scope} = {table}.{scope} "
        f"AND earlier.comisionista = {table}.comisionista AND earlier.id <= {table}.id)"
    )


def _add_required(table: str, column: str, kind: type[sa.types.TypeEngine[int]]) -> None:
    """Add a column every row must have, filled for the rows already stored (``fill``).

    SQLite adds a NOT NULL column only with a default, and rebuilding these tables instead
    would drop the triggers migration 0005 put on them: there the default is 0, which no
    batch number or receipt ever is (both start at 1), and every write names the column.
    """
    if op.get_bind().dialect.name == "sqlite":
        op.add_column(table, sa.Column(column, kind(), nullable=False, server_default="0"))
    else:
        op.add_column(table, sa.Column(column, kind(), nullable=True))


def _require(table: str, column: str) -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column(table, column, nullable=False)


def upgrade() -> None:
    op.create_table(
        "contadores_comisionistas",
        sa.Column("ambito", sa.String(length=40), nullable=False),
        sa.Column("comisionista", sa.String(length=120), nullable=False),
        sa.Column("prefijo", sa.String(length=8), nullable=False),
        sa.Column("ultimo_lote", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("ambito", "comisionista"),
        sa.UniqueConstraint("ambito", "prefijo", name="uq_contador_prefijo"),
    )
    for table, scope in (("lotes", "oferta_id"), ("lotes_ordenes", "etapa_id")):
        _add_required(table, "numero", sa.Integer)
        _numbers(table, scope)
        _require(table, "numero")
    for table in ("aceptaciones", "ordenes"):
        _add_required(table, "recepcion", sa.BigInteger)
        _receipts(table)
        _require(table, "recepcion")


def downgrade() -> None:
    for table, column in (
        ("ordenes", "recepcion"),
        ("aceptaciones", "recepcion"),
        ("lotes_ordenes", "numero"),
        ("lotes", "numero"),
    ):
        op.drop_column(table, column)  # SQLite 3.35+ drops a column in place
    op.drop_table("contadores_comisionistas")
