"""``democratiza credito verificar`` and ``credito cuadro`` as the program office types them."""

from __future__ import annotations

import csv
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from democratiza.cli.main import app
from tests.helpers import CENTRAL_CREDIT_LINE

runner = CliRunner()
# GEB offers 1.836.235.403 shares at $ 2.018: 10 % of their value is $ 370.552.304.325,40.
LINE = [
    "credito",
    "verificar",
    "-p",
    "geb-2017",
    "--entidad",
    "Banco Ejemplo",
    "--monto-disponible",
    "400000000000",
    "--plazo-meses",
    "60",
    "--gracia-meses",
    "12",
    "--fecha-otorgamiento",
    "2018-04-10",
]


def test_a_line_that_meets_every_condition() -> None:
    result = runner.invoke(app, [*LINE, "--tasa-ea", "20.48"], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert result.output.count("✓") == 5
    assert "Decreto 706/2017 art. 7.1: cumple. 60 meses ≥ 60 meses" in result.output


def test_a_rate_above_the_ibc_of_the_grant_date_fails_alone() -> None:
    # IBC of April 2018: 20,48 % EA (fuentes.md §5); 20,49 % is above it.
    result = runner.invoke(app, [*LINE, "--tasa-ea", "20.49"], env={"COLUMNS": "300"})
    assert result.exit_code == 1
    assert result.output.count("✗") == 1
    assert "✗ Banco Ejemplo — Decreto 706/2017 art. 7.3: no cumple" in result.output


def test_a_parameter_not_written_as_name_equals_value_is_refused_in_words() -> None:
    arguments = [*LINE, "--tasa-ea", "20.48", "--parametro", "precio2018"]
    result = runner.invoke(app, arguments, env={"COLUMNS": "300"})
    assert result.exit_code == 1
    assert "'precio2018' debe tener la forma NOMBRE=VALOR" in result.output


def test_schedule_files_and_collateral(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "credito",
            "cuadro",
            "--monto",
            "10000000",
            "--tasa-ea",
            "18",
            "--plazo-meses",
            "60",
            "--gracia-meses",
            "12",
            "--desembolso",
            "2018-03-15",
            "--acciones",
            "5000",
            "--precio",
            "2018",
            "--salida",
            str(tmp_path),
        ],
        env={"COLUMNS": "300"},
    )
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader((tmp_path / "cuadro-amortizacion.csv").open(encoding="utf-8")))
    # 60 months and the totals: capital repaid = $ 10.000.000 + the capitalised interest.
    *months, totals = rows
    assert len(months) == 60 and months[-1]["saldo_final"] == totals["saldo_final"] == "0.00"
    assert Decimal(totals["abono_capital"]) == Decimal("10000000") + Decimal(
        totals["intereses_capitalizados"]
    )
    assert "Totales: abono a capital $ " in result.output
    assert (tmp_path / "cuadro-amortizacion.pdf").read_bytes().startswith(b"%PDF")
    assert "5.000 acciones × $ 2.018 (precio fijo) = $ 10.090.000" in result.output


@pytest.mark.parametrize("day", ["2018-13-01", "2018-02-30", "15/03/2018"])
def test_a_bad_disbursement_date_is_refused_in_spanish(tmp_path: Path, day: str) -> None:
    arguments = ["credito", "cuadro", "--monto", "10000000", "--tasa-ea", "18"]
    arguments += ["--plazo-meses", "60", "--gracia-meses", "0", "--desembolso", day]
    result = runner.invoke(app, [*arguments, "--salida", str(tmp_path)], env={"COLUMNS": "300"})
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert f"--desembolso: '{day}' debe ser una fecha AAAA-MM-DD." in result.output
    assert "month must be" not in result.output and "Invalid isoformat" not in result.output


