"""``democratiza programa cobertura``: the decree's text, provision by provision, against the
file: cited by a value, declared not modelled, or neither (and ``programa validar`` warns)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from democratiza.cli.main import app
from democratiza.programs.coverage import Status, cited_keys, coverage, program_coverage, provisions
from democratiza.programs.loader import bundled_program_ids, program_data, read_program

TEST_DECREE = Path(__file__).parent / "programs" / "decreto-prueba"
runner = CliRunner()

DECREE = """DECRETO 1 DE 2030

CONSIDERANDO: Que el artículo 7 de la Ley 226 de 1995 lo permite.

ARTÍCULO 1°. Oferta. Se ofrecen cien (100) acciones.

ARTÍCULO 2°. Límites.

2.1. Nadie podrá adquirir más de diez (10) acciones.

2.2. Las personas naturales no podrán superar cinco (5) veces sus ingresos anuales que figuren en:

a. La declaración de renta; o

b. El certificado de ingresos.

Parágrafo. Una aceptación superior se entiende por la cantidad permitida.

ARTÍCULO 3°. Multas. El incumplimiento acarrea una multa. 3.1. Del cien por ciento (100%) \
dentro de los seis meses. 3.2. Las impone la Nación.
"""


def run(*args: str, ok: bool = True) -> str:
    result = runner.invoke(app, list(args), env={"COLUMNS": "250"})
    assert (result.exit_code == 0) == ok, result.output
    return result.output


def test_a_text_is_cut_as_it_numbers_itself() -> None:
    found = [(p.label, p.key) for p in provisions(DECREE)]
    assert found == [
        ("art. 1", ("1",)),
        ("art. 2", ("2",)),
        ("art. 2.1", ("2", "1")),
        ("art. 2.2", ("2", "2")),
        ("art. 2.2(a)", ("2", "2", "(a)")),
        ("art. 2.2(b)", ("2", "2", "(b)")),
        ("art. 2 parágrafo", ("2", "parágrafo")),
        ("art. 3", ("3",)),
        ("art. 3.1", ("3", "1")),  # numerals run together in one paragraph still count
        ("art. 3.2", ("3", "2")),
    ]


def test_a_reference_names_the_places_it_cites() -> None:
    assert cited_keys("arts. 8.2.6, 9.4 y 10.2(e)") == {
        ("8", "2", "6"),
        ("9", "4"),
        ("10", "2", "(e)"),
    }
    assert cited_keys("art. 6.3 y parágrafo") == {("6", "3"), ("6", "parágrafo")}
    # After a ';' the reference cites another norm: its articles are not this text's.
    assert cited_keys("arts. 4 y 6.1; Ley 226/1995 art. 25") == {("4",), ("6", "1")}


def test_each_provision_is_cited_declared_or_neither() -> None:
    data = {
        "limites": [
            {"cita": {"norma": "d", "ref": "art. 2.1"}},
            {"cita": {"norma": "d", "ref": "art. 2.2"}},  # covers its literals (a) and (b)
            {"cita": {"norma": "otra", "ref": "art. 3.2"}},  # another norm's article 3.2
        ],
        "parametros": {"acciones_ofrecidas": {"cita": {"norma": "d", "ref": "art. 1"}}},
        "no_modelado": [{"cita": {"norma": "d", "ref": "art. 3.1"}, "razon": "sin texto"}],
    }
    status = {c.provision.label: c.status for c in coverage(DECREE, data, "d")}
    assert status == {
        "art. 1": Status.CITED,
        "art. 2": Status.CITED,  # its numerals are cited
        "art. 2.1": Status.CITED,
        "art. 2.2": Status.CITED,
        "art. 2.2(a)": Status.CITED,
        "art. 2.2(b)": Status.CITED,
        "art. 2 parágrafo": Status.NEITHER,
        "art. 3": Status.NOT_MODELLED,
        "art. 3.1": Status.NOT_MODELLED,
        "art. 3.2": Status.NEITHER,  # citing 3 or 3.1 does not cite the numeral 3.2
    }


def test_a_copy_without_numbers_is_cut_into_paragraphs_named_by_the_file() -> None:
    copy = "Deberán acompañar copia de la declaración.\nNo podrán adquirir más de diez acciones.\n"
    numbering = {"Deberán acompañar copia": ("A.1",)}
    data = {
        "documentos": [{"cita": {"norma": "d", "ref": "A.1(i)"}}],
        "limites": [{"cita": {"norma": "d", "ref": "inc. «No podrán adquirir…»"}}],
    }
    found = [(c.provision.label, c.status) for c in coverage(copy, data, "d", numbering)]
    assert found == [
        ("A.1", Status.CITED),
        ("inc. «No podrán adquirir más de…»", Status.CITED),
    ]
    assert [c.status for c in coverage(copy, {}, "d", numbering)] == [Status.NEITHER] * 2


@pytest.mark.parametrize("program_id", bundled_program_ids())
def test_every_provision_of_the_packaged_programs_texts_is_cited_or_declared(
    program_id: str,
) -> None:
    found = read_program(program_id)
    program = found.program()
    texts = program_coverage(program, program_data(found.text, found.source), found.beside)
    assert texts, "each packaged program cites a decree's text"
    assert [(t.text, c.provision.label) for t in texts for c in t.uncovered] == []
    out = run("programa", "cobertura", program_id)
    assert "0 ni lo uno ni lo otro" in out
    assert "ni citado ni declarado" not in out
    assert "Aviso:" not in run("programa", "validar", found.source)


def test_geb_names_each_numeral_and_what_covers_it() -> None:
    out = run("programa", "cobertura", "geb-2017")
    assert "Decreto 706/2017 (geb-decreto-706-2017.txt): 86 disposiciones;" in out
    assert "  art. 8.2.1 «8.2.1. No podrán adquirir un…»: citado (art. 8.2.1)" in out
    assert "  art. 11.2 «11.2. El Distrito Capital está…»: no modelado (art. 11.2)" in out


def test_validar_warns_of_every_provision_neither_cited_nor_declared(tmp_path: Path) -> None:
    # The test decree's program speaks of art. 8(b) only in a note: no value cites art. 8.
    folder = tmp_path / "oficina"
    shutil.copytree(TEST_DECREE, folder)
    out = run("programa", "validar", str(folder / "programa.yaml"))
    assert "es válido" in out
    for label, opening in [
        ("art. 8", "ARTÍCULO 8°. Adjudicación."),
        ("art. 8(a)", "a. Si las aceptaciones válidas…"),
        ("art. 8(b)", "b. Si las aceptaciones válidas…"),
    ]:
        assert (
            f"Aviso: Decreto de prueba {label} («{opening}», decreto-prueba-banco.txt): ni un "
            "valor del archivo la cita ni está declarada en no_modelado" in out
        )
    cover = run("programa", "cobertura", str(folder / "programa.yaml"))
    assert "22 disposiciones; 17 citadas por un valor, 2 declaradas no modeladas, 3 ni" in cover


def test_a_numbering_that_opens_no_paragraph_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "oficina"
    shutil.copytree(TEST_DECREE, folder)
    path = folder / "programa.yaml"
    text = path.read_text(encoding="utf-8")
    assert "texto: decreto-prueba-banco.txt" in text
    text = text.replace(
        "texto: decreto-prueba-banco.txt",
        'texto: decreto-prueba-banco.txt, numeracion: {"No existe este párrafo": A.1}',
        1,
    )
    path.write_text(text, encoding="utf-8")
    out = run("programa", "validar", str(path), ok=False)
    assert "numeracion: ningún párrafo del texto empieza por «No existe este párrafo»" in out
