"""On PostgreSQL the bytes anonymous uploads hold are counted for the whole machine.

Two engines stand for two service processes of one machine (each has its own pool, as two
processes do): what one holds, the other sees. A process killed mid-upload leaves its row;
the next reservation on its machine sees the process is gone and drops it. Another machine
has its own budget (its own memory and temporary folder).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, insert, select

from democratiza.storage.database import make_engine, migrate
from democratiza.storage.schema import upload_holds
from democratiza.web.app import create_app
from democratiza.web.server.shared_budget import SharedByteBudget, budget_for
from democratiza.web.server.upload_budget import MIB, ByteBudget, UploadBudget
from tests.conftest import fresh_postgres
from tests.test_web_support import csrf_of

TOTAL = 8 * MIB


def fits(budget: UploadBudget, size: int) -> bool:
    """Whether an upload of ``size`` bytes would be let in now (its bytes given back at once):
    what a budget holds is seen only through what it still lets in."""
    hold = budget.reserve(size)
    if hold is None:
        return False
    budget.release(hold)
    return True


def holds(budget: UploadBudget, size: int) -> bool:
    """Whether the budget holds exactly ``size`` bytes: the rest fits, one byte more does not."""
    return fits(budget, budget.total - size) and not fits(budget, budget.total - size + 1)


@pytest.fixture
def two(pg_url: str) -> Iterator[tuple[Engine, Engine]]:
    fresh_postgres(pg_url)
    first, second = make_engine(pg_url), make_engine(pg_url)
    migrate(first)
    yield first, second
    first.dispose()
    second.dispose()


def test_two_processes_of_one_machine_share_one_budget(two: tuple[Engine, Engine]) -> None:
    one, other = (SharedByteBudget(e, TOTAL, machine="maquina-1") for e in two)
    held = one.reserve(7 * MIB)
    assert held is not None and held.size == 7 * MIB
    assert other.reserve(2 * MIB) is None  # 7 + 2 > 8, whichever process is asked
    small = other.reserve(MIB)
    assert small is not None and holds(other, 8 * MIB) and holds(one, 8 * MIB)
    one.release(held)
    assert holds(other, MIB)
    again = other.reserve(7 * MIB)
    assert again is not None
    other.release(again)
    other.release(small)
    assert holds(one, 0)


def test_another_machine_has_its_own_budget(two: tuple[Engine, Engine]) -> None:
    here = SharedByteBudget(two[0], TOTAL, machine="maquina-1")
    there = SharedByteBudget(two[1], TOTAL, machine="maquina-2")
    assert here.reserve(TOTAL) is not None
    assert there.reserve(TOTAL) is not None and here.reserve(1) is None


def _dead_process() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(done.stdout)


def test_a_dead_process_or_an_old_reservation_gives_its_bytes_back(
    two: tuple[Engine, Engine],
) -> None:
    budget = SharedByteBudget(two[0], TOTAL, machine="maquina-1")
    with two[1].begin() as conn:  # a process killed mid-upload, and one from long ago
        conn.execute(
            insert(upload_holds),
            [
                {
                    "maquina": "maquina-1",
                    "proceso": _dead_process(),
                    "bytes": TOTAL,
                    "vence": 2**62,
                },
                {"maquina": "maquina-2", "proceso": 1, "bytes": TOTAL, "vence": 0},
            ],
        )
    held = budget.reserve(TOTAL)  # the dead process's bytes and the expired ones dropped
    assert held is not None
    with two[1].connect() as conn:
        left = conn.execute(select(upload_holds.c.proceso, upload_holds.c.bytes)).all()
    assert [tuple(row) for row in left] == [(os.getpid(), TOTAL)]  # only the new one


def test_the_verifier_refuses_unread_what_another_process_holds(
    two: tuple[Engine, Engine],
) -> None:
    service = create_app(two[0])
    budget = service.state.anonymous_uploads
    assert isinstance(budget, SharedByteBudget)
    assert isinstance(budget_for(make_engine("sqlite://")), ByteBudget)
    other = SharedByteBudget(two[1], budget.total)  # this machine's other process
    held = other.reserve(budget.total - MIB)
    assert held is not None
    public = TestClient(service)
    token = csrf_of(public, "/verificar")
    files = {"paquete": ("paquete.zip", b"x" * (2 * MIB), "application/zip")}
    answer = public.post("/verificar", params={"csrf": token}, files=files)
    assert answer.status_code == 503
    assert "demasiados paquetes a la vez" in answer.text
    other.release(held)
    small = {"paquete": ("paquete.zip", b"no es un ZIP", "application/zip")}
    assert public.post("/verificar", params={"csrf": token}, files=small).status_code == 422
    assert holds(budget, 0)  # the upload gave its bytes back
