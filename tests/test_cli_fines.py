"""``democratiza multa calcular`` for GEB and Central de Seguros, as the program office types it."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from democratiza.cli.main import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["multa", "calcular", *args], env={"COLUMNS": "300"})
    return result.exit_code, result.output


def test_geb_fine_with_default_interest_and_a_partial_payment(tmp_path: Path) -> None:
    code, out = run(
        "-p",
        "geb-2017",
        "--fecha-referencia",
        "2018-04-02",
        "--fecha-incumplimiento",
        "2019-01-15",
        "--acciones",
        "10000",
        "--hasta",
        "2019-02-20",
        "--precio-adquisicion",
        "2018",
        "--contraprestacion",
        "2500",
        "--pago",
        "2019-02-10=1000000",
        "--salida",
        str(tmp_path / "multa"),
    )
    assert code == 0, out
    # 10.000 × $ 2.500 (the greater base) × 75 % (6 months and a day to 12 months, art. 11.1(b))
    assert "10.000 acciones × $ 2.500" in out and "= $ 18.750.000" in out
    assert "a intereses $ 341.995,28; a la multa $ 658.004,72" in out
    assert "Saldo a pagar el 2019-02-20: $ 18.220.779,10" in out
    # --salida is a folder: the statement as CSV and PDF (the contents: test_statements.py).
    csv_path = tmp_path / "multa" / "estado-cuenta-multa.csv"
    pdf_path = tmp_path / "multa" / "estado-cuenta-multa.pdf"
    assert f"Escrito: {csv_path}" in out and f"Escrito: {pdf_path}" in out
    closing = csv_path.read_text(encoding="utf-8").splitlines()[10]
    assert closing == "10,saldo,2019-02-20,Saldo a pagar el 2019-02-20" + "," * 14 + (
        "128783.82,18091995.28,18220779.10"
    )
    assert pdf_path.read_bytes().startswith(b"%PDF")


def test_a_missing_rate_period_stops_and_names_it() -> None:
    code, out = run(
        "-p",
        "geb-2017",
        "--fecha-referencia",
        "2018-04-02",
        "--fecha-incumplimiento",
        "2019-01-15",
        "--acciones",
        "10000",
        "--hasta",
        "2019-03-31",
        "--precio-adquisicion",
        "2018",
    )
    assert code == 1
    assert "del periodo 2019-03 (2019-03-01 a 2019-03-31)" in out
    assert "No se interpola" in out


def test_after_two_years_there_is_no_fine() -> None:
    code, out = run(
        "-p",
        "central-seguros-vida",
        "--fecha-referencia",
        "2004-03-01",
        "--fecha-incumplimiento",
        "2006-03-02",
        "--acciones",
        "100",
        "--hasta",
        "2006-04-01",
        "--precio-adquisicion",
        "1000",
    )
    assert code == 0, out
    # Central counts from the adjudication; the 24 months ended on 2006-03-01.
    assert "(terminaron el 2006-03-01): ningún tramo le asigna multa." in out
    assert "Estado de cuenta" not in out
