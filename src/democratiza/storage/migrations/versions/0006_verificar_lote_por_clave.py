"""aceptaciones: la verificación de su lote busca cada lote por su clave

Revision ID: 0006
Revises: 0005

Why: the statement trigger of 0005 joined the statement's new rows with ``lotes`` and left
the plan to the planner. While ``lotes`` has no statistics (a new database, before
autovacuum first analyses it) the planner takes it for a small table and reads all of it.
Each single acceptance is a batch of its own, so ``lotes`` grows with every one, and every
group of single acceptances read the whole table again (7 million rows read in one minute
of the web benchmark). Now each batch the new rows name is looked up by its primary key:
a LATERAL subquery with its lock, which the planner cannot merge into a join. Same check,
same lock, same error as before.
"""

from __future__ import annotations

from alembic import op

revision = "0006"
down_revision = "0005"

FUNCTION = """
CREATE OR REPLACE FUNCTION aceptaciones_verificar_lote() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    named bigint;
    found bigint;
BEGIN
    SELECT count(*) INTO named FROM (SELECT DISTINCT lote_id, oferta_id FROM nuevas) AS n;
    -- Lock the batches named, as a foreign key would, so none is deleted before commit.
    SELECT count(*) INTO found FROM ({locked}) AS locked;
    IF found <> named THEN
        RAISE EXCEPTION 'aceptación sin lote de su oferta'
            USING ERRCODE = 'foreign_key_violation',
                  DETAIL = 'Toda aceptación debe pertenecer a un lote de la misma oferta.';
    END IF;
    RETURN NULL;
END $$;
"""
# Only the primary key in the lookup: given the offer too, the planner without statistics
# took the index on (offer, broker, batch id) and read every batch of the offer.
BY_KEY = """
        SELECT l.id FROM (SELECT DISTINCT lote_id, oferta_id FROM nuevas) AS n
        CROSS JOIN LATERAL (
            SELECT id, oferta_id FROM lotes WHERE id = n.lote_id FOR KEY SHARE
        ) AS l
        WHERE l.oferta_id = n.oferta_id
"""
AS_A_JOIN = """
        SELECT l.id FROM lotes AS l
        JOIN (SELECT DISTINCT lote_id, oferta_id FROM nuevas) AS n
          ON l.id = n.lote_id AND l.oferta_id = n.oferta_id
        FOR KEY SHARE OF l
"""  # 0005's


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(FUNCTION.format(locked=BY_KEY))


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(FUNCTION.format(locked=AS_A_JOIN))
