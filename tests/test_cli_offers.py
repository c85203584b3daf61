"""The Primera Etapa commands, as the program office and a broker type them (SQLite)."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import polars as pl
from typer.testing import CliRunner

from democratiza.cli.main import app
from tests.helpers import CENTRAL_CREDIT_LINE
from tests.identifiers import leaks
from tests.test_statements import pdf_text
from tests.test_web_pages import text as page_text

SAMPLE = Path(__file__).parents[1] / "examples/primera-etapa"
runner = CliRunner()


def run(*args: str, db: str, ok: bool = True) -> str:
    result = runner.invoke(app, [*args, "--db", db], env={"COLUMNS": "200"})
    assert (result.exit_code == 0) == ok, result.output
    return result.output


def test_the_whole_flow_from_the_command_line(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'oferta.db'}"
    code = "central"
    run(
        "oferta",
        "crear",
        code,
        "--programa",
        "central-seguros-vida",
        "--oferta",
        str(SAMPLE / "oferta.yaml"),
        db=db,
    )
    out = run(
        "lote",
        "importar",
        code,
        str(SAMPLE / "lote-1-casa-de-bolsa.csv"),
        "--comisionista",
        "Casa de Bolsa",
        "--lote",
        "L1",
        db=db,
        ok=False,
    )
    assert "está borrador; no recibe aceptaciones" in out
    out = run("oferta", "abrir", code, db=db, ok=False)
    assert "No hay líneas de crédito registradas" in " ".join(out.split())
    run("credito", "registrar", code, *CENTRAL_CREDIT_LINE, db=db)
    out = run("credito", "lineas", code, db=db)
    assert "Las líneas de crédito permiten abrir la oferta." in out
    run("oferta", "abrir", code, db=db)
    out = run(
        "lote",
        "importar",
        code,
        str(SAMPLE / "lote-1-casa-de-bolsa.csv"),
        "--comisionista",
        "Casa de Bolsa",
        "--lote",
        "L1",
        "--salida",
        str(tmp_path / "salidas"),
        db=db,
    )
    assert "aceptaciones radicadas" in out
    # Each decision counted in agreement: '681 aceptadas', never 'aceptada: 681'.
    for line in ("  681 aceptadas\n", "  63 reducidas\n", "  6 rechazadas\n"):
        assert line in out, out
    # The broker gets every row's decision, explained, and the radicados assigned.
    folder = tmp_path / "salidas" / code / "lotes"
    report = pl.read_csv(folder / "casa-de-bolsa-l1-decisiones.csv", infer_schema=False)
    filed = pl.read_csv(SAMPLE / "lote-1-casa-de-bolsa.csv", infer_schema=False)
    assert report["referencia"].to_list() == filed["referencia"].to_list()
    reduced = report.filter(pl.col("decision") == "reducida")["explicacion"]
    assert reduced.len() > 0
    assert all("(Programa Central de Seguros de Vida (Primera Fase) " in text for text in reduced)
    assert pl.read_csv(folder / "casa-de-bolsa-l1-radicados.csv").height == filed.height
    out = run(
        "lote",
        "importar",
        code,
        str(SAMPLE / "lote-4-credicorp-capital-con-errores.csv"),
        "--comisionista",
        "Credicorp Capital",
        "--lote",
        "L1",
        db=db,
        ok=False,
    )
    assert "El lote tiene 3 errores; no se guardó nada" in out
    out = run(
        "oferta",
        "interrumpir",
        code,
        "--motivo",
        "suspensión ordenada",
        "--precio-nuevo",
        "1100.00",
        "--fundamento",
        "Ley 226 art. 11 num. 2",
        "--aceptaciones-anteriores",
        "conservan",
        "--fundamento-anteriores",
        "se respondieron al precio del aviso",
        db=db,
    )
    assert "conservan el precio al que se evaluaron" in " ".join(out.split())
    run("oferta", "cerrar", code, db=db)
    out = run("oferta", "adjudicar", code, "--fecha", "2018-03-01", db=db)
    assert "Huella del resultado" in out
    run("oferta", "publicar", code, db=db)
    out = run("oferta", "exportar", code, "--salida", str(tmp_path / "salidas"), db=db)
    folder = tmp_path / "salidas" / code
    assert (folder / "registro-adjudicatarios.csv").exists()
    assert (folder / "comisionistas" / "adjudicacion-casa-de-bolsa.xlsx").exists()
    assert (folder / "informe-adjudicacion.pdf").read_bytes().startswith(b"%PDF")
    # For a Colombian Excel: ';' between fields and a comma decimal, the same header and cells.
    run("oferta", "exportar", code, "--salida", str(tmp_path / "excel"), "--separador", ";", db=db)
    name = "comisionistas/adjudicacion-casa-de-bolsa.csv"
    with (folder / name).open(encoding="utf-8") as plain:
        dotted = list(csv.reader(plain))
    with (tmp_path / "excel" / code / name).open(encoding="utf-8") as excel:
        semicolon = list(csv.reader(excel, delimiter=";"))
    assert semicolon[0] == dotted[0] and "valor_a_pagar" in dotted[0]
    to_pay = dotted[0].index("valor_a_pagar")
    assert re.fullmatch(r"\d+,\d\d", semicolon[1][to_pay])
    decimal = re.compile(r"\d+\.\d+")
    assert semicolon[1:] == [
        [c.replace(".", ",") if decimal.fullmatch(c) else c for c in row] for row in dotted[1:]
    ]
    refused = run("oferta", "exportar", code, "--separador", "|", db=db, ok=False)
    assert "--separador: separador desconocido '|'" in refused
    out = run("oferta", "ver", code, db=db)
    for text in ("publicada", "suspensión ordenada", "cerrada → adjudicada"):
        assert text in out
    # The report and the offer's view name the program, its limits and its states by their
    # words; the brokers' files keep the codes their systems read (docs/formato-*.md).
    html = (folder / "informe-adjudicacion.html").read_text(encoding="utf-8")
    for shown in (
        page_text(html),
        pdf_text((folder / "informe-adjudicacion.pdf").read_bytes()),
        out,
    ):
        assert not leaks(shown), leaks(shown)

    # After the sale: a payment, the settlement, and an event on the sold shares.
    awarded = (
        pl.read_csv(folder / "comisionistas" / "adjudicacion-casa-de-bolsa.csv", infer_schema=False)
        .filter(
            pl.col("categoria").is_in(["trabajador_activo", "pensionado", "extrabajador"])
            & (pl.col("adjudicada").cast(pl.Int64) >= 100)
        )
        .row(0, named=True)
    )
    shares = int(awarded["adjudicada"])
    # The broker's file, as a later stage's: its own referencia, the price, the sum to pay.
    broker = pl.read_csv(
        folder / "comisionistas" / "adjudicacion-casa-de-bolsa.csv", infer_schema=False
    )
    assert broker.columns[:2] == ["radicado", "referencia"]
    assert broker["referencia"].str.starts_with("AC-").all()
    for row in broker.iter_rows(named=True):
        assert row["precio"] in {"1000.00", "1100.00"}  # before and after the interruption
        paid = int(row["adjudicada"]) * int(row["precio"].removesuffix(".00"))
        assert row["valor_a_pagar"] == f"{paid}.00"
    run(
        "pago",
        "registrar",
        code,
        awarded["radicado"],
        "--monto",
        str(shares * 1000),
        "--fecha",
        "2018-03-10",
        db=db,
    )
    out = run("pago", "liquidar", code, "--fecha-enajenacion", "2018-03-20", db=db)
    assert f"Vendidas (pagadas): {shares:,} acciones".replace(",", ".") in out
    out = run(
        "tenencia",
        "evento",
        code,
        awarded["radicado"],
        "--tipo",
        "venta",
        "--fecha",
        "2000-01-01",
        "--acciones",
        "10",
        "--detalle",
        "fecha anterior a la venta",
        db=db,
    )
    assert "anterior a la fecha de adjudicación" in out
