"""The fine statement and the loan schedule as CSV and PDF (``reports.fine_statement``,
``reports.fine_statement_pdf``, ``reports.loan_schedule``).

The worked example is the one of ``test_cli_fines``: GEB (Decreto 706/2017 art. 11), 10.000
shares sold on 2018-04-02, a breach on 2019-01-15 (75 % band, art. 11.1(b)), the base
$ 2.500 obtained (art. 11(b)), default interest at the usura of January and February 2019
(1,5 × the IBC of fuentes.md §5) and a payment of $ 1.000.000 on 2019-02-10 that covers the
interest and part of the fine (art. 11.1).
"""

from __future__ import annotations

import csv
import io
import re
import zlib
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from democratiza.calendar import add_months
from democratiza.compliance.credit.schedule import amortization_schedule
from democratiza.compliance.fines.account import Payment, Statement
from democratiza.compliance.fines.amount import fine_amount
from democratiza.compliance.fines.bands import band_for
from democratiza.compliance.fines.case import fine_statement
from democratiza.compliance.fines.terms import FineTerms, fine_base
from democratiza.compliance.series import (
    MaxLegalRate,
    RateSeries,
    parse_rates,
    shipped_cpi,
    shipped_max_rate,
)
from democratiza.programs.loader import load_program
from democratiza.reports.fine_statement import (
    FINE_CSV_COLUMNS,
    fine_statement_csv,
    write_fine_statement,
)
from democratiza.reports.fine_statement_pdf import fine_statement_pdf
from democratiza.reports.loan_schedule import schedule_csv_with_totals, write_schedule
from democratiza.reports.render.files import atomic_write

GEB = FineTerms.from_program(load_program("geb-2017"))
CENTRAL = FineTerms.from_program(load_program("central-seguros-vida"))


def geb_statement(
    until: date = date(2019, 2, 20),
    payments: tuple[Payment, ...] = (Payment(date(2019, 2, 10), 100_000_000),),
    rates: MaxLegalRate | None = None,
    sale: date = date(2018, 4, 2),
    breach: date = date(2019, 1, 15),
) -> Statement:
    base = fine_base(
        GEB,
        {"precio_adquisicion": 201_800, "contraprestacion": 250_000, "precio_segunda_etapa": None},
    )
    band = band_for(sale, breach, GEB.bands, GEB.reference_label)
    return fine_statement(
        GEB,
        fine_amount(10_000, base, band),
        until,
        payments,
        cpi=shipped_cpi(),
        rates=rates or shipped_max_rate(),
    )


# --- PDF text, without a PDF library ------------------------------------------------------

STREAM = re.compile(rb"stream\r?\n(.*?)\r?\nendstream", re.S)
STRING = re.compile(rb"\((?:\\.|[^\\()])*\)", re.S)
ESCAPES = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f"}


def _unescape(raw: bytes) -> bytes:
    out = bytearray()
    i = 0
    while i < len(raw):
        if raw[i : i + 1] != b"\\":
            out += raw[i : i + 1]
            i += 1
            continue
        octal = re.match(rb"[0-7]{1,3}", raw[i + 1 : i + 4])
        if octal:
            out.append(int(octal.group(0), 8))
            i += 1 + len(octal.group(0))
        else:
            out += ESCAPES.get(raw[i + 1 : i + 2], raw[i + 1 : i + 2])
            i += 2
    return bytes(out)


def pdf_text(data: bytes) -> str:
    """The text matplotlib writes with ``pdf.fonttype`` 42: each text object's strings, in
    UTF-16BE, one line per object. Characters above U+00FF (•, −) and ligatures (fi) are
    drawn otherwise and do not show here, so the checks look for Latin-1 text only."""
    lines = []
    for stream in STREAM.finditer(data):
        try:
            content = zlib.decompress(stream.group(1))
        except zlib.error:
            continue  # fonts and images
        for block in re.findall(rb"BT(.*?)ET", content, re.S):
            parts = [_unescape(s[1:-1]) for s in STRING.findall(block)]
            if parts:
                lines.append(b"".join(parts).decode("utf-16-be"))
    return "\n".join(lines)


