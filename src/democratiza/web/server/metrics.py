"""The service's figures for the operator, in the Prometheus text format (``/metricas``).

Why these and no more: an operator needs to see whether requests are answered and how fast
(per route template, never the path a person typed), how much is being filed and refused,
how much long work is running and whether the database fails. Nothing here carries a name,
an identification number or an amount of a person: the labels are route templates, methods,
statuses, decisions and kinds of job, all from short fixed lists.

Several processes (``servir --procesos N``, and the bulk lane's process, which files the
batches) each count their own; with ``PROMETHEUS_MULTIPROC_DIR`` set (``servir`` sets it
for the processes it starts) each writes its figures to that folder and ``/metricas`` adds
them up, so the page says the same whichever process answers it.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

MULTIPROCESS_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
CONTENT_TYPE = CONTENT_TYPE_LATEST
# Seconds: a single acceptance answers in milliseconds; a batch of 200.000 rows in tens.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)

REQUESTS = Counter(
    "democratiza_solicitudes",
    "Solicitudes respondidas, por plantilla de ruta, método y código de estado HTTP",
    ["ruta", "metodo", "estado"],
)
LATENCY = Histogram(
    "democratiza_solicitud_segundos",
    "Tiempo de respuesta de una solicitud en segundos, por plantilla de ruta",
    ["ruta"],
    buckets=LATENCY_BUCKETS,
)
BATCHES = Counter(
    "democratiza_lotes",
    "Lotes recibidos: radicado (nuevo), repetido (el mismo lote reenviado, guardado una sola "
    "vez) o rechazado (el archivo entero, con sus errores)",
    ["resultado"],
)
ROWS = Counter(
    "democratiza_filas_radicadas",
    "Filas de los lotes radicados (nuevos), por decisión al recibirlas",
    ["decision"],
)
ROWS_REFUSED = Counter(
    "democratiza_filas_rechazadas",
    "Filas de los lotes radicados que las reglas del programa rechazaron al recibirlas",
)
JOBS_RUNNING = Gauge(
    "democratiza_trabajos_en_curso",
    "Trabajos largos (lotes grandes, adjudicaciones) que corren ahora, por tipo",
    ["tipo"],
    multiprocess_mode="livesum",
)
# Seconds: a batch whose turn is free waits microseconds; behind a broker's 375.905-row
# batch, seconds; behind several large ones, minutes.
WAIT_BUCKETS = (0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)
BATCH_WAIT = Histogram(
    "democratiza_lote_espera_segundos",
    "Tiempo que un lote esperó su turno antes de empezar a leerse y guardarse, en segundos: "
    "comisionista (el lote anterior del mismo comisionista, en cualquier proceso) o carril "
    "(un proceso de lotes libre de este proceso del servicio)",
    ["turno"],
    buckets=WAIT_BUCKETS,
)
BROKER_TURN, LANE_TURN = "comisionista", "carril"
DATABASE_ERRORS = Counter(
    "democratiza_errores_base",
    "Solicitudes que la base de datos no pudo atender (caída, ocupada, disco lleno…)",
)
REJECTED = "rechazada"


def count_filing(created: bool, by_decision: Mapping[str, int]) -> None:
    """A batch (or a single acceptance, a batch of one) the intake took: whether it was new,
    and its rows per decision, as its answer counts them (``por_decision``).

    Why the answer's counts: a single acceptance's answer has just counted its one row, and
    counting it again here, with a Polars ``value_counts``, cost more than its answer.
    """
    if not created:
        BATCHES.labels("repetido").inc()
        return
    BATCHES.labels("radicado").inc()
    for decision, rows in by_decision.items():
        ROWS.labels(decision).inc(rows)
        if decision == REJECTED:
            ROWS_REFUSED.inc(rows)


@contextmanager
def waited(turn: str, *locks: AbstractContextManager[object]) -> Iterator[None]:
    """Take ``locks`` in order and hold them inside the block; the time it took to get them
    is one observation of ``BATCH_WAIT`` under ``turn``."""
    started = time.perf_counter()
    with contextlib.ExitStack() as held:
        for lock in locks:
            held.enter_context(lock)
        BATCH_WAIT.labels(turn).observe(time.perf_counter() - started)
        yield


def count_refusal() -> None:
    """A batch refused whole at intake (a bad file, a closed offer)."""
    BATCHES.labels("rechazado").inc()


def forget_process(pid: int | None) -> None:
    """A process of the service (or of its lane) has ended: its live figures leave the sum.

    Why: each process writes its figures to a file of its own in the shared folder; a
    counter of a process that ended still counts (what it answered was answered), but a
    live gauge (``JOBS_RUNNING``) of a process killed in the middle of a job would say
    forever that the job runs. The library removes that process's live files.
    """
    folder = os.environ.get(MULTIPROCESS_VARIABLE)
    if folder and pid is not None:
        mark_process_dead(pid, folder)  # type: ignore[no-untyped-call]


def exposition() -> bytes:
    """Every figure in the Prometheus text format, all processes added up when there are several."""
    if os.environ.get(MULTIPROCESS_VARIABLE):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry)
    return generate_latest(REGISTRY)
