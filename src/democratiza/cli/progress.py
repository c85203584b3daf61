"""Progress for the commands a person waits on (``lote importar``, ``oferta exportar``): the
step under way and how many remain (steps, or a batch's rows), on stderr and only when
stderr is a terminal.

Why stderr and only a terminal: what a command prints on stdout is its answer, read by
scripts and by tests; a bar drawn into a file or a pipe would be noise in it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn

from democratiza.money import group
from democratiza.words import count


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


@contextmanager
def rows(console: Console | None = None) -> Iterator[Callable[[str, int, int], None] | None]:
    """Yield ``tell(step, done, total)``: the step under way ('Evaluando') and the rows it has
    done of its total, drawn as 'Evaluando: 40.000 de 200.000 filas' with a bar; a step with
    no total yet (reading the file) shows the spinner alone. Gone at the end. None when
    stderr is no terminal: nobody watches, and the import goes in one piece."""
    shown = console if console is not None else Console(stderr=True)
    if not shown.is_terminal:
        yield None
        return
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn())
    with Progress(*columns, console=shown, transient=True) as progress:
        task = progress.add_task("", total=None)

        def tell(step: str, done: int, total: int) -> None:
            described = f"{step}: {rows_done(done, total)}" if total else step
            progress.update(task, description=described, completed=done, total=total or None)
            progress.refresh()

        yield tell


def rows_done(done: int, total: int) -> str:
    """'40.000 de 200.000 filas', '1 de 1 fila'."""
    return f"{group(done)} de {count(total, 'fila', 'filas')}"
