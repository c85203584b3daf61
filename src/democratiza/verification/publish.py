"""Build the public package of a published stage from the database, and record its hash.

The package is built from the stored, verified record (``stored_adjudication``,
``stored_allocation``: recomputed and checked against their hashes), with each filing's
pseudonym under the offer's key. Building it records the manifest's SHA-256 in the audit
log, so that what was published can be told apart from anything changed afterwards. The
package names the program by the SHA-256 of the program file's text the offer keeps (the
hash the adjudication record names too), so anyone holding that file can check it is the one.
Its manifest carries the audit chain's head: the last entry before the one that records the
package, read under the chain's lock in the same transaction, so no other entry comes between.
"""

from __future__ import annotations

import json

from sqlalchemy import Connection, Engine, select

from democratiza.adjudication.record import stored_adjudication
from democratiza.offers.lifecycle import OfferError, StoredOffer, load_offer
from democratiza.stages.allocate import stored_allocation
from democratiza.stages.lifecycle import load_stage
from democratiza.stages.terms import StageError
from democratiza.storage import audit
from democratiza.storage.schema import audit_log
from democratiza.verification.package import (
    Package,
    first_stage_package,
    stage_package,
    with_head,
)
from democratiza.verification.pseudonyms import offer_key, pseudonyms

PUBLISHED = "paquete.publicar"  # the audit action that records a package's manifest


def _published(stored: StoredOffer) -> None:
    if stored.state != "publicada":
        raise OfferError(
            f"La oferta '{stored.code}' está {stored.state}: su paquete público se arma "
            "cuando la adjudicación está publicada."
        )


def offer_package(engine: Engine, code: str, who: str) -> Package:
    """The Primera Etapa's public package (the offer must be published)."""
    done = stored_adjudication(engine, code)
    with engine.begin() as conn:
        stored = load_offer(conn, code)
        _published(stored)
        names = pseudonyms(offer_key(conn, stored.id), done.results)
        package = first_stage_package(stored, done, names)
        return _record(conn, who, f"ofertas/{stored.id}/paquete", package)


def stage_package_of(engine: Engine, stage_code: str, who: str) -> Package:
    """A later stage's public package (the stage must be published)."""
    done = stored_allocation(engine, stage_code)
    with engine.begin() as conn:
        stage = load_stage(conn, stage_code)
        if stage.state != "publicada":
            raise StageError(
                f"La etapa '{stage_code}' está {stage.state}: su paquete público se arma cuando "
                "su adjudicación está publicada."
            )
        names = pseudonyms(offer_key(conn, stage.first.id), done.results)
        package = stage_package(stage, done, names)
        return _record(conn, who, f"etapas/{stage.code}/paquete", package)


def _record(conn: Connection, who: str, where: str, built: Package) -> Package:
    """The package with the chain's head in its manifest, and the entry that records it.

    The package recorded last fixes its head: built again (another process, a download after
    a restart, the command line), the same package carries the same head, so it is byte for
    byte the one whose manifest SHA-256 was recorded and published, and no entry is added.
    Only a package that differs from the recorded one is recorded anew, with today's head.

    The chain's lock is taken before the recorded package is looked up: two processes
    building the first package at once would otherwise both find none and both record it.
    """
    head = audit.locked_anchor(conn)
    e = audit_log.c
    last = conn.execute(
        select(e.id, e.huella_anterior, e.despues)
        .where(e.accion == PUBLISHED, e.entidad == where)
        .order_by(e.id.desc())
        .limit(1)
    ).first()
    if last is not None:
        again = with_head(built, audit.Anchor(int(last.id) - 1, str(last.huella_anterior)))
        if json.loads(str(last.despues)).get("manifiesto") == again.manifest_digest:
            return again
    package = with_head(built, head)
    audit.append(conn, who, PUBLISHED, where, None, {"manifiesto": package.manifest_digest})
    return package
