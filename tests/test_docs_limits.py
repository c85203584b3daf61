"""Every limit the service applies is in the table of `docs/web.md`, with the code's figure.

Worked example: the body of a request is bounded at ``middleware.MAX_BODY`` (1 MiB), and the
table's first row says «1 MiB» with the words the client gets past it; change the constant
and forget the table, and this test names the row that no longer tells the truth.
"""

from __future__ import annotations

from pathlib import Path

from democratiza.money import group
from democratiza.tables.format import MAX_TEXT
from democratiza.tables.limits import LIMITS
from democratiza.tables.readers import DEEPEST, JSON_TOO_DEEP
from democratiza.verification.archive import UPLOAD_BYTES, UPLOADED
from democratiza.web.api.uploads import MAX_UPLOAD
from democratiza.web.errors import MAX_ITEMS
from democratiza.web.pages.designer_input import MAX_DESIGNS, MAX_DESIGNS_FILE, MAX_POPULATION
from democratiza.web.pages.verifier import WAIT_SECONDS
from democratiza.web.security.lockout import FIRST_WAIT, FREE_FAILURES, LONGEST_WAIT
from democratiza.web.server.middleware import MAX_BODY
from democratiza.web.server.shared_budget import HOLD_SECONDS
from democratiza.web.server.slow_clients import BODY_SECONDS, HEADER_SECONDS, PER_ADDRESS
from democratiza.web.server.upload_budget import ANONYMOUS_BYTES, BUSY_TEXT, MIB

DOCS = Path(__file__).parent.parent / "docs" / "web.md"


def _rows() -> list[str]:
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("\n## Límites\n", 1)[1].split("\n### ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| ")]


def _row(starting: str) -> str:
    found = [row for row in _rows() if row.startswith(f"| {starting}")]
    assert len(found) == 1, f"docs/web.md no tiene una fila «{starting}…» en «Límites»"
    return found[0]


def test_each_limit_row_says_the_codes_figure() -> None:
    expected = {
        "cuerpo de una solicitud": [f"{MAX_BODY // MIB} MiB"],
        "un lote o un archivo de pagos": [f"{MAX_UPLOAD // MIB} MiB"],
        "el formulario del diseñador": [
            f"{MAX_UPLOAD // MIB} MiB",
            f"{MAX_DESIGNS_FILE // 1024} KiB",
            group(MAX_POPULATION),
        ],
        "un libro XLSX abierto": [
            f"{LIMITS.xlsx_expanded // MIB} MiB",
            f"{LIMITS.xlsx_ratio} veces",
        ],
        "filas de un archivo": [group(LIMITS.rows)],
        "tiempo para leer un XLSX": [f"{int(LIMITS.xlsx_seconds)} s"],
        "un texto en una celda": [f"{MAX_TEXT} caracteres", f"el máximo es {MAX_TEXT}"],
        "un archivo JSON de aceptaciones": [f"{DEEPEST} niveles", JSON_TOO_DEEP],
        "los errores que trae una respuesta": [f"{group(MAX_ITEMS)} filas"],
        "diseños que compara": [f"| {MAX_DESIGNS} |", f"a lo sumo {MAX_DESIGNS}»"],
        "un paquete subido a `/verificar`": [
            f"{UPLOAD_BYTES // MIB} MiB",
            f"{UPLOADED.unpacked_bytes // MIB} MiB sin comprimir",
            f"{UPLOADED.members} archivos",
            f"{2 * UPLOAD_BYTES // MIB} MiB",
        ],
        "paquetes que se verifican a la vez": [f"hasta {WAIT_SECONDS} s"],
        "paquetes que se reciben a la vez": [
            f"{ANONYMOUS_BYTES // MIB} MiB por máquina",
            f"{2 * UPLOAD_BYTES // MIB} MiB si no la declara",
            BUSY_TEXT,
        ],
        "los encabezados de una solicitud": [f"{int(HEADER_SECONDS)} s"],
        "el cuerpo de una solicitud, mientras": [f"cada {int(BODY_SECONDS)} s"],
        "conexiones abiertas a la vez": [f"{PER_ADDRESS} por proceso"],
        "contraseñas equivocadas": [
            f"{FREE_FAILURES - 1} sin espera",
            f"{int(FIRST_WAIT)} s",
            f"hasta {int(LONGEST_WAIT // 60)} min",
        ],
    }
    wrong = {
        start: [words for words in figures if words not in _row(start)]
        for start, figures in expected.items()
    }
    assert {start: words for start, words in wrong.items() if words} == {}


def test_the_reservation_that_outlives_its_process_is_documented_too() -> None:
    text = DOCS.read_text(encoding="utf-8")
    hours = HOLD_SECONDS // 3600
    assert f"ninguna dura más de {'una hora' if hours == 1 else f'{hours} horas'}" in text
