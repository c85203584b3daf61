"""Every file written for people goes through ``tables.cells``, so no export can carry a
live formula: a CSV written any other way is found here. The exceptions are files no
spreadsheet opens as an export, each with its reason."""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).parents[1] / "src" / "democratiza"
NOT_EXPORTS = {
    "tables/cells.py": "the one place itself",
    "storage/bulk.py": "rows sent to PostgreSQL's COPY, not a file",
    "storage/records.py": "the bytes a record's SHA-256 is taken of",
    "verification/package.py": "pseudonyms and codes only; verifiers recompute its bytes",
}
WRITERS = re.compile(r"\.write_csv\(|csv\.writer\(|csv\.DictWriter\(|\.to_csv\(")


def test_no_module_writes_a_csv_but_through_the_one_place() -> None:
    found = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if WRITERS.search(path.read_text(encoding="utf-8"))
    )
    assert [p for p in found if p not in NOT_EXPORTS] == []
    assert set(NOT_EXPORTS) <= set(found), "an exception no longer needed: take it out"
