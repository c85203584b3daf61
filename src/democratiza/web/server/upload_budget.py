"""The bytes all anonymous uploads may hold at once, on one machine.

Why: anyone may post a package to the public verifier, and each upload is held (in memory,
then in a temporary file) while it is read; ten connections with no cookie once held
950 MB of the temporary folder. Each upload reserves its declared length (or, with no
length, the most its route reads) before a byte of it is read, and gives it back when
its answer is sent; an upload that does not fit gets 503 in Spanish, unread.

Here the count is the process's own (SQLite: one machine, and the service in one process
unless told otherwise); on PostgreSQL every process of a machine counts in the database
(``shared_budget``), so that several processes do not hold that many budgets in the
machine's one temporary folder.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Protocol

MIB = 1024 * 1024
ANONYMOUS_BYTES = 192 * MIB  # two of the largest bodies the verifier reads, at once


@dataclass(frozen=True)
class Hold:
    """Bytes an upload holds until its answer is sent (``number``: its stored reservation)."""

    size: int
    number: int | None = None


class UploadBudget(Protocol):
    total: int

    def reserve(self, size: int) -> Hold | None:
        """Hold ``size`` bytes if they fit in what is left (``None``, holding nothing, if not)."""

    def release(self, hold: Hold) -> None: ...


class ByteBudget:
    """The budget of one process, in its memory."""

    def __init__(self, total: int = ANONYMOUS_BYTES) -> None:
        self.total = total
        self.held = 0
        self._lock = threading.Lock()

    def reserve(self, size: int) -> Hold | None:
        with self._lock:
            if self.held + size > self.total:
                return None
            self.held += size
            return Hold(size)

    def release(self, hold: Hold) -> None:
        with self._lock:
            self.held = max(0, self.held - hold.size)


BUSY_TEXT = (
    "el servicio está recibiendo demasiados paquetes a la vez; intente de nuevo en un momento"
)


def declared_size(headers: dict[str, str], most: int) -> int:
    """What an upload will hold: its declared length, or ``most`` when it declares none."""
    length = headers.get("content-length", "")
    return min(int(length), most) if length.isdigit() else most
