"""A decree's program written in the office's own folder, its texts beside it (issue 27).

The program is ``tests/programs/decreto-prueba/``: a test decree of the family (a text of
the project, not a norm) with a price of six decimals ($ 0,010176, as Granahorrar's), more
than 10¹³ shares offered, a cap of 0,3 % of the issuer's outstanding shares (ETB's words), a
Primera Etapa open to every Colombian natural person, and undertakings and fines the text
sends to a reglamento we do not have, declared not modelled. It is copied to a temporary
folder, so nothing of the package is edited, and run through the whole offer.
"""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from democratiza.cli.main import app
from democratiza.compliance.fines.terms import FineError, FineTerms
from democratiza.money import parse_price, price_text
from democratiza.programs.loader import ProgramFileError, load_program_file

FOLDER = Path(__file__).parent / "programs/decreto-prueba"
runner = CliRunner()

OFFER = "fecha_aviso: 2017-12-22\nfecha_cierre: 2018-02-26\n"
HEADER = (
    "referencia,comisionista,fecha_radicacion,tipo_identificacion,numero_identificacion,"
    "nombre,categoria,cantidad,forma_pago,extranjero,obligado_declarar,ingresos_declaracion,"
    "ingresos_certificado"
)
ROWS = [
    # Above 10¹³ shares, cut by 0,3 % of 70 billones outstanding; her income limit is above
    # 10¹⁵ shares and is written whole.
    "R1,Casa de Bolsa,2018-01-10T10:00:00,CC,1001,Ana Gómez,persona_natural,"
    "20000000000000,contado,no,si,3000000000000,",
    "R2,Casa de Bolsa,2018-01-11T10:00:00,CC,1002,Luis Pérez,trabajador_activo,"
    "1000000,contado,no,no,,60000000",
    # A foreigner in the category for Colombian natural persons.
    "R3,Casa de Bolsa,2018-01-12T10:00:00,CE,1003,John Smith,persona_natural,"
    "5000,contado,si,no,,50000000",
    # 3 × $ 0,010176 = $ 0,030528: pays $ 0,03.
    "R4,Casa de Bolsa,2018-01-13T10:00:00,CC,1004,Marta Ruiz,pensionado,3,contado,no,no,,1000000",
]
CREDIT_LINE = (
    "--entidad",
    "Banco Ejemplo",
    "--monto-disponible",
    "50.000.000.000",
    "--plazo-meses",
    "60",
    "--gracia-meses",
    "12",
    "--tasa-ea",
    "22.33",
    "--fecha-otorgamiento",
    "2017-06-15",
)


def office_folder(tmp_path: Path) -> Path:
    """The program, its decree and its sources, in a folder of the office's."""
    folder = tmp_path / "oficina"
    shutil.copytree(FOLDER, folder)
    return folder


def run(*args: str, ok: bool = True) -> str:
    result = runner.invoke(app, list(args), env={"COLUMNS": "1000"})
    assert (result.exit_code == 0) == ok, result.output
    return " ".join(result.output.split())


def test_the_texts_beside_the_file_are_read_and_checked(tmp_path: Path) -> None:
    folder = office_folder(tmp_path)
    program = load_program_file(folder / "programa.yaml")
    assert program.norms["prueba"].texts == ("decreto-prueba-banco.txt",)
    (folder / "decreto-prueba-banco.txt").unlink()
    with pytest.raises(ProgramFileError) as caught:
        load_program_file(folder / "programa.yaml")
    [error] = caught.value.errors
    assert error.path == "normas.prueba.texto"
    assert error.message.startswith(
        "'decreto-prueba-banco.txt' no es un texto incluido en el paquete ni un archivo "
        f"junto al programa (en {folder}); un texto propio se cita por su ruta relativa a la "
        "carpeta del archivo de programa (p. ej. 'texto: mi-decreto.txt', con mi-decreto.txt "
        "junto al programa); textos incluidos: central-seguros-vida-primera-fase.txt, "
    )


