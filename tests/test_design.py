"""The program designer: designs compared with the very code that adjudicates a real offer.

Worked examples: the base design of an offer's own acceptances gives its stored
adjudication, award for award; a design that changes only the method changes only the
allocation; a change the program file's schema refuses is refused with its key path; a
synthetic population is the same for the same seed.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import polars as pl
import pytest
import yaml
from sqlalchemy import Engine

from democratiza.adjudication.record import adjudicate
from democratiza.design.designs import DesignError, changed, load_designs, parse_designs
from democratiza.design.population import load_population_spec, population
from democratiza.design.simulate import simulate
from democratiza.design.sources import from_offer, from_spec
from democratiza.filing.batches import import_batch
from democratiza.offers.lifecycle import advance, create_offer, load_offer
from democratiza.reports.design_comparison import comparison_rows, design_figures

EXAMPLES = Path(__file__).parents[1] / "examples"
SAMPLE = EXAMPLES / "primera-etapa"
POPULATION = EXAMPLES / "simulacion" / "poblacion-geb.yaml"
PARAMS = yaml.safe_load((SAMPLE / "oferta.yaml").read_text(encoding="utf-8"))


def designs_file(
    tmp_path: Path, program: str, offer: Mapping[str, object], *designs: Mapping[str, object]
) -> Path:
    path = tmp_path / "disenos.yaml"
    path.write_text(
        yaml.safe_dump(
            {"programa": program, "oferta": dict(offer), "disenos": [dict(d) for d in designs]}
        ),
        encoding="utf-8",
    )
    return path


def test_the_base_design_of_an_offer_is_its_adjudication(engine: Engine, tmp_path: Path) -> None:
    code = "central-disenador"
    with engine.begin() as conn:
        stored = create_offer(conn, code, "central-seguros-vida", PARAMS, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "apertura")
    for name, broker in [
        ("lote-1-casa-de-bolsa.csv", "Casa de Bolsa"),
        ("lote-2-acciones-y-valores.csv", "Acciones y Valores"),
        ("lote-3-valores-bancolombia.csv", "Valores Bancolombia"),
    ]:
        import_batch(engine, code, SAMPLE / name, broker, "L1", "scb")
    with engine.begin() as conn:
        advance(conn, load_offer(conn, code), "cerrada", "oficina", "cierre")
    real = adjudicate(engine, code, "oficina", "adjudicación").results
    assert bool(real["adjudicada"].sum() > 0)

    offer = {k: str(v) for k, v in PARAMS.items()}
    path = designs_file(tmp_path, "central-seguros-vida", offer, {"nombre": "Base"})
    [outcome] = simulate(from_offer(engine, code), load_designs(path))

    assert outcome.allocation.oversubscribed  # the sample offer is oversubscribed
    got = outcome.results.select("radicado", "cantidad_persona", "adjudicada")
    expected = real.select("radicado", "cantidad_persona", "adjudicada")
    assert got.sort("radicado").equals(expected.sort("radicado"))


def test_a_design_that_changes_only_the_method_changes_only_the_allocation(
    tmp_path: Path,
) -> None:
    offer = {"trm": "2984.00", "fecha_aviso": "2017-12-22", "fecha_cierre": "2018-02-26"}
    path = designs_file(
        tmp_path,
        "geb-2017",
        offer,
        {"nombre": "Igualitario", "cambios": {"parametros.acciones_ofrecidas.valor": 2_000_000}},
        {
            "nombre": "Proporcional",
            "cambios": {
                "parametros.acciones_ofrecidas.valor": 2_000_000,
                "adjudicacion.metodo": "proporcional",
            },
        },
    )
    designs = load_designs(path)
    rows = from_spec(POPULATION, designs[0])
    equal, proportional = simulate(rows, designs)
    decided = ["radicado", "cantidad", "cantidad_permitida", "decision", "cantidad_persona"]
    assert equal.results.select(decided).equals(proportional.results.select(decided))
    assert not equal.results["adjudicada"].equals(proportional.results["adjudicada"])
    assert (
        equal.results["adjudicada"].sum() == proportional.results["adjudicada"].sum() == 2_000_000
    )
    # The comparison names the methods and the remainder rule by their words, not their ids.
    table = dict(comparison_rows([design_figures(equal), design_figures(proportional)]))
    assert table["Método de adjudicación"] == [
        "Igualitario con redistribución; remanente: al primero en radicar",
        "Proporcional a lo permitido; remanente: al primero en radicar",
    ]
    # The changes in words, in the file's order (YAML sorted), never their key paths.
    assert table["Cambios frente al programa"][1] == (
        "Método de adjudicación: Proporcional a lo permitido; Acciones ofrecidas: 2.000.000"
    )


def test_doubling_a_multiple_reduces_fewer_acceptances(tmp_path: Path) -> None:
    offer = {"trm": "2984.00", "fecha_aviso": "2017-12-22", "fecha_cierre": "2018-02-26"}
    path = designs_file(
        tmp_path,
        "geb-2017",
        offer,
        {"nombre": "Decreto"},
        {"nombre": "Doble patrimonio", "cambios": {"limites.geb-8.2.1.multiplo": 2}},
    )
    designs = load_designs(path)
    figures = [design_figures(o) for o in simulate(from_spec(POPULATION, designs[0]), designs)]
    assert figures[1].figures.reducidas < figures[0].figures.reducidas
    assert figures[0].binding["Una vez el patrimonio líquido"] > 0
    assert "Una vez el patrimonio líquido" not in figures[1].binding
    rows = dict(comparison_rows(figures))
    assert rows["Cambios frente al programa"] == [
        "ninguno (base)",
        "Una vez el patrimonio líquido (Decreto 706/2017 art. 8.2.1), múltiplo: 2",
    ]


def test_a_change_the_schema_refuses_names_its_key(tmp_path: Path) -> None:
    path = designs_file(
        tmp_path, "geb-2017", {}, {"nombre": "Mal", "cambios": {"adjudicacion.metodo": "sorteo"}}
    )
    with pytest.raises(DesignError, match=r"diseño «Mal»: adjudicacion\.metodo"):
        load_designs(path)
    with pytest.raises(DesignError, match="no existe la clave 'metodos'"):
        changed({"adjudicacion": {"metodo": "x"}}, "adjudicacion.metodos.x", 1)


def test_a_list_item_is_changed_by_its_id_even_with_dots() -> None:
    data = {"limites": [{"id": "geb-8.2.1", "multiplo": 1}, {"id": "geb-8.2.2", "multiplo": 5}]}
    assert changed(data, "limites.geb-8.2.2.multiplo", 3)["limites"][1]["multiplo"] == 3
    assert changed(data, "limites.0.multiplo", 2)["limites"][0]["multiplo"] == 2
    assert data["limites"][1]["multiplo"] == 5  # the original is untouched


def test_a_population_is_the_same_for_the_same_seed() -> None:
    spec = load_population_spec(POPULATION)
    first, again = population(spec), population(spec)
    assert first.equals(again)
    counts = dict(first.group_by("categoria").len().iter_rows())
    assert counts["trabajador_activo"] == spec.counts["trabajador_activo"]
    filers = first.filter(pl.col("obligado_declarar"))
    assert filers["patrimonio_liquido"].null_count() == 0
    assert first.filter(~pl.col("obligado_declarar"))["patrimonio_liquido"].null_count() > 0


def test_a_key_written_twice_is_refused_not_silently_the_last_one() -> None:
    # YAML keeps the last of two equal keys: the first edit would be lost without a word.
    text = (
        "programa: geb-2017\n"
        "disenos:\n"
        "  - nombre: Doble\n"
        "    cambios:\n"
        "      limites.geb-8.2.1.multiplo: 2\n"
        "      limites.geb-8.2.1.multiplo: 3\n"
    )
    with pytest.raises(DesignError) as refused:
        parse_designs(text, "d.yaml", None)
    assert str(refused.value) == (
        "d.yaml: la clave 'limites.geb-8.2.1.multiplo' está repetida (línea 6, columna 7)"
    )
