"""The anonymous upload budget of a machine, kept in PostgreSQL for all its processes.

Why: counted in each process's memory (``upload_budget.ByteBudget``), a machine running
four service processes let anonymous uploads hold four budgets at once in its one temporary
folder. Here each upload's bytes are a row of ``reservas_de_subida`` (machine, process,
bytes, expiry) written in one short transaction under an advisory lock on the machine, before
a byte of its body is read, and deleted when its answer is sent: two visits to the database
per upload, never one per chunk.

Per machine, not for the whole service: what the budget protects is a machine's memory and
temporary folder; two machines have two of each. Rows of a process that died mid-upload
(``kill -9``) are dropped by the next reservation on its machine, which sees the process is
gone; any row is dropped ``HOLD_SECONDS`` after it was made whatever (a process number
reused, a machine that is gone).
"""

from __future__ import annotations

import os
import socket

from sqlalchemy import Engine, delete, insert, select

from democratiza.storage.advisory import shared
from democratiza.storage.schema import upload_holds
from democratiza.web.security.shared_limits import MICRO, database_clock, lock_pair
from democratiza.web.server.scratch import process_alive
from democratiza.web.server.upload_budget import ANONYMOUS_BYTES, ByteBudget, Hold, UploadBudget

HOLD_SECONDS = 3600  # longer than any upload the verifier reads and checks


class SharedByteBudget:
    """``ByteBudget``'s rule, with the bytes held in ``reservas_de_subida``."""

    def __init__(
        self,
        engine: Engine,
        total: int = ANONYMOUS_BYTES,
        machine: str | None = None,
        hold_seconds: int = HOLD_SECONDS,
    ) -> None:
        self.engine, self.total, self.hold_seconds = engine, total, hold_seconds
        self.machine = (machine or socket.gethostname())[:255]

    def reserve(self, size: int) -> Hold | None:
        t = upload_holds.c
        with self.engine.begin() as conn:
            lock_pair(conn, f"subidas:{self.machine}")
            now = database_clock(conn)
            conn.execute(delete(upload_holds).where(t.vence <= now))
            rows = conn.execute(
                select(t.id, t.proceso, t.bytes).where(t.maquina == self.machine)
            ).all()
            gone = [row.id for row in rows if not process_alive(row.proceso)]
            if gone:
                conn.execute(delete(upload_holds).where(t.id.in_(gone)))
            held = sum(int(row.bytes) for row in rows if row.id not in gone)
            if held + size > self.total:
                return None
            number = conn.execute(
                insert(upload_holds)
                .values(
                    maquina=self.machine,
                    proceso=os.getpid(),
                    bytes=size,
                    vence=now + self.hold_seconds * MICRO,
                )
                .returning(t.id)
            ).scalar_one()
        return Hold(size, int(number))

    def release(self, hold: Hold) -> None:
        if hold.number is None:
            return
        with self.engine.begin() as conn:
            conn.execute(delete(upload_holds).where(upload_holds.c.id == hold.number))


def budget_for(engine: Engine) -> UploadBudget:
    """The anonymous upload budget for the service on this database."""
    if shared(engine):
        return SharedByteBudget(engine)
    return ByteBudget()
