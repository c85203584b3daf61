"""``bench_web.py --contra REV``: the same benchmark on REV's code and today's, alternating.

Why alternating, in one run: on a shared machine the load of the moment moves a figure by a
quarter; two runs an hour apart cannot tell a regression from a busier hour. Run after run,
REV first and then today, then today first, the machine's hour is the same for both.

REV is checked out with ``git worktree add --detach`` into a temporary folder; its own
``benchmarks/bench_web.py`` runs with REV's ``democratiza`` first on ``PYTHONPATH`` (for
the benchmark and the service it starts), with the same options, which REV's script must
know (``--segundos``, ``--clientes``, ``--lotes``, ``--filas``, ``--procesos`` since
f2c6ed9; not ``--puertos``). Its load is the same as today's: the same generator of rows,
seeds and clients. The folder and the worktree are removed at the end.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

SINGLES = re.compile(r"individuales .*?([\d.]+) por segundo; p50 (\d+) ms, p99 (\d+) ms")
BATCHES = re.compile(r"Lotes de .*?(\d+) filas por segundo")
LOST = re.compile(r"perdidas: (\d+); de más: (\d+)")


def _without_contra(argv: list[str]) -> list[str]:
    kept, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg in ("--contra", "--rondas"):
            skip = True
        elif not arg.startswith(("--contra=", "--rondas=")):
            kept.append(arg)
    return kept


def _one(script: Path, src: Path, argv: list[str]) -> tuple[str, str, str, str, str]:
    env = dict(os.environ, PYTHONPATH=f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    done = subprocess.run(
        [sys.executable, str(script), *argv], env=env, capture_output=True, text=True, check=False
    )
    out = done.stdout
    singles, batches, lost = SINGLES.search(out), BATCHES.search(out), LOST.search(out)
    if done.returncode or singles is None:
        print(out, done.stderr[-2000:], sep="\n", file=sys.stderr)
        return ("error", "", "", "", "")
    rows = batches.group(1) if batches else "-"
    missing = f"{lost.group(1)}/{lost.group(2)}" if lost else "-"
    return (singles.group(1), singles.group(2), singles.group(3), rows, missing)


def paired_runs(
    root: Path,
    script: Path,
    rev: str,
    rounds: int,
    argv: list[str],
    before: Callable[[], None] | None = None,
) -> None:
    """Print REV's and today's figures, ``rounds`` pairs in alternating order; ``before``
    is called before each run (it may stop them all, e.g. a port another service took)."""
    argv = _without_contra(argv)
    today = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="bench-contra-") as folder:
        tree = Path(folder) / rev
        subprocess.run(
            ["git", "-C", str(root), "worktree", "add", "--detach", "--quiet", str(tree), rev],
            check=True,
        )
        try:
            codes = {
                rev: (tree / "benchmarks" / script.name, tree / "src"),
                f"hoy ({today})": (script, root / "src"),
            }
            header = (
                f"{'ronda':>5}  {'código':<16}  {'sueltas/s':>9}  {'p50 ms':>6}  {'p99 ms':>6}  "
                f"{'filas de lotes/s':>16}  {'perdidas/de más':>15}"
            )
            print(f"bench_web.py {' '.join(argv)}, {rev} contra hoy, alternados")
            print(header)
            for n in range(rounds):
                order = list(codes.items())
                if n % 2:
                    order.reverse()
                for label, (bench, src) in order:
                    if before is not None:
                        before()
                    per_s, p50, p99, rows, missing = _one(bench, src, argv)
                    print(
                        f"{n + 1:>5}  {label:<16}  {per_s:>9}  {p50:>6}  {p99:>6}  "
                        f"{rows:>16}  {missing:>15}",
                        flush=True,
                    )
        finally:
            subprocess.run(
                ["git", "-C", str(root), "worktree", "remove", "--force", str(tree)], check=False
            )
