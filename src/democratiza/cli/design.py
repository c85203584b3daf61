"""``democratiza simular``: designs of a program compared on one population."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from democratiza.cli.common import fail, refuse_file
from democratiza.design.designs import DesignError, load_designs
from democratiza.design.sources import from_file, from_offer, from_spec
from democratiza.storage.database import make_engine
from democratiza.tables.errors import InputRejected

console = Console()


def simulate_command(
    disenos: Annotated[Path, typer.Argument(help="Archivo de diseños (YAML)")],
    poblacion: Annotated[
        Path | None, typer.Option(help="Población sintética: archivo de parámetros (YAML)")
    ] = None,
    aceptaciones: Annotated[
        Path | None, typer.Option(help="Población: un archivo de aceptaciones (CSV, XLSX, JSON)")
    ] = None,
    oferta: Annotated[
        str | None, typer.Option(help="Población: las aceptaciones vigentes de una oferta")
    ] = None,
    db: Annotated[str | None, typer.Option(help="Base de datos de la oferta")] = None,
    salida: Annotated[Path, typer.Option("--salida", "-o", help="Carpeta de salida")] = Path(
        "salidas/simulacion"
    ),
) -> None:
    """Compara diseños de un programa sobre una misma población, con las reglas y la
    adjudicación de una oferta real: colocación, reducidas, prorrateadas, adjudicatarios,
    concentración (Gini) y lo que pasa a la Segunda Etapa."""
    from democratiza.design.simulate import simulate
    from democratiza.reports.design_comparison import comparison_rows, design_figures
    from democratiza.reports.design_report import write_report

    sources = [s for s in (poblacion, aceptaciones, oferta) if s is not None]
    if len(sources) != 1:
        raise fail(["use --poblacion, --aceptaciones o --oferta"], "Indique una sola población:")
    try:
        designs = load_designs(disenos)
    except DesignError as exc:
        raise fail([str(exc)], "Archivo de diseños no válido:") from None
    try:
        if poblacion is not None:
            rows = from_spec(poblacion, designs[0])
        elif aceptaciones is not None:
            rows = from_file(aceptaciones)
        else:
            assert oferta is not None
            rows = from_offer(make_engine(db), oferta)
    except InputRejected as exc:
        raise refuse_file(exc, "El archivo de aceptaciones") from None
    except (OSError, ValueError) as exc:
        raise fail([str(exc)], "No se pudo leer la población:") from None
    results = [design_figures(outcome) for outcome in simulate(rows, designs)]
    table = Table(title=f"Diseños comparados sobre {rows.height:,} aceptantes".replace(",", "."))
    table.add_column("Cifra", overflow="fold")
    for result in results:
        table.add_column(result.name, justify="right", overflow="fold")
    for label, values in comparison_rows(results):
        table.add_row(label, *values)
    console.print(table)
    program = designs[0].offer.program.name
    for path in write_report(results, program, salida):
        console.print(f"Escrito: {path}", highlight=False)