def test_a_registered_line_is_told_by_its_lender_and_date_never_its_row(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'oferta.db'}"
    offer = Path(__file__).parents[1] / "examples/primera-etapa/oferta.yaml"
    created = runner.invoke(
        app, ["oferta", "crear", "central", "-p", "central-seguros-vida", "--oferta", str(offer),
              "--db", db],
    )  # fmt: skip
    assert created.exit_code == 0, created.output
    result = runner.invoke(
        app, ["credito", "registrar", "central", *CENTRAL_CREDIT_LINE, "--db", db],
        env={"COLUMNS": "300"},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.output.startswith(
        "Línea de crédito de Banco Ejemplo, otorgada el 2017-06-15, registrada en la oferta "
        "'central': $ 4.000.000.000 disponibles."
    ), result.output
    assert "Línea de crédito 1" not in result.output


def test_a_line_whose_date_has_no_rate_names_how_to_load_the_series(tmp_path: Path) -> None:
    """Granted on 2016-06-15, where the shipped IBC points have a gap: the opening names the
    period and both ways to load the official series; loaded once with ``credito
    serie-ibc``, the opening reads it (22,33 % is above the 20,54 % of 2016-T2)."""
    db = f"sqlite:///{tmp_path / 'oferta.db'}"
    offer = Path(__file__).parents[1] / "examples/primera-etapa/oferta.yaml"
    created = runner.invoke(
        app, ["oferta", "crear", "central", "-p", "central-seguros-vida", "--oferta", str(offer),
              "--db", db],
    )  # fmt: skip
    assert created.exit_code == 0, created.output
    in_a_gap = [*CENTRAL_CREDIT_LINE[:-1], "2016-06-15"]
    registered = runner.invoke(app, ["credito", "registrar", "central", *in_a_gap, "--db", db])
    assert registered.exit_code == 0, registered.output
    wide = {"COLUMNS": "400"}
    refused = runner.invoke(app, ["oferta", "abrir", "central", "--db", db], env=wide)
    said = " ".join(refused.output.split())
    assert refused.exit_code == 1
    assert "Falta el interés bancario corriente del periodo 2016-T2" in said
    assert "'democratiza credito serie-ibc ARCHIVO.csv'" in said and "'--serie-ibc" in said
    series = tmp_path / "ibc.csv"
    series.write_text(
        "desde,hasta,tasa_ea,fuente\n"
        "2016-04-01,2016-06-30,20.54,Superintendencia Financiera\n"
        "2016-07-01,2016-09-30,21.34,Superintendencia Financiera\n",
        encoding="utf-8",
    )
    loaded = runner.invoke(app, ["credito", "serie-ibc", str(series), "--db", db], env=wide)
    assert loaded.exit_code == 0, loaded.output
    assert "2 periodos, del 2016-04-01 al 2016-09-30" in loaded.output
    lines = runner.invoke(app, ["credito", "lineas", "central", "--db", db], env=wide)
    assert "Falta el interés" not in lines.output
    assert "no cumple" in lines.output and "20,54 %" in lines.output


def test_a_line_is_listed_corrected_and_removed_by_its_number(tmp_path: Path) -> None:
    """The line granted in a gap is listed (numbered 1) even though it cannot be checked,
    corrected to a date with a certified rate, then removed with its reason."""
    db = f"sqlite:///{tmp_path / 'oferta.db'}"
    offer = Path(__file__).parents[1] / "examples/primera-etapa/oferta.yaml"
    created = runner.invoke(
        app, ["oferta", "crear", "central", "-p", "central-seguros-vida", "--oferta", str(offer),
              "--db", db],
    )  # fmt: skip
    assert created.exit_code == 0, created.output
    in_a_gap = [*CENTRAL_CREDIT_LINE[:-1], "2016-06-15"]
    assert (
        runner.invoke(app, ["credito", "registrar", "central", *in_a_gap, "--db", db]).exit_code
        == 0
    )
    wide = {"COLUMNS": "400"}
    listed = runner.invoke(app, ["credito", "lineas", "central", "--db", db], env=wide)
    assert listed.exit_code == 1
    row = next(line for line in listed.output.splitlines() if "Banco Ejemplo" in line)
    assert row.split()[1] == "1" and "2016-06-15" in row
    assert "Falta el interés bancario corriente del periodo 2016-T2" in " ".join(
        listed.output.split()
    )
    corrected = runner.invoke(
        app, ["credito", "corregir", "central", "1", *CENTRAL_CREDIT_LINE, "--db", db], env=wide
    )
    assert corrected.exit_code == 0, corrected.output
    assert "otorgada el 2017-06-15" in corrected.output
    again = runner.invoke(app, ["credito", "lineas", "central", "--db", db], env=wide)
    assert (
        again.exit_code == 0 and "Las líneas de crédito permiten abrir la oferta." in again.output
    )
    removed = runner.invoke(
        app, ["credito", "retirar", "central", "1", "--motivo", "duplicada", "--db", db]
    )
    assert removed.exit_code == 0, removed.output
    missing = runner.invoke(
        app, ["credito", "retirar", "central", "1", "--motivo", "otra", "--db", db], env=wide
    )
    assert missing.exit_code == 1
    assert "no tiene una línea de crédito 1" in missing.output
