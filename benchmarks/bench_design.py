"""The program designer: ten designs compared on a population of a million acceptants.

The population is ``examples/simulacion/poblacion-nacional.yaml`` scaled to ``--n``
acceptants (the same proportions); the ten designs vary the multiples, a cap, the price,
the shares offered and the method of GEB's program. What is timed is what ``democratiza
simular`` does once the population exists: each design's evaluation, per-person limits and
allocation (``design.simulate``) and its figures (``reports.design_comparison``). The
population's drawing is timed apart.

    python benchmarks/bench_design.py [--n 1000000] [--veces 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import yaml

from democratiza.design.designs import load_designs
from democratiza.design.population import PopulationSpec, load_population_spec, population
from democratiza.design.simulate import requested, simulate
from democratiza.money import group
from democratiza.reports.design_comparison import design_figures

ROOT = Path(__file__).parents[1]
SPEC = ROOT / "examples" / "simulacion" / "poblacion-nacional.yaml"
TARGET_SECONDS = 10.0
OFFER = {"trm": "2984.00", "fecha_aviso": "2017-12-22", "fecha_cierre": "2018-02-26"}
DESIGNS = [
    {"nombre": "Decreto"},
    {"nombre": "Patrimonio × 2", "cambios": {"limites.geb-8.2.1.multiplo": 2}},
    {"nombre": "Ingresos × 3", "cambios": {"limites.geb-8.2.2.multiplo": 3}},
    {"nombre": "Tope 1.000.000", "cambios": {"limites.geb-10.1.tope_acciones": 1_000_000}},
    {"nombre": "Precio 2.500", "cambios": {"oferta.precio": "2500.00"}},
    {"nombre": "Oferta de 200 M", "cambios": {"parametros.acciones_ofrecidas.valor": 200_000_000}},
    {
        "nombre": "200 M proporcional",
        "cambios": {
            "parametros.acciones_ofrecidas.valor": 200_000_000,
            "adjudicacion.metodo": "proporcional",
        },
    },
    {
        "nombre": "200 M lineal 30 %",
        "cambios": {
            "parametros.acciones_ofrecidas.valor": 200_000_000,
            "adjudicacion.metodo": "lineal_proporcional",
            "adjudicacion.porcentaje_lineal": 30,
        },
    },
    {
        "nombre": "200 M, lotes de 100",
        "cambios": {
            "parametros.acciones_ofrecidas.valor": 200_000_000,
            "adjudicacion.lote_acciones": 100,
        },
    },
    {
        "nombre": "200 M, residuo al mayor",
        "cambios": {
            "parametros.acciones_ofrecidas.valor": 200_000_000,
            "adjudicacion.residuo": "mayor_solicitud",
        },
    },
]


def scaled(spec: PopulationSpec, n: int) -> PopulationSpec:
    total = sum(spec.counts.values())
    counts = {c: max(1, k * n // total) if k else 0 for c, k in spec.counts.items()}
    return spec.model_copy(update={"counts": counts})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--veces", type=int, default=3)
    args = parser.parse_args()
    spec = scaled(load_population_spec(SPEC), args.n)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "disenos.yaml"
        path.write_text(
            yaml.safe_dump({"programa": "geb-2017", "oferta": OFFER, "disenos": DESIGNS}),
            encoding="utf-8",
        )
        designs = load_designs(path)
    start = time.perf_counter()
    share = spec.request.share_of_limit
    rows = requested(population(spec), designs[0].offer, share.low, share.high, spec.seed)
    drawn = time.perf_counter() - start
    print(f"{group(rows.height)} aceptantes, {len(designs)} diseños")
    print(f"población sintética (sorteo y solicitudes): {drawn:.2f} s")
    rounds, phases = [], []
    for _ in range(args.veces):
        start = time.perf_counter()
        outcomes = simulate(rows, designs)
        simulated = time.perf_counter()
        found = [design_figures(outcome) for outcome in outcomes]
        done = time.perf_counter()
        rounds.append(done - start)
        phases.append((simulated - start, done - simulated))
    median = statistics.median(rounds)
    verdict = "cumple" if median <= TARGET_SECONDS else "NO CUMPLE"
    print(
        f"{len(found)} diseños simulados y medidos: mediana {median:.2f} s "
        f"(mín. {min(rounds):.2f}, máx. {max(rounds):.2f})   meta ≤ {TARGET_SECONDS:.0f} s   "
        f"{verdict}"
    )
    print(
        f"  simulación (evaluación, límites por persona, adjudicación): mediana "
        f"{statistics.median(p[0] for p in phases):.2f} s\n"
        f"  cifras de los diseños: mediana {statistics.median(p[1] for p in phases):.2f} s"
    )


if __name__ == "__main__":
    main()
