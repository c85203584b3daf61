"""A process that ends leaves ``/metricas``'s live figures; what it counted stays counted.

Worked example: a process of the service (or of its bulk lane) is in the middle of a batch
(``democratiza_trabajos_en_curso{tipo="lote"}`` 1) and is stopped, or killed outright. Its
file of live figures in ``PROMETHEUS_MULTIPROC_DIR`` is removed
(``prometheus_client.multiprocess.mark_process_dead``), so the page no longer says a job
runs; the batches it refused are still counted.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from democratiza.web.server import metrics, processes
from democratiza.web.server.lane_worker import LaneWorker
from tests.test_web_operation import figure
from tests.test_web_support import free_port

RUNNING = 'democratiza_trabajos_en_curso{tipo="lote"}'
REFUSED = 'democratiza_lotes_total{resultado="rechazado"}'


def nothing_first() -> None:
    """A lane worker's initializer, without the lane's priority and cores."""


def start_a_job() -> bytes:
    """A worker in the middle of a batch: one job running, one batch refused before it."""
    metrics.count_refusal()
    metrics.JOBS_RUNNING.labels("lote").inc()
    return b"en curso"


def start_a_job_then_die(host: str, port: int, url: str, parent: int) -> None:
    """A service process that dies in the middle of a batch, once both have started one (the
    first to die stops the other: it must have counted its own by then)."""
    start_a_job()
    folder = Path(os.environ[metrics.MULTIPROCESS_VARIABLE])
    for _ in range(1200):
        if len(list(folder.glob("gauge_livesum_*.db"))) == 2:
            break
        time.sleep(0.05)
    os._exit(1)


def page() -> str:
    return metrics.exposition().decode()


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The figures' folder, as ``servir`` sets it for the processes it starts."""
    monkeypatch.setenv(metrics.MULTIPROCESS_VARIABLE, str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("ending", ["stop", "abandon"])
def test_a_lane_worker_that_ends_leaves_the_live_figures(folder: Path, ending: str) -> None:
    worker = LaneWorker(nothing_first)
    assert worker.run(start_a_job) == b"en curso"
    assert figure(page(), RUNNING) == 1
    getattr(worker, ending)()  # stopped between batches, or killed in the middle of one
    assert figure(page(), RUNNING) == 0
    assert list(folder.glob("gauge_livesum_*.db")) == []
    assert figure(page(), REFUSED) == 1  # what it counted stays


def test_service_processes_that_die_leave_the_live_figures(folder: Path) -> None:
    status = processes.serve("127.0.0.1", free_port(), "sqlite://", 2, start_a_job_then_die)
    assert status == 1  # a process died: the whole service stops, for systemd to restart it
    assert list(folder.glob("gauge_livesum_*.db")) == []
    assert figure(page(), RUNNING) == 0
    assert figure(page(), REFUSED) == 2
