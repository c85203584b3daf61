"""The command line, end to end: the outputs people read, snapshot-tested."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from democratiza.cli.main import app

ROOT = Path(__file__).parents[1]
SAMPLE = ROOT / "examples/aceptaciones-geb-2017.csv"
OFFER = ROOT / "examples/oferta-geb-2017.yaml"
SNAPSHOT = ROOT / "tests/snapshots/decisiones-geb-2017.txt"
runner = CliRunner()


def test_evaluar_writes_decisions_and_summary(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "evaluar",
            "--programa",
            "geb-2017",
            str(SAMPLE),
            "--oferta",
            str(OFFER),
            "--salida",
            str(tmp_path),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    shown = " ".join(result.output.split())  # the summary's title wraps to the table
    assert "Resumen: Programa de democratización de acciones del Grupo Energía Bogotá" in shown
    assert "geb-2017" not in shown.split("Resumen:")[1].split("Decisión")[0]
    decisions = pl.read_csv(tmp_path / "decisiones-aceptaciones-geb-2017.csv")
    assert decisions.height == 22
    document = json.loads((tmp_path / "decisiones-aceptaciones-geb-2017.json").read_text("utf-8"))
    assert document["programa"] == "geb-2017"
    assert [d["referencia"] for d in document["decisiones"]] == decisions["referencia"].to_list()
    lines = [
        f"{r['referencia']} {r['decision']} {r['cantidad_permitida']}: {r['explicacion']}"
        + (f" | {r['causas_detalle']}" if r["causas_detalle"] else "")
        for r in decisions.iter_rows(named=True)
    ]
    # Snapshot of what a broker reads; regenerate deliberately if the wording changes.
    assert "\n".join(lines) + "\n" == SNAPSHOT.read_text(encoding="utf-8")


def test_evaluar_is_deterministic(tmp_path: Path) -> None:
    outputs = []
    for run in ("a", "b"):
        out = tmp_path / run
        result = runner.invoke(
            app,
            [
                "evaluar",
                "-p",
                "geb-2017",
                str(SAMPLE),
                "--oferta",
                str(OFFER),
                "-o",
                str(out),
                "--detalle",
                "--json",
            ],
        )
        assert result.exit_code == 0, result.output
        outputs.append([p.read_bytes() for p in sorted(out.iterdir())])
    assert len(outputs[0]) == 2
    assert outputs[0] == outputs[1]


def test_evaluar_with_a_semicolon_writes_the_same_decisions_for_excel(tmp_path: Path) -> None:
    base = ["evaluar", "-p", "geb-2017", str(SAMPLE), "--oferta", str(OFFER)]
    for folder, more in (("coma", []), ("excel", ["--separador", ";"])):
        result = runner.invoke(app, [*base, "-o", str(tmp_path / folder), *more])
        assert result.exit_code == 0, result.output
    name = "decisiones-aceptaciones-geb-2017.csv"
    plain = pl.read_csv(tmp_path / "coma" / name, infer_schema=False)
    excel = pl.read_csv(tmp_path / "excel" / name, separator=";", infer_schema=False)
    assert excel.equals(plain)  # the same header and cells, only the separator differs
    assert (tmp_path / "excel" / name).read_text("utf-8").startswith("fila;referencia;")
    wrong = runner.invoke(app, [*base, "-o", str(tmp_path / "x"), "--separador", "tab"])
    assert wrong.exit_code == 1
    assert "--separador: separador desconocido 'tab'" in wrong.output
    assert not (tmp_path / "x").exists()


def test_a_file_with_bad_rows_writes_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "malo.csv"
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3].replace("pensionado", "gerente", 1)
    lines[1] = lines[1].replace(",5000,", ",cinco mil,", 1)
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "salida"
    result = runner.invoke(
        app,
        ["evaluar", "-p", "geb-2017", str(bad), "--oferta", str(OFFER), "-o", str(out)],
        env={"COLUMNS": "400"},
    )
    assert result.exit_code == 1
    assert "El archivo tiene 2 errores; no se escribió nada" in result.output
    assert "fila 2, columna 'cantidad': la cantidad no es un número: 'cinco mil'" in result.output
    assert "fila 4, columna 'categoria': valor desconocido 'gerente'" in result.output
    assert not out.exists()


def test_missing_offer_parameter_is_named() -> None:
    result = runner.invoke(app, ["evaluar", "-p", "ebsa", str(SAMPLE)])
    assert result.exit_code == 1
    assert "Falta el parámetro de la oferta 'precio'" in result.output


def test_calcular_shows_every_limit_and_the_binding_one() -> None:
    result = runner.invoke(
        app,
        [
            "calcular",
            "-p",
            "geb-2017",
            "--categoria",
            "trabajador_activo",
            "--patrimonio-liquido",
            "48000000",
            "--ingresos",
            "60000000",
        ],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "Puede comprar hasta 23.785 acciones." in result.output
    binding = "Una vez el patrimonio líquido (Decreto 706/2017 art. 8.2.1)"
    assert f"Límite que determina el máximo: {binding}" in result.output
    assert "geb-8.2.1" not in result.output  # the limit by its name, never its id
    assert "5 × $ 60.000.000 (ingresos de la declaración) / $ 2.018 = 148.662 acciones" in (
        result.output
    )
    assert "tope de 3.184.458 acciones (Decreto 706/2017 art. 10.1)" in result.output


def test_calcular_interactive() -> None:
    answers = "trabajador_activo\n48000000\n60000000\nn\n"
    result = runner.invoke(
        app, ["calcular", "-p", "geb-2017"], input=answers, env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    assert "Puede comprar hasta 23.785 acciones." in result.output


@pytest.mark.parametrize("yes", ["s", "si", "sí", "SÍ"])
def test_calcular_interactive_takes_a_spanish_yes(yes: str) -> None:
    answers = f"trabajador_activo\n48000000\n60000000\ny\n{yes}\n100000000\n"
    result = runner.invoke(
        app, ["calcular", "-p", "geb-2017"], input=answers, env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    assert "Responda s (sí) o n (no)." in result.output  # 'y' is English: asked again
    assert "¿Ocupa un cargo directivo? [s/N]" in result.output
    assert "Remuneración anual certificada" in result.output  # the yes was taken


@pytest.mark.parametrize("option", ["--cantidad", "--acciones"])
def test_a_share_count_may_be_typed_with_thousands_dots(option: str, tmp_path: Path) -> None:
    if option == "--cantidad":
        base = ["calcular", "-p", "geb-2017", "--categoria", "pensionado"]
        base += ["--patrimonio-liquido", "48000000", "--ingresos", "60000000", "--cantidad"]
    else:  # the collateral of a loan schedule
        base = ["credito", "cuadro", "--monto", "10000000", "--tasa-ea", "18", "--plazo-meses"]
        base += ["60", "--gracia-meses", "0", "--desembolso", "2018-03-15", "--precio", "2018"]
        base += ["--salida", str(tmp_path), "--acciones"]
    dotted = runner.invoke(app, [*base, "20.000"], env={"COLUMNS": "200"})
    plain = runner.invoke(app, [*base, "20000"], env={"COLUMNS": "200"})
    assert dotted.exit_code == 0, dotted.output
    assert dotted.output == plain.output
    assert "20.000 acciones" in dotted.output
    wrong = runner.invoke(app, [*base, "20.00"], env={"COLUMNS": "200"})
    assert wrong.exit_code == 2
    assert "'20.00' no es un número entero de acciones (se escribe 40000000 o 40.000.000)" in (
        wrong.output
    )


def test_programa_shows_values_with_citations() -> None:
    result = runner.invoke(app, ["programa", "central-seguros-vida"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "367.800 acciones" in result.output
    assert "(lo fija la oferta)" in result.output
    assert "Disposiciones no modeladas" in result.output


def test_programas_lists_the_four() -> None:
    result = runner.invoke(app, ["programas"], env={"COLUMNS": "250"})
    assert all(
        p in result.output for p in ("geb-2017", "coltel-2018", "ebsa", "central-seguros-vida")
    )


def test_summary_counts_by_category_and_binding_limit(tmp_path: Path) -> None:
    from democratiza.reports.decisions import summarize

    runner.invoke(
        app,
        [
            "evaluar",
            "-p",
            "geb-2017",
            str(SAMPLE),
            "--oferta",
            str(OFFER),
            "-o",
            str(tmp_path),
            "--detalle",
        ],
    )
    results = pl.read_csv(tmp_path / "decisiones-aceptaciones-geb-2017.csv").with_columns(
        pl.col("decision").cast(pl.Enum(["aceptada", "reducida", "rechazada"]))
    )
    summary = summarize(results)
    workers = summary.by_category.filter(pl.col("categoria") == "trabajador_activo").row(0)
    assert workers == ("trabajador_activo", 3, 4, 4)
    assert summary.by_binding_limit.row(0) == ("geb-8.2.1", 3)


def test_calcular_for_a_closed_offer_takes_the_filing_date_the_person_gives() -> None:
    # The sample offer closed on 2018-02-26: filed today it is out of the window; filed on
    # 2018-01-15 (within it) the person may buy what their limits leave.
    asked = ["calcular", "-p", "geb-2017", "--oferta", str(OFFER)]
    asked += ["--categoria", "trabajador_activo", "--patrimonio-liquido", "48000000"]
    asked += ["--ingresos", "60000000"]
    today = runner.invoke(app, asked, env={"COLUMNS": "200"})
    assert "fuera del plazo de la oferta" in today.output
    dated = runner.invoke(app, [*asked, "--fecha", "2018-01-15"], env={"COLUMNS": "200"})
    assert dated.exit_code == 0, dated.output
    assert "Puede comprar hasta 23.785 acciones." in dated.output
    wrong = runner.invoke(app, [*asked, "--fecha", "15/01/2018"], env={"COLUMNS": "200"})
    assert wrong.exit_code != 0
    assert "se escribe AAAA-MM-DD" in wrong.output
