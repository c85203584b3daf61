"""Progress for the commands a person waits on (``lote importar``, ``oferta exportar``): the
step under way and how many remain, on stderr and only when stderr is a terminal.

Why stderr and only a terminal: what a command prints on stdout is its answer, read by
scripts and by tests; a bar drawn into a file or a pipe would be noise in it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn


@contextmanager
def steps(total: int, console: Console | None = None) -> Iterator[Callable[[str], None]]:
    """Yield ``step(text)``: call it as each of the ``total`` steps starts ('Escribiendo el
    informe PDF'); the bar shows the steps done and disappears at the end."""
    shown = console if console is not None else Console(stderr=True)
    if not shown.is_terminal:
        yield lambda _text: None
        return
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn())
    with Progress(*columns, MofNCompleteColumn(), console=shown, transient=True) as progress:
        task = progress.add_task("", total=total)
        started = [False]

        def step(text: str) -> None:
            progress.update(task, description=text, advance=1 if started[0] else 0)
            started[0] = True
            progress.refresh()  # drawn now: a step may take longer than the next redraw

        yield step
        progress.update(task, completed=total)
