"""Every column of every CSV the system writes is described in ``docs/formatos.md``, and the
titles in words of the XLSX there are the ones the workbooks carry.

The headers are taken from the writers themselves (their column lists, or a frame they
build), so a column added to a file without its line in the data dictionary fails here.
"""

from __future__ import annotations

import re
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import polars as pl

from democratiza.adjudication.record import RESULT_COLUMNS, Adjudication
from democratiza.filing.store import ANSWER_COLUMNS
from democratiza.money import EXACT_CENTAVOS
from democratiza.programs.loader import load_program
from democratiza.programs.parameters import make_offer
from democratiza.reports import instalment_plans, loan_schedule, stage_report
from democratiza.reports.columns import TITLES
from democratiza.reports.decisions import export_columns, short_columns
from democratiza.reports.design_comparison import comparison_csv
from democratiza.reports.exports import REGISTRY_COLUMNS, broker_frame
from democratiza.reports.fine_statement import FINE_CSV_COLUMNS
from democratiza.rules.engine import CompiledProgram
from democratiza.stages.orders import DECISION_COLUMNS
from democratiza.verification.package import FIRST_STAGE, LATER_STAGE
from democratiza.verification.recompute import NEEDS
from democratiza.web.api.views import ACCEPTANCE_FIELDS

DOC = Path(__file__).parents[1] / "docs" / "formatos.md"
LIMIT_PATTERN = "limite__<límite>"  # one column per limit of the program


def documented() -> set[str]:
    """Every column name in the first cell of a table row (a cell may name several)."""
    names: set[str] = set()
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("| `"):
            first = line.split("|")[1]
            names.update(re.findall(r"`([^`]+)`", first))
    return names


def xlsx_titles() -> dict[str, str]:
    """The table under '## Los títulos de los XLSX': column → title."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Los títulos de los XLSX", 1)[1]
    rows = re.findall(r"^\| `([^`]+)` \| (.+?) \|$", section, flags=re.MULTILINE)
    return dict(rows)


def broker_header() -> list[str]:
    """The header of a broker's Primera Etapa file, from the frame its writer builds."""
    results = pl.DataFrame(
        {
            "radicado": ["CLYF-000001-0000001"],
            "comisionista": ["Casa de Bolsa"],
            "tipo_identificacion": ["CC"],
            "numero_identificacion": ["10013524"],
            "nombre": ["Rosa Torres Aguilar"],
            "categoria": ["trabajador_activo"],
            "fecha_radicacion": [datetime(2018, 2, 7, 13, 46, 59)],
            "cantidad": [96_713],
            "cantidad_permitida": [96_712],
            "decision": ["reducida"],
            "regla_limitante": ["central-a.2(i)"],
            "cantidad_persona": [96_712],
            "consumido_por": pl.Series([None], dtype=pl.String),
            "adjudicada": [23_090],
        }
    ).select(RESULT_COLUMNS)
    terms = pl.DataFrame(
        {
            "radicado": ["CLYF-000001-0000001"],
            "referencia": ["AC-0000017"],
            "precio": pl.Series([Decimal(100_000)], dtype=EXACT_CENTAVOS),
        }
    )
    frame = broker_frame(Adjudication("central", {}, results), terms)
    assert frame["valor_a_pagar"].to_list() == [Decimal("23090000.00")]
    return frame.drop("comisionista").columns


def decisions_headers() -> list[str]:
    compiled = CompiledProgram(make_offer(load_program("geb-2017")))
    limits = [r for r in export_columns(compiled) if r.startswith("limite__")]
    assert limits, "geb-2017 has limits, one column each"
    fixed = [c for c in export_columns(compiled) + short_columns(compiled) if c not in limits]
    return [*fixed, LIMIT_PATTERN]


def every_header() -> dict[str, list[str]]:
    """File → its columns, as the writers write them."""
    return {
        "decisiones": decisions_headers(),
        "radicados de un lote": ANSWER_COLUMNS,
        "radicados de órdenes": DECISION_COLUMNS,
        "adjudicación por comisionista": broker_header(),
        "adjudicación de la oferta": RESULT_COLUMNS,
        "registro": REGISTRY_COLUMNS,
        "asignación por comisionista": ["comisionista", *stage_report.BROKER_COLUMNS],
        "aceptaciones": ACCEPTANCE_FIELDS,
        "plan de cuotas": instalment_plans.COLUMNS,
        "multa": list(FINE_CSV_COLUMNS),
        "cuadro de amortización": list(loan_schedule.CSV_COLUMNS),
        "comparación de diseños": comparison_csv([]).decode().splitlines()[0].split(","),
        "paquete, Primera Etapa": list(NEEDS[FIRST_STAGE][1]),
        "paquete, etapa siguiente": list(NEEDS[LATER_STAGE][1]),
    }


def test_every_column_written_is_in_the_data_dictionary() -> None:
    known = documented()
    missing = {
        name: [c for c in columns if c not in known]
        for name, columns in every_header().items()
        if any(c not in known for c in columns)
    }
    assert not missing, f"columnas sin describir en docs/formatos.md: {missing}"


def test_the_data_dictionary_names_no_column_that_is_not_written() -> None:
    written = {c for columns in every_header().values() for c in columns} | {"<diseño>"}
    assert documented() - written == set()


def test_the_xlsx_titles_in_the_dictionary_are_the_workbooks_own() -> None:
    assert xlsx_titles() == TITLES


def test_every_column_of_a_brokers_workbook_has_its_title() -> None:
    for columns in (broker_header(), stage_report.BROKER_COLUMNS):
        assert [c for c in columns if c not in TITLES] == []
