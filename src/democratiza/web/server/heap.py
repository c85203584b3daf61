"""What the service holds from its start kept out of the garbage collector's full passes.

Why: a full pass of Python's collector looks at every object the process tracks, and a
started service holds some 270.000 that live as long as it does (the libraries' modules,
classes and functions, the application, its routes). Each full pass took 150-166 ms, in
which the process answered nothing: one view in five of a page of the office took 300 ms or
more (``benchmarks/bench_pages.py``), whatever the page. ``gc.freeze`` moves them to a
generation the collector never looks at (after a pass that frees what is already garbage,
so that nothing unreachable is kept for ever); objects made later are collected as always,
and a full pass then took 6 ms.
"""

from __future__ import annotations

import gc


def keep_started() -> None:
    """Free what is garbage now, then leave every object alive out of later full passes.

    Called once, when a process of the service has built its application."""
    gc.collect()
    gc.freeze()
