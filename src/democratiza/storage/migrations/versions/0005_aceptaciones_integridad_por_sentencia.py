"""aceptaciones: su lote y su oferta verificados por sentencia en PostgreSQL

Revision ID: 0005
Revises: 0004

Why: a foreign key checks each inserted row on its own (one lookup and one row lock on the
parent per acceptance); for a batch of 50.000 acceptances those two checks cost more than
the COPY itself. On PostgreSQL the same guarantee is now given once per statement: every
acceptance inserted or updated must name a batch (``lotes``) of its own offer, checked
over the statement's new rows together, with their batches locked as a foreign key would
lock them; a batch or an offer that still has acceptances cannot be deleted, have its key
changed, or be truncated. SQLite keeps its foreign keys (its checks are row by row anyway,
and it has no statement triggers with the new rows) and gains a row trigger for what the
two separate keys did not say: that the batch belongs to the acceptance's own offer.
``tests/test_storage.py`` proves every refusal on both databases.
"""

from __future__ import annotations

from alembic import op

revision = "0005"
down_revision = "0004"

CHECK_NEW_ROWS = """
CREATE FUNCTION aceptaciones_verificar_lote() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    named bigint;
    found bigint;
BEGIN
    SELECT count(*) INTO named FROM (SELECT DISTINCT lote_id, oferta_id FROM nuevas) AS n;
    -- Lock the batches named, as a foreign key would, so none is deleted before commit.
    SELECT count(*) INTO found FROM (
        SELECT l.id FROM lotes AS l
        JOIN (SELECT DISTINCT lote_id, oferta_id FROM nuevas) AS n
          ON l.id = n.lote_id AND l.oferta_id = n.oferta_id
        FOR KEY SHARE OF l
    ) AS locked;
    IF found <> named THEN
        RAISE EXCEPTION 'aceptación sin lote de su oferta'
            USING ERRCODE = 'foreign_key_violation',
                  DETAIL = 'Toda aceptación debe pertenecer a un lote de la misma oferta.';
    END IF;
    RETURN NULL;
END $$;
"""

# One function per parent: PL/pgSQL resolves every field an expression names, so a shared
# function could not read ``oferta_id`` of a batch without failing on an offer.
PROTECT_PARENT = """
CREATE FUNCTION {parent}_proteger_aceptaciones() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        IF EXISTS (SELECT 1 FROM aceptaciones) THEN
            RAISE EXCEPTION 'no se puede vaciar {parent} mientras haya aceptaciones'
                USING ERRCODE = 'foreign_key_violation';
        END IF;
        RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' AND {unchanged} THEN
        RETURN NEW;
    END IF;
    IF EXISTS (SELECT 1 FROM aceptaciones WHERE {children}) THEN
        RAISE EXCEPTION '{parent} %: tiene aceptaciones', OLD.id
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END $$;
"""
PARENTS = {
    "lotes": (
        "NEW.id = OLD.id AND NEW.oferta_id = OLD.oferta_id",
        "oferta_id = OLD.oferta_id AND lote_id = OLD.id",
    ),
    "ofertas": ("NEW.id = OLD.id", "oferta_id = OLD.id"),
}

SQLITE_SAME_OFFER = """
CREATE TRIGGER aceptaciones_lote_{event} BEFORE {EVENT} ON aceptaciones
WHEN NOT EXISTS (SELECT 1 FROM lotes WHERE id = NEW.lote_id AND oferta_id = NEW.oferta_id)
BEGIN
    SELECT RAISE(ABORT, 'aceptación sin lote de su oferta (foreign key)');
END
"""


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        for event in ("insert", "update"):
            op.execute(SQLITE_SAME_OFFER.format(event=event, EVENT=event.upper()))
        return
    op.drop_constraint("aceptaciones_lote_id_fkey", "aceptaciones", type_="foreignkey")
    op.drop_constraint("aceptaciones_oferta_id_fkey", "aceptaciones", type_="foreignkey")
    op.execute(CHECK_NEW_ROWS)
    for event in ("INSERT", "UPDATE"):
        op.execute(
            f"CREATE TRIGGER aceptaciones_lote_{event.lower()} AFTER {event} ON aceptaciones "
            "REFERENCING NEW TABLE AS nuevas FOR EACH STATEMENT "
            "EXECUTE FUNCTION aceptaciones_verificar_lote()"
        )
    for parent, (unchanged, children) in PARENTS.items():
        op.execute(PROTECT_PARENT.format(parent=parent, unchanged=unchanged, children=children))
        op.execute(
            f"CREATE TRIGGER {parent}_con_aceptaciones BEFORE DELETE OR UPDATE ON {parent} "
            f"FOR EACH ROW EXECUTE FUNCTION {parent}_proteger_aceptaciones()"
        )
        op.execute(
            f"CREATE TRIGGER {parent}_vaciar BEFORE TRUNCATE ON {parent} "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {parent}_proteger_aceptaciones()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        for event in ("insert", "update"):
            op.execute(f"DROP TRIGGER aceptaciones_lote_{event}")
        return
    for parent in PARENTS:
        op.execute(f"DROP TRIGGER {parent}_vaciar ON {parent}")
        op.execute(f"DROP TRIGGER {parent}_con_aceptaciones ON {parent}")
        op.execute(f"DROP FUNCTION {parent}_proteger_aceptaciones()")
    for event in ("insert", "update"):
        op.execute(f"DROP TRIGGER aceptaciones_lote_{event} ON aceptaciones")
    op.execute("DROP FUNCTION aceptaciones_verificar_lote()")
    op.create_foreign_key(None, "aceptaciones", "ofertas", ["oferta_id"], ["id"])
    op.create_foreign_key(None, "aceptaciones", "lotes", ["lote_id"], ["id"])