def test_a_source_beside_the_file_by_name_or_by_section(tmp_path: Path) -> None:
    folder = office_folder(tmp_path)
    path = folder / "programa.yaml"
    text = path.read_text(encoding="utf-8")
    own = "corto: Decreto de prueba, texto: decreto-prueba-banco.txt}"
    assert own in text
    # The case: before, 'el texto tiene caracteres no admitidos'.
    path.write_text(text.replace(own, "corto: Decreto de prueba, fuente: mi-decreto.txt}"))
    (folder / "mi-decreto.txt").write_text("Texto del decreto.\n", encoding="utf-8")
    assert load_program_file(path).norms["prueba"].source == "mi-decreto.txt"
    path.write_text(text.replace(own, "corto: Decreto de prueba, fuente: fuentes-prueba.md §2}"))
    with pytest.raises(ProgramFileError) as caught:
        load_program_file(path)
    assert [str(e).split(": ", 1)[1] for e in caught.value.errors] == [
        "normas.prueba.fuente: fuentes-prueba.md no tiene la sección §2"
    ]
    path.write_text(text.replace("ref: §1}", "ref: §3}"))
    with pytest.raises(ProgramFileError) as caught:
        load_program_file(path)
    assert [e.message for e in caught.value.errors] == ["fuentes-prueba.md no tiene la sección §3"]


def test_an_unknown_key_lists_the_keys_of_its_place(tmp_path: Path) -> None:
    folder = office_folder(tmp_path)
    path = folder / "programa.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("tope_porcentaje_emisor:", "tope_porcentaje_compania:"))
    out = run("programa", "validar", str(path), ok=False)
    assert (
        "limites[0].tope_porcentaje_compania: clave desconocida (se admite aquí: id, nombre, "
        "aplica_si, multiplo, base, tope_acciones, tope_pesos, tope_smmlv, "
        "tope_porcentaje_oferta, tope_porcentaje_emisor, tope_financiado, cita)"
    ) in out


def test_undertakings_and_fines_are_declared_or_refused(tmp_path: Path) -> None:
    folder = office_folder(tmp_path)
    program = load_program_file(folder / "programa.yaml")
    with pytest.raises(FineError) as caught:
        FineTerms.from_program(program)
    assert str(caught.value) == (
        "El programa de enajenación de las acciones de la Nación en el Banco de Prueba S.A. "
        "(decreto de prueba) "
        "no trae las multas por incumplir los compromisos: Multas por el incumplimiento "
        "de los compromisos (Decreto de prueba art. 7): El texto las remite al reglamento, que "
        "no se tiene; no se calcula ninguna. No se puede calcular una multa."
    )
    path = folder / "programa.yaml"
    text = path.read_text(encoding="utf-8")
    start = text.index("  - disposicion: Multas")
    path.write_text(text[:start] + text[text.index("  - disposicion: Etapas") :])
    with pytest.raises(ProgramFileError) as refused:
        load_program_file(path)
    assert [(e.path, e.message) for e in refused.value.errors] == [
        (
            "multas",
            "falta 'multas': escríbalos con su cita o, si el texto no los trae, declárelo en "
            "no_modelado (disposicion, cita, razon y 'seccion: multas')",
        )
    ]


def test_prices_of_six_decimals_read_and_written_exactly() -> None:
    # In centavos: 1,0176 centavos a share, exactly.
    assert parse_price("0.010176") == parse_price("0,010176") == Fraction(10176, 10_000)
    assert price_text(parse_price("0,010176")) == "$ 0,010176"
    assert price_text(parse_price("2.018")) == "$ 2.018"
    assert price_text(parse_price("2075.31")) == "$ 2.075,31"


def test_ver_and_evaluar_read_the_price_of_six_decimals(tmp_path: Path) -> None:
    folder = office_folder(tmp_path)
    program = str(folder / "programa.yaml")
    out = run("programa", "ver", program)
    assert "$ 0,010176" in out and "42.212.620.563.213" in out
    assert "no trae los compromisos" in out and "no trae las multas" in out
    (tmp_path / "oferta.yaml").write_text(OFFER, encoding="utf-8")
    (tmp_path / "lote.csv").write_text("\n".join([HEADER, *ROWS]) + "\n", encoding="utf-8")
    out = run(
        "evaluar",
        "-p",
        program,
        str(tmp_path / "lote.csv"),
        "--oferta",
        str(tmp_path / "oferta.yaml"),
        "-o",
        str(tmp_path / "salidas"),
        "--detalle",
    )
    decisions = pl.read_csv(tmp_path / "salidas/decisiones-lote.csv", infer_schema=False)
    assert_decisions(decisions)


