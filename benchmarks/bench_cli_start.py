"""How long a person waits before a ``democratiza`` command starts: its help, run as a
person runs it (a new process each time), wall time and processor time.

Most of that wait is importing Python modules; a command that imported every other
command's modules (the web service, the database layer, the reports) made ``democratiza
calcular --help`` wait for all of them. ``--contra REV`` runs the same commands on REV's
code (a git worktree, its ``src`` first on ``PYTHONPATH``) and today's, alternating, so the
machine's load of the moment is the same for both.

    python benchmarks/bench_cli_start.py [--veces 7] [--contra REV]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = [
    ["--help"],
    ["calcular", "--help"],
    ["evaluar", "--help"],
    ["multa", "calcular", "--help"],
    ["oferta", "ver", "--help"],
    ["programas"],
]
TARGET_S = 1.0  # a command that answers within a second keeps a person's train of thought


def once(command: list[str], src: Path) -> tuple[float, float]:
    """(wall seconds, processor seconds) of one run of ``democratiza`` with ``src``'s code."""
    env = dict(os.environ, PYTHONPATH=str(src), COLUMNS="100")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", "from democratiza.cli.main import app; app()", *command],
        env=env,
        stdout=subprocess.DEVNULL,
        check=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def measure(codes: dict[str, Path], times: int) -> None:
    width = max(len(" ".join(c)) for c in COMMANDS) + 12
    labels = list(codes)
    print(
        f"{'comando':<{width}}"
        + "".join(f"{label + ' s (cpu)':>26}" for label in labels)
        + f"   meta ≤ {TARGET_S:.1f} s".replace(".", ",")
    )
    for command in COMMANDS:
        walls: dict[str, list[float]] = {label: [] for label in labels}
        cpus: dict[str, list[float]] = {label: [] for label in labels}
        for n in range(times):
            order = labels if n % 2 == 0 else labels[::-1]
            for label in order:
                wall, cpu = once(command, codes[label])
                walls[label].append(wall)
                cpus[label].append(cpu)
        cells = "".join(
            f"{statistics.median(walls[label]):>17.2f} ({statistics.median(cpus[label]):.2f})"
            for label in labels
        )
        today = statistics.median(walls[labels[-1]])
        verdict = "cumple" if today <= TARGET_S else "NO CUMPLE"
        shown = "democratiza " + " ".join(command)
        print(f"{shown:<{width}}{cells.replace('.', ',')}   {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--veces", type=int, default=7, help="corridas de cada comando")
    parser.add_argument("--contra", help="una revisión de git con la cual comparar")
    args = parser.parse_args()
    print(f"mediana de {args.veces} corridas, cada una un proceso nuevo; segundos de reloj")
    if args.contra is None:
        measure({"hoy": ROOT / "src"}, args.veces)
        return
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as folder:
        tree = Path(folder) / "contra"
        add = ["worktree", "add", "--detach", "--quiet", str(tree), args.contra]
        subprocess.run(["git", "-C", str(ROOT), *add], check=True)
        try:
            measure({args.contra: tree / "src", "hoy": ROOT / "src"}, args.veces)
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False
            )


if __name__ == "__main__":
    main()
