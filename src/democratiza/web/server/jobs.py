"""Long work (a large batch, an adjudication) in a background thread, with its progress.

Why: a 100.000-row upload or an adjudication takes seconds; the request that starts it
answers at once with a job number, the work runs in a small thread pool, and the page polls
``/api/trabajos/{id}``. Progress lives in the ``trabajos`` table rather than in memory, so
any server process (uvicorn may run several) can answer the poll, and a broker's job is
visible to that broker only.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, insert, select, update

from democratiza.storage.audit import acting_as, request_now
from democratiza.storage.schema import jobs
from democratiza.web.errors import NotFound, WebError
from democratiza.web.security.auth import BROKER, Principal
from democratiza.web.server import metrics
from democratiza.web.server.observability import JOB_LOG, log_line


@dataclass(frozen=True)
class Progress:
    """Handed to the work: ``step(n, message)`` records how far it got."""

    engine: Engine
    job_id: str

    def step(self, number: int, message: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                update(jobs)
                .where(jobs.c.id == self.job_id)
                .values(paso=number, mensaje=message, actualizado_en=datetime.now())
            )


Work = Callable[[Progress], dict[str, Any]]


class JobRunner:
    def __init__(self, engine: Engine, workers: int = 2) -> None:
        self.engine = engine
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="trabajo")

    def submit(self, kind: str, who: Principal, steps: int, first: str, work: Work) -> str:
        job_id = secrets.token_hex(16)
        now = datetime.now()
        with self.engine.begin() as conn:
            conn.execute(
                insert(jobs).values(
                    id=job_id,
                    tipo=kind,
                    estado="en_cola",
                    paso=0,
                    pasos=steps,
                    mensaje=first,
                    resultado=None,
                    quien=who.who,
                    comisionista=who.broker if who.role == BROKER else None,
                    creado_en=now,
                    actualizado_en=now,
                )
            )
        self.pool.submit(self._run, job_id, kind, who.role, request_now(), work)
        return job_id

    def _run(self, job_id: str, kind: str, role: str, rid: str | None, work: Work) -> None:
        """Run the work; count it while it runs and tell its end in one line (no result).

        The work runs as the request that started it: its audit entries carry that id.
        """
        with acting_as(rid):
            self._run_as_request(job_id, kind, role, rid, work)

    def _run_as_request(
        self, job_id: str, kind: str, role: str, rid: str | None, work: Work
    ) -> None:
        self._finish(job_id, "en_curso", None, None)
        started = time.perf_counter()
        state, rows = "fallido", None
        running = metrics.JOBS_RUNNING.labels(kind)
        running.inc()
        try:
            result = work(Progress(self.engine, job_id))
        except WebError as exc:
            body = {"detalle": exc.message, "errores": [i.model_dump() for i in exc.items]}
            self._finish(job_id, "fallido", exc.message, {**body, "total_errores": exc.total})
        except Exception as exc:  # the job must end visibly whatever happened
            self._finish(job_id, "fallido", f"Error inesperado: {type(exc).__name__}", None)
        else:
            state, rows = "terminado", result.get("filas")
            self._finish(job_id, state, str(result.get("detalle", "Terminado.")), result)
        finally:
            running.dec()
            fields = {
                "trabajo": job_id,
                "tipo": kind,
                "request_id": rid,
                "rol": role,
                "estado": state,
                "duracion_ms": round((time.perf_counter() - started) * 1000, 1),
                "filas": rows if isinstance(rows, int) else None,
            }
            log_line(JOB_LOG, fields)

    def _finish(
        self, job_id: str, state: str, message: str | None, result: dict[str, Any] | None
    ) -> None:
        values: dict[str, Any] = {"estado": state, "actualizado_en": datetime.now()}
        if message is not None:
            values["mensaje"] = message
        if result is not None:
            values["resultado"] = json.dumps(result, ensure_ascii=False, default=str)
        if state == "terminado":
            values["paso"] = jobs.c.pasos
        with self.engine.begin() as conn:
            conn.execute(update(jobs).where(jobs.c.id == job_id).values(**values))

    def shutdown(self) -> None:
        self.pool.shutdown(wait=True)


def load_job(engine: Engine, job_id: str, who: Principal) -> dict[str, Any]:
    """A job as its owner (a broker: its own only) or the office and auditors see it."""
    with engine.connect() as conn:
        row = conn.execute(select(jobs).where(jobs.c.id == job_id)).mappings().first()
    if row is None or (who.role == BROKER and row["comisionista"] != who.broker):
        raise NotFound("No existe ese trabajo, o no es suyo.")
    found = dict(row)
    found["resultado"] = json.loads(row["resultado"]) if row["resultado"] else None
    for key in ("creado_en", "actualizado_en"):
        found[key] = row[key].isoformat()
    return found
