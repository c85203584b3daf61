"""The next piece of a file read and typed while the one before is evaluated and written.

Why: ``evaluar`` reads a large file in pieces, and each piece is read, typed, evaluated,
explained and written in turn. Reading and typing one piece while the one before is
evaluated keeps both of the machine's processors working where one would wait (Polars lets
go of Python's lock while it computes). The pieces still come in their order, each exactly
as it would alone, so the files written are the same bytes.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import Generic, TypeVar

T = TypeVar("T")

DEPTH = 1  # pieces made ahead: one, so that memory holds at most two pieces at a time


class _Failed:
    """The error that ended the items, to be raised where the next item was wanted."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


class _Ended:
    """No more items."""


class Ahead(Generic[T]):
    """``items`` made one ahead in a thread of their own, given in their order; an error
    that ends them is raised at the place of the item it prevented. Used as a context
    manager, so that a reader that stops early stops the thread too."""

    def __init__(self, items: Iterator[T], depth: int = DEPTH) -> None:
        self._items = items
        self._queue: queue.Queue[T | _Failed | _Ended] = queue.Queue(depth)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._make, name="pieza-siguiente", daemon=True)
        self._thread.start()

    def _make(self) -> None:
        try:
            for item in self._items:
                if not self._put(item):
                    return
        except BaseException as error:  # given to the reader, raised there
            self._put(_Failed(error))
            return
        finally:
            close = getattr(self._items, "close", None)
            if close is not None:
                close()  # a reader stopped early: the file the items come from is closed now
        self._put(_Ended())

    def _put(self, item: T | _Failed | _Ended) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def __iter__(self) -> Iterator[T]:
        while True:
            item = self._queue.get()
            if isinstance(item, _Ended):
                return
            if isinstance(item, _Failed):
                raise item.error
            yield item

    def __enter__(self) -> Ahead[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
