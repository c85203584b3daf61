"""The floor of ``democratiza evaluar`` on this machine: what its stages cost in processor
time, and how fast the command could be if every processor were kept busy.

Each stage of the command is run here in its turn over the whole file, piece by piece as
the command cuts it, and its processor time (every thread of this process: Polars computes
on all of them) is summed: reading the pieces, typing, evaluating, explaining and writing
the decision files. The command overlaps the stages on the machine's processors; it cannot take
less than the start of the process (the interpreter, the imports, measured with
``evaluar --help``) plus all that processor time shared among the processors. A ratio above
the target there means the target asks for less work, not for more overlap.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from pathlib import Path

from democratiza.cli.offer_options import offer_from
from democratiza.reports.decisions import CHUNK, DecisionFiles, Outputs
from democratiza.rules.engine import CompiledProgram
from democratiza.tables.parse import parse
from democratiza.tables.readers import read_table_chunks

STAGES = ("leer por piezas", "tipar", "evaluar", "explicar y escribir")


def startup_seconds(command: Path, times: int = 3) -> float:
    """The best of ``times`` starts of ``democratiza evaluar --help`` (a process that
    imports what the command imports and does nothing else)."""
    best = float("inf")
    for _ in range(times):
        start = time.perf_counter()
        subprocess.run([str(command), "evaluar", "--help"], capture_output=True, check=True)
        best = min(best, time.perf_counter() - start)
    return best


def stage_cpu(path: Path, program: str, params: dict[str, object]) -> dict[str, float]:
    """Processor seconds of reading, typing and evaluating the whole file, one stage after
    the other for each piece (``STAGES``, but the last)."""
    compiled = _compiled(program, params)
    spent = dict.fromkeys(STAGES[:-1], 0.0)
    clock = time.process_time()

    def tick(stage: str) -> None:
        nonlocal clock
        now = time.process_time()
        spent[stage] += now - clock
        clock = now

    for raw in read_table_chunks(path, CHUNK).pieces:
        tick(STAGES[0])
        frame = parse(raw)
        tick(STAGES[1])
        compiled.evaluate(frame)
        tick(STAGES[2])
    tick(STAGES[0])  # the end of the file
    return spent


def whole_cpu(path: Path, program: str, params: dict[str, object], outputs: Outputs) -> float:
    """Processor seconds of every stage, the decision files of ``outputs`` explained and
    written as the command does (``DecisionFiles``, its writer thread's time counted too:
    why the stage of explaining and writing is told as what this adds to ``stage_cpu``)."""
    compiled = _compiled(program, params)
    start = time.process_time()
    with (
        tempfile.TemporaryDirectory(prefix="piso-evaluar-") as folder,
        DecisionFiles(compiled, Path(folder), "decisiones", outputs) as files,
    ):
        for raw in read_table_chunks(path, CHUNK).pieces:
            frame = parse(raw)
            files.add(compiled.evaluate(frame), frame)
    return time.process_time() - start


def _compiled(program: str, params: dict[str, object]) -> CompiledProgram:
    return CompiledProgram(offer_from(program, [f"{k}={v}" for k, v in params.items()], None))


def processors() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