def page_count(data: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page\b(?!s)", data))


# --- the fine statement as CSV ------------------------------------------------------------

EXPECTED_STEPS: list[dict[str, str]] = [
    {
        "paso": "1",
        "tipo": "base",
        "concepto": (
            "precio de adquisición por acción (Precio de adquisición por "
            "acción): menor que la elegida"
        ),
        "norma": "Decreto 706/2017 art. 11(a)",
        "valor_por_accion": "2018.00",
    },
    {
        "paso": "2",
        "tipo": "base",
        "concepto": (
            "precio u otra contraprestación obtenida por acción (Precio u otra "
            "contraprestación obtenida por la transferencia): elegida: la mayor "
            "(Decreto 706/2017 art. 11)"
        ),
        "norma": "Decreto 706/2017 art. 11(b)",
        "valor_por_accion": "2500.00",
    },
    {
        "paso": "3",
        "tipo": "base",
        "concepto": (
            "precio por acción del vendedor en la Segunda Etapa (Precio por "
            "acción que reciba el Distrito en la Segunda Etapa): sin valor "
            "conocido, no se compara"
        ),
        "norma": "Decreto 706/2017 art. 11(c)",
    },
    {
        "paso": "4",
        "tipo": "tramo",
        "fecha": "2019-01-15",
        "concepto": (
            "El incumplimiento del 2019-01-15 cae entre los 6 meses y un día y "
            "los 12 meses siguientes a la fecha de enajenación (del 2018-10-03 "
            "al 2019-04-02): 75 %."
        ),
        "norma": "Decreto 706/2017 art. 11.1(b)",
        "porcentaje": "75",
    },
    {
        "paso": "5",
        "tipo": "multa",
        "fecha": "2019-01-15",
        "concepto": (
            "Multa por incumplimiento: 10.000 acciones × $ 2.500 (precio u otra "
            "contraprestación obtenida por acción) × 75 % = $ 18.750.000 (tramo "
            "del 75 %, fecha de enajenación 2018-04-02)"
        ),
        "norma": "Decreto 706/2017 art. 11(b); Decreto 706/2017 art. 11.1(b)",
        "valor_por_accion": "2500.00",
        "porcentaje": "75",
        "intereses": "0.00",
        "ajuste": "0.00",
        "pago": "0.00",
        "aplicado_intereses": "0.00",
        "aplicado_multa": "0.00",
        "excedente": "0.00",
        "saldo_intereses": "0.00",
        "saldo_multa": "18750000.00",
        "saldo_total": "18750000.00",
    },
    {
        "paso": "6",
        "tipo": "intereses",
        "fecha": "2019-01-31",
        "concepto": (
            "Intereses de mora del 2019-01-15 al 2019-01-31; usura del periodo "
            "2019-01 (2019-01-01 a 2019-01-31): 28,74 % EA, 1,5 × interés "
            "bancario corriente (Código de Comercio art. 884), con interés "
            "bancario corriente de 19,16 %"
        ),
        "norma": "Decreto 706/2017 art. 11.1",
        "dias": "17",
        "tasa_pct": "28.740",
        "conversion": "(1 + 28,74 %)^(17/365) − 1",
        "tasa_periodo": "0.011835573632",
        "intereses": "221917.01",
        "ajuste": "0.00",
        "pago": "0.00",
        "aplicado_intereses": "0.00",
        "aplicado_multa": "0.00",
        "excedente": "0.00",
        "saldo_intereses": "221917.01",
        "saldo_multa": "18750000.00",
        "saldo_total": "18971917.01",
    },
    {
        "paso": "7",
        "tipo": "intereses",
        "fecha": "2019-02-09",
        "concepto": (
            "Intereses de mora del 2019-02-01 al 2019-02-09; usura del periodo "
            "2019-02 (2019-02-01 a 2019-02-28): 29,55 % EA, 1,5 × interés "
            "bancario corriente (Código de Comercio art. 884), con interés "
            "bancario corriente de 19,70 %"
        ),
        "norma": "Decreto 706/2017 art. 11.1",
        "dias": "9",
        "tasa_pct": "29.550",
        "conversion": "(1 + 29,55 %)^(9/365) − 1",
        "tasa_periodo": "0.006404174355",
        "intereses": "120078.27",
        "ajuste": "0.00",
        "pago": "0.00",
        "aplicado_intereses": "0.00",
        "aplicado_multa": "0.00",
        "excedente": "0.00",
        "saldo_intereses": "341995.28",
        "saldo_multa": "18750000.00",
        "saldo_total": "19091995.28",
    },
    {
        "paso": "8",
        "tipo": "pago",
        "fecha": "2019-02-10",
        "concepto": (
            "Pago de $ 1.000.000: primero $ 341.995,28 a los intereses "
            "causados, luego $ 658.004,72 a la multa"
        ),
        "norma": "Decreto 706/2017 art. 11.1",
        "intereses": "0.00",
        "ajuste": "0.00",
        "pago": "1000000.00",
        "aplicado_intereses": "341995.28",
        "aplicado_multa": "658004.72",
        "excedente": "0.00",
        "saldo_intereses": "0.00",
        "saldo_multa": "18091995.28",
        "saldo_total": "18091995.28",
    },
    {
        "paso": "9",
        "tipo": "intereses",
        "fecha": "2019-02-19",
        "concepto": (
            "Intereses de mora del 2019-02-10 al 2019-02-19; usura del periodo "
            "2019-02 (2019-02-01 a 2019-02-28): 29,55 % EA, 1,5 × interés "
            "bancario corriente (Código de Comercio art. 884), con interés "
            "bancario corriente de 19,70 %"
        ),
        "norma": "Decreto 706/2017 art. 11.1",
        "dias": "10",
        "tasa_pct": "29.550",
        "conversion": "(1 + 29,55 %)^(10/365) − 1",
        "tasa_periodo": "0.007118276189",
        "intereses": "128783.82",
        "ajuste": "0.00",
        "pago": "0.00",
        "aplicado_intereses": "0.00",
        "aplicado_multa": "0.00",
        "excedente": "0.00",
        "saldo_intereses": "128783.82",
        "saldo_multa": "18091995.28",
        "saldo_total": "18220779.10",
    },
    {
        "paso": "10",
        "tipo": "saldo",
        "fecha": "2019-02-20",
        "concepto": "Saldo a pagar el 2019-02-20",
        "saldo_intereses": "128783.82",
        "saldo_multa": "18091995.28",
        "saldo_total": "18220779.10",
    },
]


def test_fine_statement_csv_worked_example_exactly() -> None:
    statement = geb_statement()
    text = fine_statement_csv(statement, GEB)
    first = len(EXPECTED_STEPS) + 1
    trailing = [{"tipo": "lectura", "concepto": note} for note in statement.notes] + [
        {"tipo": "fuente", "concepto": source} for source in statement.sources
    ]
    expected = io.StringIO()
    writer = csv.DictWriter(expected, FINE_CSV_COLUMNS, lineterminator="\n", restval="")
    writer.writeheader()
    writer.writerows(EXPECTED_STEPS)
    writer.writerows(
        {"paso": str(number), **row} for number, row in enumerate(trailing, start=first)
    )
    assert text == expected.getvalue()
    assert len(trailing) == 7  # six readings (GEB art. 11 and 11.1) and one source


def test_fine_statement_csv_reconciles_to_the_centavo() -> None:
    rows = list(csv.DictReader(io.StringIO(fine_statement_csv(geb_statement(), GEB))))
    steps = [r for r in rows if r["tipo"] in ("multa", "intereses", "ajuste_ipc", "pago")]
    closing = next(r for r in rows if r["tipo"] == "saldo")

    def total(column: str) -> Decimal:
        return sum((Decimal(r[column]) for r in steps), Decimal(0))

    fine = Decimal(steps[0]["saldo_multa"])
    assert Decimal(closing["saldo_intereses"]) == total("intereses") - total("aplicado_intereses")
    assert Decimal(closing["saldo_multa"]) == fine + total("ajuste") - total("aplicado_multa")
    assert total("pago") == total("aplicado_intereses") + total("aplicado_multa")
    assert Decimal(closing["saldo_total"]) == Decimal("18220779.10")


def test_central_statement_cites_its_adjustment() -> None:
    # 1.000 × $ 1.500 × 100 %, adjusted at the usura of the payment day (January 2025).
    base = fine_base(
        CENTRAL,
        {"precio_adquisicion": 150_000, "contraprestacion": 150_000, "precio_segunda_etapa": None},
    )
    band = band_for(date(2023, 10, 15), date(2024, 1, 31), CENTRAL.bands, CENTRAL.reference_label)
    statement = fine_statement(
        CENTRAL,
        fine_amount(1_000, base, band),
        date(2025, 1, 30),
        [Payment(date(2025, 1, 30), 187_335_000)],
        rates=shipped_max_rate(),
    )
    rows = list(csv.DictReader(io.StringIO(fine_statement_csv(statement, CENTRAL))))
    bases = [r["concepto"].split("): ", 1)[1] for r in rows if r["tipo"] == "base"]
    # A tie goes to the first value the program lists.
    assert bases == [
        "elegida: la mayor (Programa Central de Seguros de Vida (Primera Fase) "
        "inc. «El incumplimiento…»)",
        "igual a la elegida; se toma la primera de la lista",
        "sin valor conocido, no se compara",
    ]
    adjustment = next(r for r in rows if r["tipo"] == "ajuste_tasa")
    citation = "Programa Central de Seguros de Vida (Primera Fase) inc. «El incumplimiento…»"
    assert (adjustment["norma"], adjustment["conversion"], adjustment["ajuste"]) == (
        citation,
        "(1 + 24,89 %)^(365/365) − 1",
        "373350.00",
    )
    payment = next(r for r in rows if r["tipo"] == "pago")
    assert (payment["norma"], payment["aplicado_multa"], payment["saldo_total"]) == (
        citation,
        "1873350.00",
        "0.00",
    )


# --- the fine statement as PDF ------------------------------------------------------------


def test_fine_statement_pdf_opens_and_shows_the_figures() -> None:
    statement = geb_statement()
    data = fine_statement_pdf(statement, GEB)
    assert data.startswith(b"%PDF") and data.rstrip().endswith(b"%%EOF")
    assert page_count(data) == 2  # the summary, then the account
    assert data == fine_statement_pdf(statement, GEB)  # deterministic
    text = pdf_text(data)
    for figure in (
        "Estado de cuenta de la multa",
        "Página 2 de 2",
        "Decreto 706/2017 art. 11(b)",  # the base chosen
        "Decreto 706/2017 art. 11.1(b)",  # the band
        "10.000 acciones × $ 2.500",
        "= $ 18.750.000",
        "(1 + 28,74 %)^(17/365)",
        "= 1,1835573632 %",
        "$ 221.917,01",
        "a intereses: $ 341.995,28",
        "a la multa: $ 658.004,72",
        "Saldo a pagar el 2019-02-20: $ 18.220.779,10",
    ):
        assert figure in text, figure


def monthly_usura(first: date, months: int) -> MaxLegalRate:
    """A usura series of one period a month, 25,00 % EA and up by 0,10 % a month."""
    lines = []
    for n in range(months):
        start = add_months(first, n)
        end = add_months(first, n + 1) - timedelta(days=1)
        lines.append(f"{start},{end},{Decimal('25.00') + Decimal(n) / 10},ejemplo")
    series = parse_rates(
        "desde,hasta,tasa_ea,fuente\n" + "\n".join(lines) + "\n",
        "ejemplo.csv",
        "usura",
        complete=True,
    )
    return MaxLegalRate(series, RateSeries("interes_bancario_corriente", "vacía", ()))


def test_a_long_statement_runs_over_several_pages() -> None:
    # Breach on 2019-06-15 (0 to 6 months after the sale, 100 %); a rate a month until
    # 2021-12-31, two 1 January adjustments by the CPI (art. 11) and two payments.
    statement = geb_statement(
        until=date(2021, 12, 31),
        payments=(Payment(date(2020, 3, 10), 50_000_000), Payment(date(2021, 5, 4), 70_000_000)),
        rates=monthly_usura(date(2019, 6, 1), 31),
        sale=date(2019, 2, 1),
        breach=date(2019, 6, 15),
    )
    data = fine_statement_pdf(statement, GEB)
    pages = page_count(data)
    assert pages >= 5
    text = pdf_text(data)
    assert f"Página {pages} de {pages}" in text
    assert all(f"{row.day:%Y-%m-%d}" in text for row in statement.rows)
    assert "IPC 3,80 %:" in text and "IPC 1,61 %:" in text  # CPI of 2019 and 2020 (DANE)
    assert text.count("Saldo a pagar el 2021-12-31") == 2  # page 1 and the account's end


# --- the loan schedule --------------------------------------------------------------------

SCHEDULE = amortization_schedule(100_000_000, Decimal("0.18"), 6, 2, True, date(2018, 1, 31))


def test_schedule_csv_with_totals_exactly() -> None:
    # Monthly rate (1,18)^(1/12) − 1 = 1,3888430348 %; two months of grace capitalised, then
    # four equal instalments of $ 265.977,03, the last one absorbing the rounding residue.
    assert schedule_csv_with_totals(SCHEDULE) == (
        "cuota,fecha,saldo_inicial,intereses,intereses_capitalizados,abono_capital,"
        "valor_cuota,saldo_final\n"
        "1,2018-02-28,1000000.00,13888.43,13888.43,0.00,0.00,1013888.43\n"
        "2,2018-03-31,1013888.43,14081.32,14081.32,0.00,0.00,1027969.75\n"
        "3,2018-04-30,1027969.75,14276.89,0.00,251700.14,265977.03,776269.61\n"
        "4,2018-05-31,776269.61,10781.17,0.00,255195.86,265977.03,521073.75\n"
        "5,2018-06-30,521073.75,7236.90,0.00,258740.13,265977.03,262333.62\n"
        "6,2018-07-31,262333.62,3643.40,0.00,262333.62,265977.02,0.00\n"
        "Total,,1000000.00,63908.11,27969.75,1027969.75,1063908.11,0.00\n"
    )


def test_schedule_totals_reconcile_to_the_centavo() -> None:
    schedule = amortization_schedule(
        1_234_567_891, Decimal("0.2048"), 60, 12, False, date(2018, 4, 10)
    )
    rows = list(csv.DictReader(io.StringIO(schedule_csv_with_totals(schedule))))
    *months, totals = rows
    assert totals["cuota"] == "Total" and len(months) == 60

    def cents(text: str) -> int:
        return int(Decimal(text) * 100)

    for column in ("intereses", "intereses_capitalizados", "abono_capital", "valor_cuota"):
        assert sum(cents(r[column]) for r in months) == cents(totals[column]), column
    assert cents(totals["abono_capital"]) == 1_234_567_891 + cents(
        totals["intereses_capitalizados"]
    )
    assert cents(totals["valor_cuota"]) == cents(totals["intereses"]) - cents(
        totals["intereses_capitalizados"]
    ) + cents(totals["abono_capital"])
    assert months[-1]["saldo_final"] == totals["saldo_final"] == "0.00"


def test_write_schedule_writes_both_files_and_no_temporary_one(tmp_path: Path) -> None:
    paths = write_schedule(SCHEDULE, tmp_path / "cuadro", "Línea de Banco Ejemplo")
    assert [p.name for p in paths] == ["cuadro-amortizacion.csv", "cuadro-amortizacion.pdf"]
    assert sorted(p.name for p in (tmp_path / "cuadro").iterdir()) == [p.name for p in paths]
    data = paths[1].read_bytes()
    assert data.startswith(b"%PDF") and page_count(data) == 1
    text = pdf_text(data)
    assert "Plan de amortización del crédito" in text
    assert "Totales: abono a capital $ 1.027.969,75 = monto $ 1.000.000,00" in text
    assert "$ 1.063.908,11" in text  # the instalments' total, in the table's last row


def test_write_fine_statement(tmp_path: Path) -> None:
    paths = write_fine_statement(geb_statement(), GEB, tmp_path)
    assert [p.name for p in paths] == ["estado-cuenta-multa.csv", "estado-cuenta-multa.pdf"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [p.name for p in paths]
    assert paths[0].read_text(encoding="utf-8").startswith("paso,tipo,fecha,concepto,norma,")


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path: Path) -> None:
    target = tmp_path / "estado-cuenta-multa.pdf"
    target.mkdir()  # renaming a file over a folder fails
    (target / "dentro").write_text("x", encoding="utf-8")
    with pytest.raises(OSError):
        atomic_write(target, b"%PDF-1.4")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["estado-cuenta-multa.pdf"]
    assert (target / "dentro").read_text(encoding="utf-8") == "x"
    existing = tmp_path / "otro.csv"
    existing.write_text("anterior", encoding="utf-8")
    atomic_write(existing, b"nuevo")
    assert existing.read_text(encoding="utf-8") == "nuevo"
