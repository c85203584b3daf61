"""The family's variations, written in a program file with no code: worked examples.

``tests/programs/familia-ejemplo.yaml`` implements the example decree of fuentes.md §8: a
price of $ 1.000, 9.876.543 shares offered, acceptances of 100 shares or more in lots of 10,
and the limits: 10 × the monthly salary the employer certifies (every active worker), 50
minimum salaries of 2018 ($ 781.242, Decreto 2269/2017) for natural persons, $ 45.000.000
for employee funds and cooperatives, the certified investment limit for legal persons, 0,5 %
of the shares offered (rounded down) for everyone, and for who pays in instalments (20 %
down, 12 instalments) at most $ 8.000.000 financed. Pension funds together get at most 1 %
of the offer.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from sqlalchemy import Engine
from typer.testing import CliRunner

from democratiza.adjudication.joint import allocate_offer
from democratiza.adjudication.record import publish, stored_adjudication
from democratiza.cli.main import app
from democratiza.compliance.instalments import instalment_schedule, schedule_lines
from democratiza.filing.batches import import_batch
from democratiza.offers.lifecycle import advance, create_offer, load_offer
from democratiza.programs.loader import ProgramFileError, load_program_file
from democratiza.programs.parameters import Offer, OfferParameterError, make_offer
from democratiza.rules.engine import CompiledProgram, frame_from_rows
from democratiza.rules.explain import Explainer
from democratiza.rules.explain_rows import RowExplainer
from democratiza.tables.acceptances import COLUMNS
from democratiza.verification.publish import offer_package
from democratiza.verification.verify import verify
from tests.reference import reference_evaluate
from tests.test_explanations import generate, row_by_row_columns, typed
from tests.test_statements import pdf_text

FAMILY = Path(__file__).parent / "programs" / "familia-ejemplo.yaml"
EXAMPLE = "Decreto de ejemplo"


def offer() -> Offer:
    return make_offer(load_program_file(FAMILY))


def acceptance(number: int, category: str, quantity: int, **figures: Any) -> dict[str, Any]:
    natural = category in ("trabajador_activo", "pensionado")
    status = {"trabajador_activo": "activo", "pensionado": "pensionado"}.get(category)
    return {
        "referencia": f"EJ-{number:04d}",
        "comisionista": "Casa de Bolsa",
        "fecha_radicacion": datetime(2018, 1, 10, 9, number),
        "tipo_identificacion": "CC" if natural else "NIT",
        "numero_identificacion": str(80_000_000 + number),
        "nombre": f"Aceptante {number}",
        "categoria": category,
        "cantidad": quantity,
        "forma_pago": "contado",
        "estado_certificado": status,
        "compromiso_no_negociar": True,
        **figures,
    }


def decide(*rows: dict[str, Any]) -> tuple[pl.DataFrame, list[Any]]:
    compiled = CompiledProgram(offer())
    frame = frame_from_rows(list(rows))
    results = compiled.evaluate(frame)
    explained = list(Explainer(compiled).explain_all_columns(results, frame))
    # The columnar explanations write, row for row, the row by row text.
    assert explained == list(RowExplainer(compiled).explain_all(results, frame))
    pairs = zip(frame.iter_rows(named=True), results.iter_rows(named=True), strict=True)
    for row, decided in pairs:
        expected = reference_evaluate(compiled.offer, row)
        assert decided["cantidad_permitida"] == (
            0 if decided["decision"] == "rechazada" else expected.permitted
        )
    return results, explained


PESOS = 100  # centavos


def test_a_limit_on_the_salary_every_worker_s_employer_certifies() -> None:
    # 10 × $ 2.500.000 / $ 1.000 = 25.000 shares, below 50 SMMLV (39.062) and 0,5 % (49.382).
    results, [why] = decide(
        acceptance(1, "trabajador_activo", 30_000, salario_mensual=2_500_000 * PESOS)
    )
    assert results["cantidad_permitida"].to_list() == [25_000]
    assert results["regla_limitante"].to_list() == ["ej-4.1"]
    assert why.summary == (
        "Reducida de 30.000 a 25.000 acciones por el límite Diez veces el salario mensual "
        "certificado: 10 × $ 2.500.000 (salario mensual certificado por el empleador) / "
        f"$ 1.000 = 25.000 acciones ({EXAMPLE} art. 4.1), en lotes de 10 acciones "
        f"({EXAMPLE} art. 3.2)."
    )


def test_a_worker_without_the_salary_certificate_is_rejected_not_computed_on_zero() -> None:
    results, [why] = decide(acceptance(2, "trabajador_activo", 1_000))
    assert results["decision"].cast(pl.String).to_list() == ["rechazada"]
    assert why.causes == (
        "Falta el documento: Certificación del salario mensual por el empleador "
        f"({EXAMPLE} art. 4.1).",
        "No se puede calcular el límite «Diez veces el salario mensual certificado»: falta "
        f"salario mensual certificado por el empleador; no se calcula sobre cero ({EXAMPLE} "
        "art. 4.1).",
    )


def test_a_cap_in_minimum_salaries_of_a_stated_year() -> None:
    # 50 × $ 781.242 = $ 39.062.100 → 39.062 shares, taken down to whole lots: 39.060.
    results, [why] = decide(acceptance(3, "pensionado", 45_000))
    assert results["cantidad_permitida"].to_list() == [39_060]
    assert results["limite__ej-4.2"].to_list() == [39_062]
    assert why.limits[0] == (
        "Cincuenta salarios mínimos de 2018: 50 × $ 781.242 (salario mínimo mensual legal "
        "vigente de 2018, Decreto 2269/2017 art. 1) / $ 1.000 = 39.062 acciones "
        f"({EXAMPLE} art. 4.2)"
    )
    assert why.summary.startswith("Reducida de 45.000 a 39.060 acciones por el límite Cincuenta")


def test_a_cap_in_pesos() -> None:
    # $ 45.000.000 / $ 1.000 = 45.000 shares, below its certified investment limit (100.000).
    results, [why] = decide(
        acceptance(4, "cooperativa", 60_000, limite_inversion=100_000_000 * PESOS)
    )
    assert results["cantidad_permitida"].to_list() == [45_000]
    assert (
        f"Tope en pesos de fondos de empleados y cooperativas: $ 45.000.000 / $ 1.000 = "
        f"45.000 acciones ({EXAMPLE} art. 4.3)"
    ) in why.limits


def test_a_cap_as_a_percentage_of_the_shares_offered_rounded_as_the_file_says() -> None:
    # 0,5 % of 9.876.543 = 49.382,715 → rounded down 49.382 → in lots of 10: 49.380.
    results, [why] = decide(
        acceptance(5, "fondo_pensiones_cesantias", 60_000, limite_inversion=500_000_000 * PESOS)
    )
    assert results["limite__ej-4.5"].to_list() == [49_382]
    assert results["cantidad_permitida"].to_list() == [49_380]
    assert (
        "Medio por ciento de las acciones ofrecidas: 0,50 % de 9.876.543 acciones ofrecidas = "
        f"49.382 acciones, redondeado hacia abajo ({EXAMPLE} art. 4.5)"
    ) in why.limits


def test_a_minimum_per_acceptance_and_acceptances_only_in_whole_lots() -> None:
    results, (small, broken, zero) = decide(
        acceptance(6, "pensionado", 90),
        acceptance(7, "pensionado", 1_005),
        # A pension fund certifying $ 5.000: 5 shares, less than a lot, so nothing.
        acceptance(8, "fondo_pensiones_cesantias", 100, limite_inversion=5_000 * PESOS),
    )
    assert results["decision"].cast(pl.String).to_list() == ["rechazada"] * 3
    assert small.causes == (
        f"La cantidad es inferior al mínimo de 100 acciones por aceptación ({EXAMPLE} art. 3.1).",
    )
    assert broken.causes == (
        f"La cantidad no es un múltiplo del lote de 10 acciones ({EXAMPLE} art. 3.2).",
    )
    assert zero.causes == (
        "La cantidad permitida es cero: Límite legal y estatutario de inversión certificado: "
        f"1 × $ 5.000 (límite de inversión certificado) / $ 1.000 = 5 acciones ({EXAMPLE} "
        f"art. 4.4), en lotes de 10 acciones ({EXAMPLE} art. 3.2).",
    )


def test_payment_in_instalments_finances_at_most_the_maximum() -> None:
    # 20 % down: each share finances $ 800; $ 8.000.000 / $ 800 = 10.000 shares. The same
    # worker paying cash may buy up to 10 × $ 5.000.000 / $ 1.000 = 50.000 → 0,5 %: 49.380.
    salary = {"salario_mensual": 5_000_000 * PESOS}
    results, (instalments, cash) = decide(
        acceptance(9, "trabajador_activo", 20_000, forma_pago="cuotas", **salary),
        acceptance(10, "trabajador_activo", 20_000, **salary),
    )
    assert results["cantidad_permitida"].to_list() == [10_000, 20_000]
    assert results["limite__ej-5.4"].to_list() == [10_000, None]
    assert instalments.summary == (
        "Reducida de 20.000 a 10.000 acciones por el límite Saldo financiado en cuotas: "
        f"$ 8.000.000 / (80 % financiado × $ 1.000) = 10.000 acciones ({EXAMPLE} art. 5.4), "
        f"en lotes de 10 acciones ({EXAMPLE} art. 3.2)."
    )
    assert cash.summary == "Aceptada por 20.000 acciones: ningún límite es menor."


def test_a_joint_cap_is_shared_among_its_group_before_the_offer_is_adjudicated() -> None:
    # Three pension funds whose limits leave 49.380 shares each: 148.140 together, above
    # 1 % of 9.876.543 (98.765 rounded down). The cap is prorated among them (66,67 %,
    # floored; the 2 shares left go one each to the earliest filed); the worker is untouched.
    funds = "fondo_pensiones_cesantias"
    demand = np.array([49_380, 25_000, 49_380, 49_380], dtype=np.int64)
    categories = [funds, "trabajador_activo", funds, funds]
    result = allocate_offer(demand, np.arange(demand.size), categories, 9_876_543, offer().program)
    assert result.awards.tolist() == [32_922, 25_000, 32_922, 32_921]
    assert sum(result.awards.tolist()[i] for i in (0, 2, 3)) == 98_765
    assert result.notes[0] == (
        "Tope conjunto «Fondos de pensiones y cesantías en conjunto» (Decreto de ejemplo "
        "art. 6.2): demanda válida del grupo de 148.140 acciones > tope de 98.765 acciones "
        "(1 % de las acciones ofrecidas, redondeado hacia abajo): el tope se reparte entre "
        "sus 3 aceptantes con el método del programa, antes de adjudicar la oferta."
    )
    assert result.notes[1] == (
        "«Fondos de pensiones y cesantías en conjunto»: Proporcional: cada aceptante recibe "
        "66,67 % de su cantidad, redondeado hacia abajo a acciones enteras."
    )


def test_a_group_within_its_joint_cap_is_not_reduced() -> None:
    demand = np.array([40_000, 30_000], dtype=np.int64)
    categories = ["fondo_pensiones_cesantias", "fondo_pensiones_cesantias"]
    result = allocate_offer(demand, np.arange(demand.size), categories, 9_876_543, offer().program)
    assert result.awards.tolist() == [40_000, 30_000]
    assert result.notes[0].endswith(
        "demanda válida del grupo de 70.000 acciones ≤ tope de 98.765 acciones (1 % de las "
        "acciones ofrecidas, redondeado hacia abajo): no se reduce."
    )


def test_the_instalment_schedule_of_an_award() -> None:
    # 10.007 shares × $ 1.000 = $ 10.007.000: 20 % down is $ 2.001.400; the $ 8.005.600 left
    # in 12 instalments is $ 667.133,33…: 4 of $ 667.133,34 and 8 of $ 667.133,33.
    program = offer().program
    plan = program.instalment_plan
    assert plan is not None
    schedule = instalment_schedule(10_007, 1_000 * PESOS, plan)
    assert schedule.down_payment == 2_001_400 * PESOS
    assert schedule.instalments == (66_713_334,) * 4 + (66_713_333,) * 8
    assert schedule.down_payment + sum(schedule.instalments) == schedule.total
    assert schedule_lines(program, schedule) == [
        f"Cuota inicial: 20 % de $ 10.007.000 = $ 2.001.400 ({EXAMPLE} art. 5.3).",
        "Saldo: $ 8.005.600 en 12 cuotas: 4 cuotas de $ 667.133,34 y 8 cuotas de "
        f"$ 667.133,33 ({EXAMPLE} art. 5.3).",
    ]


def batch_file(folder: Path) -> Path:
    """A broker's batch in the acceptance format: three pension funds, two workers (one
    paying in instalments)."""
    rows = [
        acceptance(1, "fondo_pensiones_cesantias", 60_000, limite_inversion="500000000"),
        acceptance(2, "trabajador_activo", 30_000, salario_mensual="2500000"),
        acceptance(3, "fondo_pensiones_cesantias", 60_000, limite_inversion="500000000"),
        acceptance(4, "fondo_pensiones_cesantias", 60_000, limite_inversion="500000000"),
        acceptance(5, "trabajador_activo", 20_000, forma_pago="cuotas", salario_mensual="5000000"),
    ]
    names = [c.name for c in COLUMNS]

    def cell(value: object) -> str:
        if value is True:
            return "si"
        if isinstance(value, datetime):
            return value.isoformat(timespec="minutes")
        return "" if value is None else str(value)

    lines = [",".join(names)]
    lines += [",".join(cell(row.get(name)) for name in names) for row in rows]
    path = folder / "lote.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_program_file_with_every_variation_runs_through_evaluation_adjudication_and_export(
    engine: Engine, db_url: str, tmp_path: Path
) -> None:
    window: dict[str, object] = {"fecha_aviso": "2018-01-02", "fecha_cierre": "2018-03-16"}
    with engine.begin() as conn:
        stored = create_offer(conn, "familia", str(FAMILY), window, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "apertura")
    import_batch(engine, "familia", batch_file(tmp_path), "Casa de Bolsa", "L1", "x")
    with engine.begin() as conn:
        advance(conn, load_offer(conn, "familia"), "cerrada", "oficina", "cierre")
    said = CliRunner().invoke(
        app, ["oferta", "adjudicar", "familia", "--db", db_url], env={"COLUMNS": "300"}
    )
    assert said.exit_code == 0, said.output
    assert "  Tope conjunto «Fondos de pensiones y cesantías en conjunto» (Decreto" in said.output
    done = stored_adjudication(engine, "familia")  # recomputed and checked against its hashes
    awarded = dict(done.results.select("radicado", "adjudicada").iter_rows())
    # Filing order: fund, worker, fund, fund, worker in instalments.
    assert list(awarded.values()) == [32_922, 25_000, 32_922, 32_921, 10_000]
    caps, notes = done.header["topes_conjuntos"], done.header["notas"]
    assert isinstance(caps, list) and isinstance(notes, list) and len(caps) == 1
    cap = caps[0]
    assert (cap["id"], cap["categorias"], cap["tope_acciones"], cap["demanda_grupo"]) == (
        "ej-6.2",
        ["fondo_pensiones_cesantias"],
        98_765,
        148_140,
    )
    assert cap["notas"][0].startswith("Tope conjunto «Fondos de pensiones y cesantías")
    assert notes[: len(cap["notas"])] == cap["notas"]  # the record's notes start with them
    publish(engine, "familia", "oficina", "publicación")
    package = offer_package(engine, "familia", "oficina").files
    folder = tmp_path / "paquete"
    folder.mkdir()
    for name, data in package.items():
        (folder / name).write_bytes(data)
    verdict = verify(folder)
    assert verdict.matches, verdict.message
    out = tmp_path / "salidas"
    exported = CliRunner().invoke(
        app, ["oferta", "exportar", "familia", "--salida", str(out), "--db", db_url]
    )
    assert exported.exit_code == 0, exported.output
    registry = pl.read_csv(out / "familia" / "registro-adjudicatarios.csv")
    # The worker paying in instalments: 10.000 shares, $ 10.000.000: $ 2.000.000 down and
    # 12 instalments of $ 666.666,67 (the first 8) and $ 666.666,66.
    plans = pl.read_csv(out / "familia" / "plan-cuotas.csv", schema_overrides={"monto": pl.String})
    assert plans["radicado"].unique().to_list() == [list(awarded)[4]]
    assert plans["pago"].to_list() == list(range(13))
    assert plans["monto"].to_list() == ["2000000.00"] + ["666666.67"] * 8 + ["666666.66"] * 4
    assert registry.height == 5
    report = (out / "familia" / "informe-adjudicacion.html").read_text(encoding="utf-8")
    assert "<h2>Topes conjuntos</h2>\n<p>Tope conjunto «Fondos de pensiones" in report
    pdf = pdf_text((out / "familia" / "informe-adjudicacion.pdf").read_bytes())
    assert "Topes conjuntos" in pdf and "Tope conjunto «Fondos de pensiones" in pdf
    assert registry["acciones"].sum() == 32_922 * 2 + 32_921 + 25_000 + 10_000


def refusals(tmp_path: Path, *edits: tuple[str, str]) -> list[str]:
    text = FAMILY.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text
        text = text.replace(old, new, 1)
    path = tmp_path / "programa.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProgramFileError) as exc:
        load_program_file(path)
    return [f"{e.path}: {e.message}" for e in exc.value.errors]


MAXIMUM = (
    '      monto_maximo_financiado: {valor: "8000000.00", cita: {norma: ejemplo, ref: art. 5.4}}\n'
)


def test_a_file_whose_variations_do_not_hold_together_is_refused_by_key_path(
    tmp_path: Path,
) -> None:
    assert refusals(
        tmp_path,
        ('  smmlv_2018: {valor: "781242.00", cita: {norma: d2269, ref: art. 1}}\n', ""),
        (MAXIMUM, ""),
        ("categorias: [fondo_pensiones_cesantias]", "categorias: [caja_compensacion]"),
    ) == [
        "limites[1].tope_smmlv: exige el parámetro 'smmlv_2018' (con su cita)",
        "limites[5].tope_financiado: no hay forma de pago 'cuotas' con 'monto_maximo_financiado'",
        "adjudicacion.topes_conjuntos[0].categorias: la categoría 'caja_compensacion' no está "
        "en el programa",
    ]


def test_a_maximum_financed_that_no_limit_applies_is_refused(tmp_path: Path) -> None:
    assert refusals(tmp_path, ("    tope_financiado: cuotas", '    tope_pesos: "8000000.00"')) == [
        "formas_de_pago[2].cuotas.monto_maximo_financiado: ningún límite lo aplica: falta un "
        "límite con 'tope_financiado: cuotas'"
    ]


def test_a_limit_of_two_kinds_and_a_plan_on_cash_are_refused(tmp_path: Path) -> None:
    found = refusals(
        tmp_path,
        ('    tope_pesos: "45000000.00"', '    tope_pesos: "45000000.00"\n    tope_acciones: 10'),
        (
            "  - {id: contado, cita: {norma: ejemplo, ref: art. 5.1}}",
            "  - {id: contado, cita: {norma: ejemplo, ref: art. 5.1}, cuotas: "
            "{cuota_inicial_porcentaje: {valor: 10, cita: {norma: ejemplo, ref: art. 5.1}}, "
            "numero_cuotas: {valor: 2, cita: {norma: ejemplo, ref: art. 5.1}}}}",
        ),
    )
    assert len(found) == 2
    assert found[0].startswith("limites[2]: un límite lleva 'multiplo' y 'base', o solo uno de:")
    assert found[1].startswith("formas_de_pago[0]: la forma de pago 'cuotas', y solo ella")


def test_a_minimum_salary_the_file_leaves_open_is_set_for_the_offer(tmp_path: Path) -> None:
    text = FAMILY.read_text(encoding="utf-8").replace(
        'smmlv_2018: {valor: "781242.00", cita:', "smmlv_2018: {cita:"
    )
    path = tmp_path / "programa.yaml"
    path.write_text(text, encoding="utf-8")
    program = load_program_file(path)
    frame = frame_from_rows([acceptance(1, "pensionado", 45_000)])
    with pytest.raises(OfferParameterError) as exc:
        CompiledProgram(make_offer(program)).evaluate(frame)
    assert exc.value.messages == [
        "Falta el parámetro de la oferta 'smmlv_2018' (salario mínimo mensual legal vigente "
        "de 2018; Decreto 2269/2017 art. 1), necesario para calcular el límite «Cincuenta "
        "salarios mínimos de 2018»."
    ]
    set_for_offer = make_offer(program, {"smmlv_2018": "781242"})
    decided = CompiledProgram(set_for_offer).evaluate(frame)
    assert decided["limite__ej-4.2"].to_list() == [39_062]


def test_the_guide_writes_each_variation_as_the_example_file_does() -> None:
    guide = (Path(__file__).parents[1] / "docs/nuevo-programa.md").read_text(encoding="utf-8")
    section = guide.split("## 7. Las variaciones de la familia")[1].split("## Anexo")[0]
    blocks = [part.split("```")[0] for part in section.split("```yaml\n")[1:]]
    assert len(blocks) == 7
    lines = set(FAMILY.read_text(encoding="utf-8").splitlines())
    for block in blocks:
        missing = [line for line in block.splitlines() if line not in lines]
        assert not missing, missing


def test_a_generated_population_is_explained_and_limited_as_the_references_do() -> None:
    params = {"fecha_aviso": "2017-12-22", "fecha_cierre": "2018-02-26"}
    program = str(FAMILY)
    frame = typed(generate(2_000, seed=5, program_id=program, params=params))
    compiled = CompiledProgram(make_offer(load_program_file(FAMILY), params))
    results = compiled.evaluate(frame)
    assert set(results["regla_limitante"].drop_nulls()) >= {"ej-4.2", "ej-4.3"}
    columnar = Explainer(compiled).columns(results, frame)
    assert columnar.equals(row_by_row_columns(compiled, frame))
    valid = results["decision"].cast(pl.String) != "rechazada"
    rows = frame.filter(valid).iter_rows(named=True)
    expected = [reference_evaluate(compiled.offer, row).permitted for row in rows]
    assert results.filter(valid)["cantidad_permitida"].to_list() == expected


def test_the_calculator_says_the_most_in_whole_lots_and_the_instalments_of_it() -> None:
    said = CliRunner().invoke(
        app,
        [
            "calcular",
            "-p",
            str(FAMILY),
            "--categoria",
            "trabajador_activo",
            "--salario-mensual",
            "5000000",
            "--forma-pago",
            "cuotas",
        ],
        env={"COLUMNS": "300"},
    )
    assert said.exit_code == 0, said.output
    lines = said.output.splitlines()
    assert lines[0] == "Puede comprar hasta 10.000 acciones."
    assert lines[-2:] == [
        f"  • Cuota inicial: 20 % de $ 10.000.000 = $ 2.000.000 ({EXAMPLE} art. 5.3).",
        "  • Saldo: $ 8.000.000 en 12 cuotas: 8 cuotas de $ 666.666,67 y 4 cuotas de "
        f"$ 666.666,66 ({EXAMPLE} art. 5.3).",
    ]


def test_coverage_cannot_say_a_variation_the_file_writes_is_not_modelled(tmp_path: Path) -> None:
    entry = (
        "  - disposicion: Fechas de vencimiento de las cuotas mensuales\n"
        "    cita: {norma: ejemplo, ref: art. 5.3}\n"
    )
    for section in ("adjudicacion.topes_conjuntos", "validez.lote", "validez.cantidad_minima"):
        assert refusals(tmp_path, (entry, entry + f"    seccion: {section}\n")) == [
            f"no_modelado[0].seccion: el archivo modela '{section}': la cobertura no puede "
            "decir que no"
        ]