def assert_decisions(decisions: pl.DataFrame) -> None:
    by = {r["referencia"]: r for r in decisions.iter_rows(named=True)}
    assert by["R1"]["explicacion"] == (
        "Reducida de 20.000.000.000.000 a 210.000.000.000 acciones por el límite El 0,3 % de "
        "las acciones en circulación de la compañía: 0,30 % de 70.000.000.000.000 acciones en "
        "circulación (Decreto de prueba art. 6.1) = 210.000.000.000 acciones, redondeado hacia "
        "abajo (Decreto de prueba art. 6.1)."
    )
    # 5 × 3.000.000.000.000 / 0,010176 = 1.474.056.603.773.584,9…: every leading digit.
    assert (
        "Cinco veces los ingresos anuales: 5 × $ 3.000.000.000.000 (ingresos de la "
        "declaración) / $ 0,010176 = 1.474.056.603.773.584 acciones (Decreto de prueba art. 6.2)"
    ) in by["R1"]["limites_detalle"]
    # 5 × 60.000.000 / 0,010176 = 29.481.132.075,4…
    assert "/ $ 0,010176 = 29.481.132.075 acciones" in by["R2"]["limites_detalle"]
    assert by["R2"]["decision"] == "aceptada"
    assert by["R3"]["decision"] == "rechazada"
    assert by["R3"]["causas_detalle"] == (
        "Extranjero: la categoría «Persona natural de nacionalidad colombiana» es solo para "
        "nacionales (Decreto de prueba art. 3(b))."
    )
    assert by["R4"]["decision"] == "aceptada"


def test_the_whole_offer_from_the_office_folder(tmp_path: Path, db_url: str) -> None:
    folder = office_folder(tmp_path)
    db = ("--db", db_url)
    (tmp_path / "oferta.yaml").write_text(OFFER, encoding="utf-8")
    (tmp_path / "lote.csv").write_text("\n".join([HEADER, *ROWS]) + "\n", encoding="utf-8")
    out = run("programa", "validar", str(folder / "programa.yaml"))
    assert "el programa decreto-prueba-banco (versión 1) es válido" in out
    program = str(folder / "programa.yaml")
    run("oferta", "crear", "prueba", "-p", program, "--oferta", str(tmp_path / "oferta.yaml"), *db)
    run("credito", "registrar", "prueba", *CREDIT_LINE, *db)
    run("oferta", "abrir", "prueba", *db)
    lote = ("--comisionista", "Casa de Bolsa", "--lote", "L1")
    salidas = str(tmp_path / "salidas")
    run("lote", "importar", "prueba", str(tmp_path / "lote.csv"), *lote, "--salida", salidas, *db)
    assert_decisions(
        pl.read_csv(
            tmp_path / "salidas/prueba/lotes/casa-de-bolsa-l1-decisiones.csv", infer_schema=False
        )
    )
    run("oferta", "cerrar", "prueba", *db)
    out = run("oferta", "adjudicar", "prueba", "--fecha", "2018-03-01", *db)
    assert "Acciones ofrecidas: 42.212.620.563.213; demanda válida: 210.001.000.003" in out
    run("oferta", "publicar", "prueba", *db)
    run("oferta", "exportar", "prueba", "--salida", salidas, *db)
    report = (tmp_path / "salidas/prueba/informe-adjudicacion.html").read_text(encoding="utf-8")
    assert "$ 0,010176" in report
    assert (
        "acciones × $ 0,010176, redondeado al centavo más cercano (medio centavo, hacia "
        "arriba); el valor adjudicado es su suma"
    ) in report
    # 210.000.000.000 × 0,010176 = 2.136.960.000; 1.000.000 × 0,010176 = 10.176;
    # 3 × 0,010176 = 0,030528, paid as $ 0,03.
    assert "$ 2.136.970.176,03" in report
    package = tmp_path / "paquete"
    run("paquete", "oferta", "prueba", "-o", str(package), *db)
    parameters = json.loads((package / "parametros.json").read_text(encoding="utf-8"))
    carried = parameters["textos_del_programa"]
    assert sorted(carried) == [
        "norma-decreto-prueba-banco.txt",
        "norma-fuentes-prueba.md",
        "norma-fuentes.md",
        "programa.yaml",
    ]
    assert (package / "norma-decreto-prueba-banco.txt").read_bytes() == (
        folder / "decreto-prueba-banco.txt"
    ).read_bytes()
    out = run("verificar", str(package))
    assert "El paquete coincide" in out
    # The office edits its decree's text after the offer: the offer keeps its own.
    with (folder / "decreto-prueba-banco.txt").open("a", encoding="utf-8") as text:
        text.write("ARTÍCULO 10°. Texto agregado después.\n")
    out = run("programa", "comparar", "prueba", "--archivo", program, *db)
    assert "El texto 'decreto-prueba-banco.txt' cambió: huella " in out
    assert "+ARTÍCULO 10°. Texto agregado después." in out
    out = run("oferta", "ver", "prueba", *db)
    assert "publicada" in out
