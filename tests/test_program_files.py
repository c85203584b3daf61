"""Program files load, every value cites a declared norm, and bad files are refused by path."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
import yaml
from pydantic import BaseModel

from democratiza.offers.lifecycle import window_problem
from democratiza.programs.cross_checks import models_section
from democratiza.programs.loader import (
    ProgramError,
    ProgramFileError,
    bundled_program_ids,
    load_program,
    load_program_file,
    parse_program,
)
from democratiza.programs.schema import Citation, Program
from democratiza.programs.texts import cited_section, folder, shipped_texts, source_sections

SOURCE = Path(__file__).parents[1] / "src/democratiza/programs/data/geb-2017.yaml"


def test_the_four_programs_ship() -> None:
    assert bundled_program_ids() == ["central-seguros-vida", "coltel-2018", "ebsa", "geb-2017"]


@pytest.mark.parametrize("program_id", bundled_program_ids())
def test_every_program_lists_what_it_does_not_model(program_id: str) -> None:
    program = load_program(program_id)
    assert program.not_modelled, "coverage must be visible"
    assert all(nm.reason for nm in program.not_modelled)


@pytest.mark.parametrize(
    ("program_id", "price", "cap"),
    [
        ("geb-2017", "2018.00", 3_184_458),
        ("coltel-2018", "2075.31", 5_541_347),
        ("ebsa", None, 122_122_301),
        ("central-seguros-vida", None, 367_800),
    ],
)
def test_prices_and_caps_from_the_decrees(program_id: str, price: str | None, cap: int) -> None:
    program = load_program(program_id)
    value = program.parameters["precio"].value
    assert (None if value is None else str(value)) == price
    assert cap in {r.cap_shares for r in program.limits}


def edited(tmp_path: Path, change: str, replacement: str) -> Path:
    text = SOURCE.read_text(encoding="utf-8")
    assert change in text
    path = tmp_path / "programa.yaml"
    path.write_text(text.replace(change, replacement, 1), encoding="utf-8")
    return path


def messages(path: Path) -> list[str]:
    with pytest.raises(ProgramFileError) as exc:
        load_program_file(path)
    return [f"{e.path}: {e.message}" for e in exc.value.errors]


def test_missing_citation_is_refused_with_its_path(tmp_path: Path) -> None:
    path = edited(
        tmp_path,
        "tope_acciones: 3184458\n    cita: {norma: d706, ref: art. 10.1}",
        "tope_acciones: 3184458",
    )
    assert messages(path) == ["limites[7].cita: falta este campo"]


def test_unknown_key_is_refused_with_its_path(tmp_path: Path) -> None:
    path = edited(tmp_path, "tope_acciones: 3184458", "tope_acciones: 3184458\n    topes: 1")
    assert messages(path) == [
        "limites[7].topes: clave desconocida (se admite aquí: id, nombre, aplica_si, multiplo, "
        "base, tope_acciones, tope_pesos, tope_smmlv, tope_porcentaje_oferta, "
        "tope_porcentaje_emisor, tope_financiado, cita)"
    ]


def test_citation_of_an_undeclared_norm(tmp_path: Path) -> None:
    path = edited(tmp_path, "{norma: d706, ref: art. 10.1}", "{norma: d999, ref: art. 10.1}")
    assert messages(path) == [
        "limites[7].cita.norma: la norma 'd999' no está declarada en 'normas'"
    ]


def test_unknown_amount_source(tmp_path: Path) -> None:
    path = edited(tmp_path, "fuentes: [limite_inversion]", "fuentes: [limite_inversiones]")
    assert messages(path) == [
        "limites[6].base.fuentes[0]: valor no admitido (se admite: 'patrimonio_liquido', "
        "'ingresos_declaracion', 'ingresos_certificado', 'ingresos_usd', 'remuneracion_anual', "
        "'salario_mensual_anualizado', 'patrimonio_ajustado', 'ingresos_estados_financieros', "
        "'limite_inversion' o 'salario_mensual')"
    ]


def test_every_citation_in_every_program_names_a_declared_norm() -> None:
    for program_id in bundled_program_ids():
        program = load_program(program_id)
        data = yaml.safe_load(
            Path(__file__)
            .parents[1]
            .joinpath(f"src/democratiza/programs/data/{program_id}.yaml")
            .read_text(encoding="utf-8")
        )
        assert Program.model_validate(data) == program
        citations = _citations(program)
        assert citations and all(c.norm in program.norms and c.ref for c in citations)


def _citations(value: object) -> list[Citation]:
    if isinstance(value, Citation):
        return [value]
    if isinstance(value, BaseModel):
        return [c for name in type(value).model_fields for c in _citations(getattr(value, name))]
    if isinstance(value, dict):
        return [c for v in value.values() for c in _citations(v)]
    if isinstance(value, tuple):
        return [c for v in value for c in _citations(v)]
    return []


def test_validity_period_on_a_document_without_a_date_is_refused(tmp_path: Path) -> None:
    # A validity rule the engine could never check must not load silently.
    path = edited(
        tmp_path,
        "    cita: {norma: d706, ref: art. 8.1(a)(i)}",
        "    cita: {norma: d706, ref: art. 8.1(a)(i)}\n    vigencia_meses: 1",
    )
    assert messages(path) == [
        "documentos[0].vigencia_meses: el documento 'declaracion_renta' no lleva fecha"
    ]


# --- the repository holds what it cites ---------------------------------------------------


@pytest.mark.parametrize("program_id", bundled_program_ids())
def test_every_norm_names_a_text_shipped_in_the_package_or_its_source(program_id: str) -> None:
    program = load_program(program_id)
    for key, norm in program.norms.items():
        assert norm.texts or norm.source, key
        for name in norm.texts:
            assert folder().joinpath(name).read_text(encoding="utf-8").strip(), name
        if norm.source:
            assert cited_section(norm.source.removeprefix("fuentes.md ")) in source_sections()


def test_the_decree_texts_and_the_sources_document_are_shipped() -> None:
    assert shipped_texts() == (
        "central-seguros-vida-primera-fase.txt",
        "coltel-2018-art8-personas-naturales.txt",
        "coltel-2018-art9-personas-juridicas.txt",
        "ebsa-art-personas-naturales.txt",
        "fuentes.md",
        "geb-decreto-706-2017.txt",
    )
    assert source_sections() == {"1", "2", "3", "4", "5", "6", "7", "8"}
    package_data = (Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    assert '"programs/normas/*.txt"' in package_data
    assert '"programs/normas/*.md"' in package_data


def test_nothing_in_the_repository_cites_a_file_outside_it() -> None:
    root = Path(__file__).parents[1]
    outside = ("domin" + "io.md", "../" + "shared", "shared/" + "decretos")
    places = [root / "README.md"] + [
        p
        for folder_name in ("src", "docs", "tests", "benchmarks", "examples")
        for p in (root / folder_name).rglob("*")
        if p.is_file() and p.suffix in {".py", ".md", ".yaml", ".csv", ".sh", ".txt", ".html"}
    ]
    found = [
        f"{p.relative_to(root)}: {word}"
        for p in places
        for word in outside
        if word in p.read_text(encoding="utf-8", errors="replace")
    ]
    assert found == []


def test_a_norm_that_names_no_shipped_text_or_source_is_refused(tmp_path: Path) -> None:
    path = edited(
        tmp_path,
        "ley226: {nombre: Ley 226 de 1995, corto: Ley 226/1995, fuente: fuentes.md §2}",
        "ley226: {nombre: Ley 226 de 1995, corto: Ley 226/1995}",
    )
    [message] = messages(path)
    assert message.startswith(
        "normas.ley226: la norma no nombra su texto ('texto') ni su fuente ('fuente: ARCHIVO "
        "§N'); un texto propio se cita por su ruta relativa a la carpeta del archivo de "
        "programa (p. ej. 'texto: mi-decreto.txt', con mi-decreto.txt junto al programa); "
        "textos incluidos: central-seguros-vida-primera-fase.txt, "
    )


def test_a_text_that_is_not_shipped_is_refused(tmp_path: Path) -> None:
    path = edited(tmp_path, "texto: geb-decreto-706-2017.txt", "texto: geb-decreto-706.txt")
    [message] = messages(path)
    assert message.startswith(
        "normas.d706.texto: 'geb-decreto-706.txt' no es un texto incluido en el paquete ni un "
        f"archivo junto al programa (en {tmp_path}); un texto propio se cita por su ruta "
        "relativa a la carpeta del archivo de programa"
    )


def test_a_section_the_sources_document_lacks_is_refused(tmp_path: Path) -> None:
    path = edited(
        tmp_path,
        "ley226: {nombre: Ley 226 de 1995, corto: Ley 226/1995, fuente: fuentes.md §2}",
        "ley226: {nombre: Ley 226 de 1995, corto: Ley 226/1995, fuente: fuentes.md §9}",
    )
    assert messages(path) == ["normas.ley226.fuente: fuentes.md no tiene la sección §9"]
    path = edited(tmp_path, "{norma: fuentes, ref: §4}", "{norma: fuentes, ref: §10}")
    assert messages(path) == [
        "etapas_siguientes.ajuste_ipc.cita.ref: fuentes.md no tiene la sección §10"
    ]


def test_every_problem_of_a_file_at_once_in_spanish(tmp_path: Path) -> None:
    text = SOURCE.read_text(encoding="utf-8")
    for old, new in [
        ("valor: 1836235403", "valor: muchas"),
        ("multiplo: 5\n", "multiplo: cinco\n"),
        ("fuentes: [limite_inversion]", "fuentes: [limite_inversiones]"),
        ("{norma: d706, ref: art. 10.1}", "{norma: d999, ref: art. 10.1}"),
    ]:
        assert old in text
        text = text.replace(old, new, 1)
    path = tmp_path / "programa.yaml"
    path.write_text(text, encoding="utf-8")
    assert messages(path) == [
        "parametros.acciones_ofrecidas.valor: se espera un número, un número entero o una fecha "
        "AAAA-MM-DD",
        "limites[1].multiplo: se espera un número entero o un objeto con claves",
        "limites[6].base.fuentes[0]: valor no admitido (se admite: 'patrimonio_liquido', "
        "'ingresos_declaracion', 'ingresos_certificado', 'ingresos_usd', 'remuneracion_anual', "
        "'salario_mensual_anualizado', 'patrimonio_ajustado', 'ingresos_estados_financieros', "
        "'limite_inversion' o 'salario_mensual')",
        "limites[7].cita.norma: la norma 'd999' no está declarada en 'normas'",
    ]


def test_every_inexact_number_of_a_file_at_once_with_its_line(tmp_path: Path) -> None:
    """YAML reads an unquoted 2.5 or 1.500 as a float: refused before the file is read, all
    of them in one message, each by its key and line, so none is taken for an exact value."""
    text = SOURCE.read_text(encoding="utf-8")
    for old, new in [("multiplo: 5\n", "multiplo: 2.5\n"), ("valor: 1836235403", "valor: 1.500")]:
        assert old in text
        text = text.replace(old, new, 1)
    path = tmp_path / "programa.yaml"
    path.write_text(text, encoding="utf-8")
    [said] = messages(path)
    assert "acciones_ofrecidas.valor: 1.500 (línea" in said and "multiplo: 2.5 (línea" in said
    # In the file's order: the parameters come before the limits.
    assert said.index("acciones_ofrecidas.valor: 1.500") < said.index("limites[1].multiplo: 2.5")
    assert said.endswith(
        ": YAML lee esos números como decimales inexactos (1.500 sería 1,5); los montos, las "
        'acciones y los precios son exactos: escriba 1500, o "1.500" entre comillas'
    )


def test_a_yaml_syntax_error_is_said_in_spanish_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "programa.yaml"
    path.write_text("id: x\nnombre: [sin cerrar\n", encoding="utf-8")
    with pytest.raises(ProgramFileError) as exc:
        load_program_file(path)
    [error] = exc.value.errors
    assert (error.path, error.message) == ("(archivo)", "no es YAML válido (línea 3, columna 1)")


# --- coverage that tells the truth --------------------------------------------------------

# How a `no_modelado` entry names a section in words: an entry whose provision says one of
# these is about that section, and must not be listed while the file models it. An entry
# that names its section (`seccion`) is checked exactly by the loader instead.
SECTION_WORDS = {
    "etapas_siguientes": ("segunda etapa", "segunda fase", "etapas subsecuentes"),
    "ineficacia": ("ineficacia", "ineficaz", "efectos de contravenir"),
    "lineas_credito": ("líneas de crédito", "condiciones de la línea de crédito"),
    "multas.intereses_mora": ("intereses de mora",),
    "multas.pagos_parciales": ("pagos parciales",),
    "multas.metodo_ajuste": ("ajuste de la multa", "forma de aplicar el ajuste"),
    "remuneracion_anual": ("definición de remuneración anual",),
    "declaracion_juramentada": ("declaración juramentada",),
    "validez.directivos_nuevos": ("vinculados el día hábil anterior",),
}


@pytest.mark.parametrize("program_id", bundled_program_ids())
def test_no_modelado_names_no_section_the_file_models(program_id: str) -> None:
    program = load_program(program_id)
    stale = [
        f"no_modelado[{i}] «{entry.provision}» habla de {section}, que el archivo modela"
        for i, entry in enumerate(program.not_modelled)
        if entry.section is None
        for section, words in SECTION_WORDS.items()
        if any(w in entry.provision.lower() for w in words) and models_section(program, section)
    ]
    assert stale == []


def test_the_words_find_the_entries_that_were_stale() -> None:
    # GEB listed its later stages and its ineffectiveness as not modelled while the file
    # (and the code) modelled both; Central its Segunda Fase and the fine's adjustment.
    words = [w for ws in SECTION_WORDS.values() for w in ws]
    for provision in (
        "Segunda Etapa y etapas subsecuentes",
        "Ineficacia por contravenir las reglas de beneficiario real",
        "Segunda Fase",
        "Forma de aplicar el ajuste de la multa a la tasa máxima moratoria",
    ):
        assert any(w in provision.lower() for w in words), provision


def test_a_no_modelado_entry_naming_a_section_the_file_models_is_refused(tmp_path: Path) -> None:
    path = edited(
        tmp_path,
        "  - disposicion: Interrupciones y ajuste del precio fijo\n",
        "  - disposicion: Interrupciones y ajuste del precio fijo\n    seccion: lineas_credito\n",
    )
    assert messages(path) == [
        "no_modelado[4].seccion: el archivo modela 'lineas_credito': la cobertura no puede "
        "decir que no"
    ]


# --- decree rules are values of the file --------------------------------------------------


def test_the_first_day_of_the_term_is_what_the_file_says(tmp_path: Path) -> None:
    # GEB arts. 4 and 6.1: from the business day after the aviso. Aviso Friday 2017-12-22:
    # the term opens Tuesday 2017-12-26 and two months end on 2018-02-26 at the earliest.
    geb = load_program("geb-2017")
    assert geb.window.first_day(date(2017, 12, 22)) == date(2017, 12, 26)
    problem = window_problem(geb, date(2017, 12, 22), date(2018, 2, 23))
    assert problem == (
        "El plazo del 2017-12-26 al 2018-02-23 es menor que 2 meses (Decreto 706/2017 arts. 4 "
        "y 6.1; Ley 226/1995 art. 25) contados desde el día hábil siguiente al aviso "
        "(Decreto 706/2017 arts. 4 y 6.1); el cierre debe ser el 2018-02-26 o después."
    )
    # A decree that counts from the aviso's own day says so in its file; the engine follows.
    own_day = load_program_file(
        edited(tmp_path, "valor: dia_habil_siguiente_al_aviso", "valor: dia_del_aviso")
    )
    assert own_day.window.first_day(date(2017, 12, 22)) == date(2017, 12, 22)
    assert window_problem(own_day, date(2017, 12, 22), date(2018, 2, 22)) is None


def test_the_new_managers_linkage_rule_is_in_the_files_that_have_it() -> None:
    # GEB 8.2.4 and Coltel 8.3(d) say «vinculadas … el día hábil anterior al vencimiento»;
    # EBSA's num. 5 and Central's text do not.
    linked = {p: load_program(p).validity.new_managers is not None for p in bundled_program_ids()}
    assert linked == {
        "central-seguros-vida": False,
        "coltel-2018": True,
        "ebsa": False,
        "geb-2017": True,
    }
    rule = load_program("geb-2017").validity.new_managers
    assert rule is not None and rule.deadline(date(2018, 2, 26)) == date(2018, 2, 23)


def test_a_linkage_rule_without_the_cut_off_date_is_refused() -> None:
    data = yaml.safe_load(SOURCE.read_text(encoding="utf-8"))
    del data["parametros"]["fecha_corte_directivos"]
    with pytest.raises(ProgramFileError) as exc:
        parse_program(data, "geb")
    assert [f"{e.path}: {e.message}" for e in exc.value.errors] == [
        "limites[3].aplica_si: directivo_nuevo exige 'fecha_corte_directivos'",
        "validez.directivos_nuevos: exige el parámetro 'fecha_corte_directivos'",
    ]


def test_only_the_files_that_allow_it_adjust_a_stages_minimum_price_by_cpi() -> None:
    allowed = {
        p: (s := load_program(p).later_stages) is not None and s.cpi_adjustment is not None
        for p in bundled_program_ids()
    }
    assert allowed == {
        "central-seguros-vida": False,
        "coltel-2018": False,
        "ebsa": False,
        "geb-2017": True,
    }


def test_a_key_written_twice_is_refused_with_its_line(tmp_path: Path) -> None:
    # YAML would keep the second and drop the first without a word.
    path = edited(
        tmp_path,
        "    tope_acciones: 3184458\n",
        "    tope_acciones: 3184458\n    tope_acciones: 9\n",
    )
    [error] = exc_errors(path)
    assert (error.path, error.message) == (
        "(archivo)",
        "la clave 'tope_acciones' está repetida (línea 135, columna 5)",
    )


def exc_errors(path: Path) -> list[ProgramError]:
    with pytest.raises(ProgramFileError) as exc:
        load_program_file(path)
    return exc.value.errors
