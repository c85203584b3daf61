"""Designs side by side: the same figures an adjudication report gives, one column a design.

Every figure comes from ``adjudication_figures.figures``, the function that computes a real
offer's report, on each design's awards (``design.simulate``): placement, valid demand,
reductions and the limit that made each, prorations and their average cut, new
shareholders, awards by category, the Gini coefficient and the top 1 %'s share, and what
passes to the Segunda Etapa. The rows are text for people (the CLI's table, the CSV, the
page and the PDF all show these very rows).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import polars as pl

from democratiza.design.simulate import DesignOutcome
from democratiza.labels import label, rule_cited
from democratiza.money import fixed, group, share_percent
from democratiza.programs.schema import Program
from democratiza.reports.adjudication_figures import ReportFigures, checked_awards, figures
from democratiza.reports.render.text import wrap
from democratiza.tables.cells import csv_bytes
from democratiza.words import word

GINI_PLACES = 4


@dataclass(frozen=True)
class DesignFigures:
    name: str
    changes: str  # the design's changes, as written in the designs file
    figures: ReportFigures
    average_cut: Fraction | None  # of the prorated acceptances: (permitted − awarded) / permitted
    binding: dict[str, int]  # reduced acceptances by the name of the limit that bound them
    method: str  # the allocation method's id
    program: Program

    @property
    def allocation_words(self) -> str:
        """The method and its remainder rule as a person reads them."""
        rule = self.program.allocation
        return (
            f"{label('metodo', rule.method)}; remanente: {label('residuo', rule.remainder).lower()}"
        )


def design_figures(outcome: DesignOutcome) -> DesignFigures:
    design = outcome.design
    program = design.offer.program
    awards = checked_awards(outcome.results, outcome.offered)
    found = figures(awards, outcome.offered, design.offer.price_centavos)
    # Only the columns read are filtered: the awards have many more.
    prorated = (pl.col("decision") != "rechazada") & (
        pl.col("adjudicada") < pl.col("cantidad_permitida")
    )
    cuts = awards.select(
        prorated.sum().alias("n"),
        ((pl.col("cantidad_permitida") - pl.col("adjudicada")).cast(pl.Int128))
        .filter(prorated)
        .sum()
        .alias("cut"),
        pl.col("cantidad_permitida").cast(pl.Int128).filter(prorated).sum().alias("of"),
    ).row(0)
    average_cut = Fraction(int(cuts[1]), int(cuts[2])) if cuts[0] else None
    names = {r.id: r.name for r in program.limits}
    binding = {
        names.get(rule, rule): n
        for rule, n in awards.select("decision", "regla_limitante")
        .filter(pl.col("decision") == "reducida")
        .group_by("regla_limitante")
        .len()
        .sort(["len", "regla_limitante"], descending=[True, False])
        .iter_rows()
    }
    changes = (
        "; ".join(change_words(program, k, v) for k, v in design.changes.items()) or NO_CHANGES
    )
    method = program.allocation.method
    return DesignFigures(design.name, changes, found, average_cut, binding, method, program)


# Changes whose value is an identifier of the family: shown by its word.
WORDED_CHANGES = {"adjudicacion.metodo": "metodo", "adjudicacion.residuo": "residuo"}


NO_CHANGES = "ninguno (base)"
CHANGES_ROW = "Cambios frente al programa"


def change_words(program: Program, key: str, value: object) -> str:
    """A design's change in the decree's words, not its key path in the designs file:
    '«Tope absoluto por persona natural» (… A.2(iii)), tope en acciones: 183.900',
    'Método de adjudicación: Proporcional a lo permitido', 'Precio por acción: 2500.00'.
    A path with no words (a field no table names) is shown as the file writes it."""
    shown = group(value) if isinstance(value, int) and not isinstance(value, bool) else str(value)
    head, _, rest = key.partition(".")
    if head == "limites":
        for rule in program.limits:
            if rest.startswith(rule.id + "."):
                field = rest.removeprefix(rule.id + ".").split(".")[0]
                return f"{rule_cited(program, rule.id)}, {word('campo_programa', field)}: {shown}"
    if head == "adjudicacion" and "." not in rest:
        kind = WORDED_CHANGES.get(key)
        return f"{word('campo_programa', rest)}: {label(kind, value) if kind else shown}"
    parameter = rest.removesuffix(".valor") if head == "parametros" else rest
    if head in ("oferta", "parametros") and "." not in parameter:
        return f"{label('parametro', parameter)}: {shown}"
    return f"{key} = {shown}"


def _percent(value: Fraction | None) -> str:
    return share_percent(value) if value is not None else "—"


def comparison_rows(designs: list[DesignFigures]) -> list[tuple[str, list[str]]]:
    """(what, one text per design), in the order a reader compares them."""

    def row(label: str, values: list[str]) -> tuple[str, list[str]]:
        return label, values

    f = [d.figures for d in designs]
    limits = sorted({name for d in designs for name in d.binding})
    categories = sorted({c.categoria for x in f for c in x.por_categoria})
    names: dict[str, str] = {c.id: c.name for d in designs for c in d.program.categories}
    rows = [
        row(CHANGES_ROW, [d.changes for d in designs]),
        row("Método de adjudicación", [d.allocation_words for d in designs]),
        row(
            "Acciones ofrecidas",
            [group(x.acciones_adjudicadas + x.acciones_no_adjudicadas) for x in f],
        ),
        row("Acciones adjudicadas", [group(x.acciones_adjudicadas) for x in f]),
        row("Porcentaje de la oferta colocado", [share_percent(x.colocacion) for x in f]),
        row("Demanda válida (acciones permitidas)", [group(x.acciones_permitidas) for x in f]),
        row("Aceptaciones reducidas", [group(x.reducidas) for x in f]),
        *(
            row(f"  reducidas por «{name}»", [group(d.binding.get(name, 0)) for d in designs])
            for name in limits
        ),
        row("Aceptaciones rechazadas", [group(x.rechazadas) for x in f]),
        row("Aceptaciones prorrateadas", [group(x.prorrateadas) for x in f]),
        row("Recorte promedio de las prorrateadas", [_percent(d.average_cut) for d in designs]),
        row("Adjudicatarios (nuevos accionistas)", [group(x.nuevos_accionistas) for x in f]),
        *(
            row(
                f"Acciones adjudicadas: {names.get(category, category)}",
                [
                    group(
                        next(
                            (
                                c.acciones_adjudicadas
                                for c in x.por_categoria
                                if c.categoria == category
                            ),
                            0,
                        )
                    )
                    for x in f
                ],
            )
            for category in categories
        ),
        row(
            "Coeficiente de Gini de las adjudicaciones",
            [fixed(x.gini, GINI_PLACES) if x.gini is not None else "—" for x in f],
        ),
        row("Participación del 1 % con más acciones", [_percent(x.top1_participacion) for x in f]),
        row("Acciones que pasan a la Segunda Etapa", [group(x.acciones_no_adjudicadas) for x in f]),
    ]
    return rows


def comparison_csv(designs: list[DesignFigures]) -> bytes:
    """The comparison as CSV: one row a figure, one column a design (text as shown)."""
    rows = comparison_rows(designs)
    frame = pl.DataFrame(
        {"cifra": [label for label, _ in rows]}
        | {d.name: [values[i] for _, values in rows] for i, d in enumerate(designs)}
    )
    return csv_bytes(frame)


def short(name: str) -> str:
    """A design's name as a chart's legend shows it."""
    return wrap(name, 28)
