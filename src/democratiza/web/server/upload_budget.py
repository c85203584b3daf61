"""The bytes all anonymous uploads may hold at once, in one process.

Why: anyone may post a package to the public verifier, and each upload is held (in memory,
then in a temporary file) while it is read; ten connections with no cookie once held
950 MB of the temporary folder. Each upload reserves its declared length (or, with no
length, the most its route reads) before a byte of it is read, and gives it back when
its answer is sent; an upload that does not fit gets 503 in Spanish, unread.
"""

from __future__ import annotations

import threading

MIB = 1024 * 1024
ANONYMOUS_BYTES = 192 * MIB  # two of the largest bodies the verifier reads, at once


class ByteBudget:
    def __init__(self, total: int = ANONYMOUS_BYTES) -> None:
        self.total = total
        self.held = 0
        self._lock = threading.Lock()

    def reserve(self, size: int) -> bool:
        """Hold ``size`` bytes if they fit in what is left (``False``, holding nothing, if not)."""
        with self._lock:
            if self.held + size > self.total:
                return False
            self.held += size
            return True

    def release(self, size: int) -> None:
        with self._lock:
            self.held = max(0, self.held - size)


BUSY_TEXT = (
    "el servicio está recibiendo demasiados paquetes a la vez; intente de nuevo en un momento"
)


def declared_size(headers: dict[str, str], most: int) -> int:
    """What an upload will hold: its declared length, or ``most`` when it declares none."""
    length = headers.get("content-length", "")
    return min(int(length), most) if length.isdigit() else most
