"""Two processes build an offer's first public package at the same moment: it is recorded
once, and both hand out the very same bytes.

Worked example: the office downloads the package from the web while the command line builds
it. Each looks for the package already recorded, finds none, and records its own: two
entries «Paquete público armado», each with a different head of the audit chain, so two
packages with different manifests, of which only one can be the one published. The chain's
lock is taken before the look-up, so the second waits, then finds the first's entry.

The two builders are held at the moment between the look-up and the recording (for at most a
second), so that without the lock both look up before either records.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import pytest
from sqlalchemy import Engine, func, select

from democratiza.adjudication.record import publish
from democratiza.offers.lifecycle import load_offer
from democratiza.storage import audit
from democratiza.storage.schema import audit_log
from democratiza.verification.package import Package, with_head
from democratiza.verification.pseudonyms import offer_key
from democratiza.verification.publish import PUBLISHED, offer_package
from tests.storage_support import adjudicate_sample

CODE = "central-a-la-vez"


def test_two_builders_at_once_record_the_first_package_once(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    adjudicate_sample(engine, CODE)
    publish(engine, CODE, "oficina", "publicación")
    with engine.begin() as conn:
        # The offer's key already drawn (by a person's lookup of their result, say):
        # drawing it in both builders at once would make the second wait for the first.
        offer_key(conn, load_offer(conn, CODE).id)
        before = audit.anchor(conn)

    meet = threading.Barrier(2, timeout=1)

    def held(built: Package, head: audit.Anchor) -> Package:
        # Both builders here at once only without the lock; with it, the other one waits
        # for the lock and this one goes on alone after a second.
        with contextlib.suppress(threading.BrokenBarrierError):
            meet.wait()
        return with_head(built, head)

    monkeypatch.setattr("democratiza.verification.publish.with_head", held)
    built: list[Package] = []
    failed: list[Any] = []

    def build(who: str) -> None:
        try:
            built.append(offer_package(engine, CODE, who))
        except Exception as exc:
            failed.append(exc)

    builders = [threading.Thread(target=build, args=(who,)) for who in ("oficina", "auditor")]
    for builder in builders:
        builder.start()
    for builder in builders:
        builder.join(timeout=60)

    assert failed == []
    first, second = built
    assert first.files == second.files  # byte for byte the same package
    assert first.head == before  # its head: the chain's last entry before it was recorded
    with engine.connect() as conn:
        recorded = conn.execute(
            select(func.count()).where(audit_log.c.accion == PUBLISHED)
        ).scalar_one()
        assert recorded == 1
        assert audit.verify(conn).ok
