"""A long command's progress: shown on a terminal's stderr, never written into a file or pipe."""

from __future__ import annotations

from io import StringIO

from rich.console import Console

from democratiza.cli.progress import steps


def test_on_a_terminal_each_step_is_shown_and_counted() -> None:
    screen = StringIO()
    with steps(2, Console(file=screen, force_terminal=True, width=100)) as step:
        step("Archivos por comisionista")
        step("Informe PDF")
    shown = screen.getvalue()
    assert "Archivos por comisionista" in shown and "Informe PDF" in shown
    assert "2/2" in shown


def test_into_a_file_nothing_is_drawn() -> None:
    written = StringIO()
    with steps(2, Console(file=written, force_terminal=False)) as step:
        step("Archivos por comisionista")
    assert written.getvalue() == ""
