"""Input errors as data: each names the file, the row and the column, in Spanish."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class InputError:
    file: str
    row: int | None  # as a person sees it: the header is row 1 in CSV and XLSX
    column: str | None
    message: str

    def __str__(self) -> str:
        where = [self.file]
        if self.row is not None:
            where.append(f"fila {self.row}")
        if self.column is not None:
            where.append(f"columna '{self.column}'")
        return f"{', '.join(where)}: {self.message}"


class InputRejected(Exception):
    """A file with errors: every error is reported and nothing is written for it."""

    def __init__(self, errors: list[InputError]) -> None:
        self.errors = sorted(errors, key=lambda e: (e.row or 0, e.column or "", e.message))
        super().__init__(f"{len(errors)} error(es) en la entrada")
