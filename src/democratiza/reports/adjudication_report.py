"""Adjudication report: figures of an adjudication, as a self-contained HTML page and a PDF.

The figures are exact (integers and fractions, computed with polars); only the charts use
floating point, to draw. Everything the reader sees is in Spanish, with Colombian numbers
(118.929 acciones; $ 2.018,50; 53,14 %). The same input gives the same bytes: chart ids are
salted with a fixed string and the files carry no creation date.
"""

from __future__ import annotations

import html
import io
import os
import re
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib
import polars as pl
from jinja2 import Environment, StrictUndefined
from markupsafe import Markup
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure
from matplotlib.table import Table
from matplotlib.ticker import FuncFormatter, MaxNLocator
from matplotlib.transforms import Bbox
from matplotlib.typing import RcKeyType

from democratiza.money import fixed, group, pesos, share_percent
from democratiza.offers.lifecycle import StoredOffer

if TYPE_CHECKING:
    from democratiza.adjudication.record import Adjudication

AWARD_COLUMNS: dict[str, type[pl.DataType]] = {
    "radicado": pl.String,
    "comisionista": pl.String,
    "numero_identificacion": pl.String,
    "categoria": pl.String,
    "cantidad": pl.Int64,
    "cantidad_permitida": pl.Int64,
    "decision": pl.String,
    "regla_limitante": pl.String,
    "adjudicada": pl.Int64,
}
OPTIONAL_COLUMNS: dict[str, type[pl.DataType]] = {"tipo_identificacion": pl.String}
DECISION_VALUES = ("aceptada", "reducida", "rechazada")
LORENZ_POINTS = 400  # the curve is drawn through at most this many exact points
MONTHS = (
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
)
SALT = "democratiza"
A4 = (8.27, 11.69)
COLORS = {"solicitadas": "#a6bddb", "permitidas": "#3690c0", "adjudicadas": "#034e7b"}
BAR = "#3690c0"
DARK = "#034e7b"


class ReportInputError(ValueError):
    pass


@dataclass(frozen=True, eq=False)
class ReportInput:
    """One program's adjudication: the offer and one row per acceptance with its award.

    ``nombres_categorias`` and ``nombres_reglas`` give readable names to the ids of
    categories and limits (for instance from the program file); an id without a name is shown
    as it is, with its underscores as spaces.

    A person is a ``numero_identificacion``; when the frame also has ``tipo_identificacion``
    (as the engine's results do), a person is the pair, as in the rules.
    """

    programa_id: str
    programa_nombre: str
    acciones_ofrecidas: int
    precio_centavos: int
    fecha_aviso: date
    fecha_cierre: date
    metodo: str
    regla_remanente: str
    hash_entrada: str
    awards: pl.DataFrame
    nombres_categorias: Mapping[str, str] = field(default_factory=dict)
    nombres_reglas: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        missing = [c for c in AWARD_COLUMNS if c not in self.awards.columns]
        if missing:
            raise ReportInputError(f"faltan columnas en las adjudicaciones: {missing}")
        if self.acciones_ofrecidas <= 0 or self.precio_centavos <= 0:
            raise ReportInputError("las acciones ofrecidas y el precio deben ser positivos")
        # Enum columns from the engine and any integer width become the plain types.
        types = {
            **AWARD_COLUMNS,
            **{c: t for c, t in OPTIONAL_COLUMNS.items() if c in self.awards.columns},
        }
        typed = self.awards.select(pl.col(c).cast(t) for c, t in types.items())
        object.__setattr__(self, "awards", typed)
        nulls = [c for c in types if c != "regla_limitante" and typed[c].null_count() > 0]
        if nulls:
            raise ReportInputError(f"columnas con valores vacíos: {nulls}")
        unknown = set(typed["decision"].unique().to_list()) - set(DECISION_VALUES)
        if unknown:
            raise ReportInputError(f"decisiones desconocidas: {sorted(unknown)}")
        bad = typed.filter(
            (pl.col("adjudicada") < 0)
            | (pl.col("adjudicada") > pl.col("cantidad_permitida"))
            | ((pl.col("decision") == "rechazada") & (pl.col("adjudicada") != 0))
        )
        if bad.height:
            raise ReportInputError(
                "adjudicaciones negativas, mayores que la cantidad permitida o de aceptaciones "
                f"rechazadas: radicados {bad['radicado'].head(5).to_list()}"
            )
        awarded = int(typed["adjudicada"].sum())
        if awarded > self.acciones_ofrecidas:
            raise ReportInputError(
                f"se adjudican {group(awarded)} acciones y solo se ofrecen "
                f"{group(self.acciones_ofrecidas)}"
            )


def report_input(stored: StoredOffer, done: Adjudication) -> ReportInput:
    """The report's input for a stored offer and its adjudication (CLI and web alike)."""
    program, offer = stored.program, stored.offer
    announced, closing = offer.day("fecha_aviso"), offer.day("fecha_cierre")
    shares = offer.values.get("acciones_ofrecidas")
    assert announced and closing and isinstance(shares, int)
    return ReportInput(
        programa_id=program.id,
        programa_nombre=program.name,
        acciones_ofrecidas=shares,
        precio_centavos=offer.price_centavos,
        fecha_aviso=announced,
        fecha_cierre=closing,
        metodo=program.allocation.method,
        regla_remanente=program.allocation.remainder,
        hash_entrada=str(done.header["huella_entradas"]),
        awards=done.results,
        nombres_categorias={c.id: c.name for c in program.categories},
        nombres_reglas={r.id: r.name for r in program.limits},
    )


@dataclass(frozen=True)
class CategoryFigures:
    categoria: str
    aceptaciones: int
    rechazadas: int
    acciones_solicitadas: int
    acciones_permitidas: int
    acciones_adjudicadas: int
    adjudicatarios: int  # distinct identification numbers with shares in this category


@dataclass(frozen=True)
class LimitFigures:
    regla: str
    aceptaciones: int  # acceptances whose permitted quantity this limit determined
    acciones_recortadas: int  # requested minus permitted, over those acceptances


@dataclass(frozen=True)
class HistogramBin:
    desde: int  # inclusive
    hasta: int  # inclusive
    adjudicaciones: int  # acceptances awarded between desde and hasta shares
    acciones: int


@dataclass(frozen=True)
class LorenzPoint:
    personas: int  # awardees with the fewest shares, counted from the smallest
    acciones: int  # the shares they received together


@dataclass(frozen=True)
class ReportFigures:
    aceptaciones: int
    aceptadas: int
    reducidas: int
    rechazadas: int
    acciones_solicitadas: int
    acciones_permitidas: int
    acciones_adjudicadas: int
    acciones_no_adjudicadas: int
    valor_adjudicado_centavos: int
    demanda_sobre_oferta: Fraction  # requested / offered: above 1 is oversubscription
    demanda_admisible_sobre_oferta: Fraction  # permitted / offered
    colocacion: Fraction  # awarded / offered
    nuevos_accionistas: int  # distinct people (identification numbers) with shares awarded
    adjudicaciones: int  # acceptances with shares awarded
    prorrateadas: int  # not rejected, yet awarded less than permitted
    por_categoria: tuple[CategoryFigures, ...]
    limites: tuple[LimitFigures, ...]
    sin_limite: int  # acceptances with no binding limit
    histograma: tuple[HistogramBin, ...]
    lorenz: tuple[LorenzPoint, ...]  # from (0, 0) to (n, total)
    deciles: tuple[LorenzPoint, ...]  # the poorest 10 %, 20 %, ..., 100 % of awardees
    gini: Fraction | None  # None without awardees
    top1_personas: int  # ceil(1 % of the awardees)
    top1_participacion: Fraction | None
    top10_personas: int  # ceil(10 % of the awardees)
    top10_participacion: Fraction | None


# ---------------------------------------------------------------------------------- figures


def build_figures(inp: ReportInput) -> ReportFigures:
    a = inp.awards
    offered = inp.acciones_ofrecidas
    awarded_rows = a.filter(pl.col("adjudicada") > 0)
    person = [c for c in ("tipo_identificacion", "numero_identificacion") if c in a.columns]
    totals = a.select(
        pl.len().alias("n"),
        *((pl.col("decision") == d).sum().alias(d) for d in DECISION_VALUES),
        pl.col("cantidad").sum().alias("solicitadas"),
        pl.col("cantidad_permitida").sum().alias("permitidas"),
        pl.col("adjudicada").sum().alias("adjudicadas"),
        (
            (pl.col("decision") != "rechazada")
            & (pl.col("adjudicada") < pl.col("cantidad_permitida"))
        )
        .sum()
        .alias("prorrateadas"),
        pl.col("regla_limitante").is_null().sum().alias("sin_limite"),
    ).row(0, named=True)
    requested, permitted, awarded = (
        int(totals["solicitadas"] or 0),
        int(totals["permitidas"] or 0),
        int(totals["adjudicadas"] or 0),
    )

    by_category = (
        a.group_by("categoria")
        .agg(
            pl.len().alias("aceptaciones"),
            (pl.col("decision") == "rechazada").sum().alias("rechazadas"),
            pl.col("cantidad").sum().alias("solicitadas"),
            pl.col("cantidad_permitida").sum().alias("permitidas"),
            pl.col("adjudicada").sum().alias("adjudicadas"),
            pl.struct(person).filter(pl.col("adjudicada") > 0).n_unique().alias("adjudicatarios"),
        )
        .sort(["solicitadas", "categoria"], descending=[True, False])
    )
    limits = (
        a.filter(pl.col("regla_limitante").is_not_null())
        .group_by("regla_limitante")
        .agg(
            pl.len().alias("aceptaciones"),
            (pl.col("cantidad") - pl.col("cantidad_permitida")).sum().alias("recortadas"),
        )
        .sort(["aceptaciones", "regla_limitante"], descending=[True, False])
    )

    people = (
        awarded_rows.group_by(person)
        .agg(pl.col("adjudicada").sum())
        .sort("adjudicada")["adjudicada"]
    )
    n = people.len()
    cumulative = people.cum_sum().to_list()

    def cum(k: int) -> int:
        return int(cumulative[k - 1]) if k else 0

    def top_share(percent: int) -> tuple[int, Fraction | None]:
        k = -(-n * percent // 100)  # ceil: at least one awardee when there are any
        return k, (Fraction(awarded - cum(n - k), awarded) if n else None)

    top1 = top_share(1)
    top10 = top_share(10)
    lorenz_at = sorted({(j * n) // LORENZ_POINTS for j in range(LORENZ_POINTS + 1)} | {n})
    return ReportFigures(
        aceptaciones=int(totals["n"]),
        aceptadas=int(totals["aceptada"]),
        reducidas=int(totals["reducida"]),
        rechazadas=int(totals["rechazada"]),
        acciones_solicitadas=requested,
        acciones_permitidas=permitted,
        acciones_adjudicadas=awarded,
        acciones_no_adjudicadas=offered - awarded,
        valor_adjudicado_centavos=awarded * inp.precio_centavos,
        demanda_sobre_oferta=Fraction(requested, offered),
        demanda_admisible_sobre_oferta=Fraction(permitted, offered),
        colocacion=Fraction(awarded, offered),
        nuevos_accionistas=n,
        adjudicaciones=awarded_rows.height,
        prorrateadas=int(totals["prorrateadas"]),
        por_categoria=tuple(
            CategoryFigures(
                categoria=r["categoria"],
                aceptaciones=int(r["aceptaciones"]),
                rechazadas=int(r["rechazadas"]),
                acciones_solicitadas=int(r["solicitadas"]),
                acciones_permitidas=int(r["permitidas"]),
                acciones_adjudicadas=int(r["adjudicadas"]),
                adjudicatarios=int(r["adjudicatarios"]),
            )
            for r in by_category.iter_rows(named=True)
        ),
        limites=tuple(
            LimitFigures(r["regla_limitante"], int(r["aceptaciones"]), int(r["recortadas"]))
            for r in limits.iter_rows(named=True)
        ),
        sin_limite=int(totals["sin_limite"]),
        histograma=_histogram(awarded_rows["adjudicada"]),
        lorenz=tuple(LorenzPoint(k, cum(k)) for k in lorenz_at),
        deciles=tuple(LorenzPoint(n * p // 100, cum(n * p // 100)) for p in range(10, 101, 10)),
        gini=_gini(people),
        top1_personas=top1[0],
        top1_participacion=top1[1],
        top10_personas=top10[0],
        top10_participacion=top10[1],
    )


def _gini(ascending: pl.Series) -> Fraction | None:
    """G = 2·Σ i·x_i / (n·Σx) − (n+1)/n over the awards sorted from the smallest, i from 1."""
    n = ascending.len()
    if n == 0:
        return None
    frame = pl.DataFrame({"x": ascending.cast(pl.Int128)}).with_row_index("i", offset=1)
    sums = frame.select(
        (pl.col("i").cast(pl.Int128) * pl.col("x")).sum().alias("ix"),
        pl.col("x").sum().alias("x"),
    ).row(0)
    weighted, total = int(sums[0]), int(sums[1])
    return Fraction(2 * weighted, n * total) - Fraction(n + 1, n)


def _edges(upto: int) -> list[int]:
    """1, 2, 5, 10, 20, 50, ...: three bins a decade, a log scale of whole shares."""
    edges, scale = [], 1
    while True:
        for step in (1, 2, 5):
            edges.append(step * scale)
            if step * scale > upto:
                return edges
        scale *= 10


def _histogram(shares: pl.Series) -> tuple[HistogramBin, ...]:
    if shares.len() == 0:
        return ()
    edges = _edges(int(shares.max()))  # type: ignore[arg-type]
    index = pl.Series("edges", edges, dtype=pl.Int64).search_sorted(shares, side="right") - 1
    counted = (
        pl.DataFrame({"bin": index, "x": shares})
        .group_by("bin")
        .agg(pl.len().alias("n"), pl.col("x").sum().alias("acciones"))
    )
    found = {int(r[0]): (int(r[1]), int(r[2])) for r in counted.iter_rows()}
    first, last = min(found), max(found)
    return tuple(
        HistogramBin(edges[b], edges[b + 1] - 1, *found.get(b, (0, 0)))
        for b in range(first, last + 1)
    )


# ------------------------------------------------------------------------------ formatting


def long_date(d: date) -> str:
    return f"{d.day} de {MONTHS[d.month - 1]} de {d.year}"


def shares_range(b: HistogramBin) -> str:
    return group(b.desde) if b.desde == b.hasta else f"{group(b.desde)} a {group(b.hasta)}"


def _category(names: Mapping[str, str], key: str) -> str:
    """A category's name, or its id made readable: 'fondo_empleados' -> 'Fondo empleados'."""
    return names.get(key) or key.replace("_", " ").capitalize()


def _rule(names: Mapping[str, str], key: str) -> str:
    """A limit's name with its id, which the decision files show: 'Una vez… (geb-8.2.1)'."""
    return f"{names[key]} ({key})" if names.get(key) else key


@dataclass(frozen=True)
class _Table:
    caption: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: tuple[bool, ...]  # right-aligned columns
    total: bool = False  # the last row is a total


@dataclass(frozen=True)
class _Chart:
    key: str
    title: str
    caption: str
    draw: Callable[[Axes], None]
    size: tuple[float, float]
    table: _Table


def _offer_rows(inp: ReportInput) -> list[tuple[str, str]]:
    return [
        ("Programa", f"{inp.programa_nombre} ({inp.programa_id})"),
        ("Acciones ofrecidas", group(inp.acciones_ofrecidas)),
        ("Precio por acción", pesos(inp.precio_centavos)),
        ("Valor de la oferta", pesos(inp.acciones_ofrecidas * inp.precio_centavos)),
        ("Fecha del aviso de oferta", long_date(inp.fecha_aviso)),
        ("Fecha de cierre", long_date(inp.fecha_cierre)),
        ("Método de adjudicación", inp.metodo),
        ("Regla del remanente", inp.regla_remanente),
        ("Huella de los datos de entrada", inp.hash_entrada),
    ]


def _ratio(value: Fraction) -> str:
    if value == 1:
        return "1,00 veces la oferta (demanda igual a la oferta)"
    return f"{fixed(value, 2)} veces la oferta ({'sobredemanda' if value > 1 else 'subdemanda'})"


def _result_rows(f: ReportFigures) -> list[tuple[str, str]]:
    return [
        ("Aceptaciones recibidas", group(f.aceptaciones)),
        (
            "Aceptadas / reducidas / rechazadas",
            f"{group(f.aceptadas)} / {group(f.reducidas)} / {group(f.rechazadas)}",
        ),
        ("Acciones solicitadas", group(f.acciones_solicitadas)),
        ("Demanda sobre oferta", _ratio(f.demanda_sobre_oferta)),
        ("Acciones permitidas por las reglas", group(f.acciones_permitidas)),
        ("Demanda admisible sobre oferta", _ratio(f.demanda_admisible_sobre_oferta)),
        ("Acciones adjudicadas", group(f.acciones_adjudicadas)),
        ("Porcentaje de la oferta colocado", share_percent(f.colocacion)),
        ("Acciones no adjudicadas", group(f.acciones_no_adjudicadas)),
        ("Valor adjudicado", pesos(f.valor_adjudicado_centavos)),
        ("Aceptaciones con acciones adjudicadas", group(f.adjudicaciones)),
        ("Adjudicadas por debajo de la cantidad permitida", group(f.prorrateadas)),
        ("Nuevos accionistas", group(f.nuevos_accionistas)),
        ("Coeficiente de Gini de las adjudicaciones", _gini_text(f.gini)),
        (
            f"Participación del 1 % con más acciones ({_people(f.top1_personas)})",
            share_percent(f.top1_participacion),
        ),
    ]


def _people(n: int) -> str:
    return "1 adjudicatario" if n == 1 else f"{group(n)} adjudicatarios"


def _gini_text(gini: Fraction | None) -> str:
    return "—" if gini is None else fixed(gini, 4)


# ----------------------------------------------------------------------------------- charts


def _int_axis(axis: str, ax: Axes) -> None:
    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_locator(MaxNLocator(integer=True, nbins=6))
    target.set_major_formatter(FuncFormatter(lambda v, _: group(round(v))))


def _style(ax: Axes) -> None:
    ax.spines[["top", "right"]].set_visible(False)
    ax.tick_params(labelsize=9)


def _empty(ax: Axes, text: str) -> None:
    ax.set_axis_off()
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize=11, color="#555555")


def wrap(text: str, width: int = 30) -> str:
    return "\n".join(textwrap.wrap(text, width)) or text


def _tick(text: str, width: int = 30, lines: int = 2) -> str:
    """An axis label: wrapped and cut to ``lines`` lines so long names never overlap (the
    table under each chart carries the full names)."""
    wrapped = textwrap.wrap(text, width) or [text]
    if len(wrapped) > lines:
        wrapped = [*wrapped[: lines - 1], textwrap.shorten(" ".join(wrapped[lines - 1 :]), width)]
    return "\n".join(wrapped)


def _draw_categories(inp: ReportInput, f: ReportFigures) -> Callable[[Axes], None]:
    def draw(ax: Axes) -> None:
        rows = f.por_categoria
        if not rows:
            _empty(ax, "No hay aceptaciones.")
            return
        height = 0.27
        series = (
            ("Solicitadas", COLORS["solicitadas"], [r.acciones_solicitadas for r in rows]),
            (
                "Permitidas por las reglas",
                COLORS["permitidas"],
                [r.acciones_permitidas for r in rows],
            ),
            ("Adjudicadas", COLORS["adjudicadas"], [r.acciones_adjudicadas for r in rows]),
        )
        for j, (label, color, values) in enumerate(series):
            ax.barh(
                [i + (j - 1) * height for i in range(len(rows))],
                values,
                height=height,
                color=color,
                label=label,
            )
        ax.set_yticks(
            range(len(rows)), [_tick(_category(inp.nombres_categorias, r.categoria)) for r in rows]
        )
        ax.invert_yaxis()
        _int_axis("x", ax)
        ax.set_xlabel("Acciones")
        ax.grid(axis="x", color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=3, frameon=False, fontsize=9)
        _style(ax)

    return draw


def _draw_limits(inp: ReportInput, f: ReportFigures) -> Callable[[Axes], None]:
    def draw(ax: Axes) -> None:
        rows = f.limites
        if not rows:
            _empty(ax, "Ningún límite determinó la cantidad de una aceptación.")
            return
        counts = [r.aceptaciones for r in rows]
        bars = ax.barh(range(len(rows)), counts, height=0.6, color=BAR)
        ax.set_yticks(range(len(rows)), [_tick(_rule(inp.nombres_reglas, r.regla)) for r in rows])
        ax.invert_yaxis()
        ax.bar_label(bars, [group(c) for c in counts], padding=3, fontsize=9)
        ax.set_xlim(0, max(counts) * 1.15)
        _int_axis("x", ax)
        ax.set_xlabel("Aceptaciones")
        _style(ax)

    return draw


def _draw_histogram(f: ReportFigures) -> Callable[[Axes], None]:
    def draw(ax: Axes) -> None:
        bins = f.histograma
        if not bins:
            _empty(ax, "No hubo adjudicaciones.")
            return
        counts = [b.adjudicaciones for b in bins]
        bars = ax.bar(range(len(bins)), counts, width=0.8, color=BAR)
        labels = [shares_range(b).replace(" a ", "–") for b in bins]
        rotate = len(bins) > 8 or max(len(s) for s in labels) > 9
        ax.set_xticks(
            range(len(bins)),
            labels,
            rotation=45 if rotate else 0,
            ha="right" if rotate else "center",
            rotation_mode="anchor",
        )
        if len(bins) <= 10:  # beyond that the labels touch; the table has the numbers
            ax.bar_label(bars, [group(c) if c else "" for c in counts], padding=2, fontsize=8)
        ax.set_ylim(0, max(counts) * 1.12)
        _int_axis("y", ax)
        ax.set_xlabel("Acciones adjudicadas en la aceptación (escala logarítmica: 1, 2, 5, 10…)")
        ax.set_ylabel("Aceptaciones")
        _style(ax)

    return draw


def _draw_lorenz(f: ReportFigures) -> Callable[[Axes], None]:
    def draw(ax: Axes) -> None:
        n, total = f.nuevos_accionistas, f.acciones_adjudicadas
        if not n:
            _empty(ax, "No hubo adjudicaciones.")
            return
        xs = [p.personas / n for p in f.lorenz]
        ys = [p.acciones / total for p in f.lorenz]
        ax.plot([0, 1], [0, 1], color="#888888", linestyle="--", linewidth=1, label="Igualdad")
        ax.plot(xs, ys, color=DARK, linewidth=2, label="Curva de Lorenz")
        ax.fill_between(xs, ys, xs, color=COLORS["solicitadas"], alpha=0.5, linewidth=0)
        pct = FuncFormatter(lambda v, _: f"{round(v * 100)} %")
        ax.xaxis.set_major_formatter(pct)
        ax.yaxis.set_major_formatter(pct)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_aspect("equal")
        ax.set_xlabel("Adjudicatarios, de menos a más acciones (acumulado)")
        ax.set_ylabel("Acciones adjudicadas (acumulado)")
        # The curve stays under the diagonal: the upper left corner is always free.
        ax.legend(
            loc="upper left",
            title=f"Gini = {_gini_text(f.gini)}",
            title_fontproperties={"size": 10, "weight": "bold"},
            alignment="left",
            fontsize=9,
            framealpha=1.0,
            edgecolor="#bbbbbb",
        )
        ax.grid(color="#eeeeee", linewidth=0.6)
        _style(ax)

    return draw


def _charts(inp: ReportInput, f: ReportFigures) -> list[_Chart]:
    names_c, names_r = inp.nombres_categorias, inp.nombres_reglas
    categories = _Table(
        "Demanda y adjudicación por categoría",
        (
            "Categoría",
            "Aceptaciones",
            "Rechazadas",
            "Acciones solicitadas",
            "Acciones permitidas",
            "Acciones adjudicadas",
            "Adjudicatarios",
        ),
        (
            *(
                (
                    _category(names_c, r.categoria),
                    group(r.aceptaciones),
                    group(r.rechazadas),
                    group(r.acciones_solicitadas),
                    group(r.acciones_permitidas),
                    group(r.acciones_adjudicadas),
                    group(r.adjudicatarios),
                )
                for r in f.por_categoria
            ),
            (
                "Total",
                group(f.aceptaciones),
                group(f.rechazadas),
                group(f.acciones_solicitadas),
                group(f.acciones_permitidas),
                group(f.acciones_adjudicadas),
                group(f.nuevos_accionistas),
            ),
        ),
        (False, *[True] * 6),
        total=True,
    )
    limits = _Table(
        "Límites que determinaron la cantidad",
        ("Límite", "Aceptaciones", "Acciones recortadas"),
        (
            *(
                (_rule(names_r, r.regla), group(r.aceptaciones), group(r.acciones_recortadas))
                for r in f.limites
            ),
            ("Sin límite determinante", group(f.sin_limite), "—"),
        ),
        (False, True, True),
    )
    histogram = _Table(
        "Distribución de las adjudicaciones",
        ("Acciones adjudicadas", "Aceptaciones", "Acciones", "Porcentaje de las acciones"),
        tuple(
            (
                shares_range(b),
                group(b.adjudicaciones),
                group(b.acciones),
                share_percent(Fraction(b.acciones, f.acciones_adjudicadas)),
            )
            for b in f.histograma
        ),
        (False, True, True, True),
    )
    concentration = _Table(
        "Concentración",
        ("Adjudicatarios con menos acciones", "Personas", "Acciones", "Porcentaje de las acciones"),
        tuple(
            (
                f"{10 * (i + 1)} %",
                group(p.personas),
                group(p.acciones),
                share_percent(Fraction(p.acciones, f.acciones_adjudicadas))
                if f.acciones_adjudicadas
                else "—",
            )
            for i, p in enumerate(f.deciles)
        ),
        (False, True, True, True),
    )
    rules_count = len(f.limites)
    bins = len(f.histograma)
    cats = len(f.por_categoria)
    return [
        _Chart(
            "categorias",
            "Demanda y adjudicación por categoría",
            "Acciones solicitadas, acciones que las reglas del programa permitían y acciones "
            "adjudicadas, por categoría de destinatario. Las categorías van de mayor a menor "
            "demanda.",
            _draw_categories(inp, f),
            (8.0, max(3.0, 1.4 + 0.7 * cats)),
            categories,
        ),
        _Chart(
            "limites",
            "Límites que determinaron la cantidad",
            "Número de aceptaciones cuya cantidad permitida fijó cada límite (la regla "
            f"limitante). Otras {group(f.sin_limite)} aceptaciones no tuvieron límite "
            "determinante: se permitió lo solicitado o se rechazaron por otra causa.",
            _draw_limits(inp, f),
            (8.0, max(2.4, 1.2 + 0.5 * rules_count)),
            limits,
        ),
        _Chart(
            "histograma",
            "Distribución de las adjudicaciones",
            (
                f"Las {group(f.adjudicaciones)} aceptaciones con acciones adjudicadas, según "
                "cuántas acciones recibieron. Los rangos crecen en escala logarítmica (1, 2, 5, "
                "10, 20, 50…), tres por cada potencia de diez."
            )
            if f.adjudicaciones
            else "No hubo adjudicaciones.",
            _draw_histogram(f),
            (8.0, 4.2 if bins <= 8 else 4.6),
            histogram,
        ),
        _Chart(
            "concentracion",
            "Concentración",
            (
                f"Curva de Lorenz de las acciones adjudicadas entre los "
                f"{group(f.nuevos_accionistas)} adjudicatarios (las aceptaciones de un mismo "
                "número de identificación se suman); cuanto más se aleja de la diagonal, más "
                f"concentradas. Coeficiente de Gini: {_gini_text(f.gini)}. El 1 % con más "
                f"acciones ({_people(f.top1_personas)}) recibió "
                f"{share_percent(f.top1_participacion)} "
                f"de las acciones; el 10 % ({_people(f.top10_personas)}), "
                f"{share_percent(f.top10_participacion)}."
            )
            if f.nuevos_accionistas
            else "No hubo adjudicaciones: no hay curva de Lorenz ni coeficiente de Gini.",
            _draw_lorenz(f),
            (6.0, 5.4),
            concentration,
        ),
    ]


def chart_style() -> dict[RcKeyType, Any]:
    """The project's matplotlib settings: text kept as text in PDFs, drawn as paths in SVGs."""
    return {
        "font.family": "DejaVu Sans",
        "font.size": 10,
        "axes.titlesize": 12,
        "svg.fonttype": "path",
        "pdf.fonttype": 42,
        "axes.unicode_minus": False,
    }


_SVG_ID = re.compile(r'(\bid="|\bhref="#|url\(#)')


def _svg(chart: _Chart) -> str:
    """The chart as inline SVG, text drawn as paths so that it looks the same everywhere."""
    buf = io.StringIO()
    with matplotlib.rc_context({**chart_style(), "svg.hashsalt": SALT}):
        fig = Figure(figsize=chart.size, layout="constrained")
        FigureCanvasAgg(fig)
        chart.draw(fig.add_subplot())
        fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    text = text[text.index("<svg") :]
    # Four SVGs share the page: each one's ids (and references to them) get the chart's key.
    text = _SVG_ID.sub(lambda m: f"{m.group(1)}{chart.key}-", text)
    label = html.escape(chart.title, quote=True)
    return text.replace("<svg ", f'<svg role="img" aria-label="{label}" ', 1)


# ------------------------------------------------------------------------------------- HTML

_PAGE = """<!DOCTYPE html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }}</title>
<style>
body { font-family: "DejaVu Sans", "Segoe UI", Arial, sans-serif; color: #1a1a1a;
  max-width: 60rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.25rem; margin-top: 2.2rem; border-bottom: 2px solid #034e7b;
  padding-bottom: 0.2rem; }
h3 { font-size: 1.05rem; margin-top: 1.6rem; }
.sub { color: #555; margin-top: 0; }
table { border-collapse: collapse; margin: 0.6rem 0 1rem; font-size: 0.92rem; }
th, td { border: 1px solid #c8c8c8; padding: 0.3rem 0.6rem; vertical-align: top; }
th { background: #eef3f8; text-align: left; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.kv th { width: 22rem; font-weight: normal; }
table.kv td { font-variant-numeric: tabular-nums; }
tr.total td { font-weight: bold; background: #f6f6f6; }
code { font-size: 0.85rem; word-break: break-all; }
figure { margin: 1.5rem 0; page-break-inside: avoid; }
figure svg { max-width: 100%; height: auto; display: block; }
figcaption { font-size: 0.92rem; color: #333; margin-top: 0.4rem; }
.nota { font-size: 0.85rem; color: #444; }
@media print { body { margin: 0; max-width: none; } h2 { page-break-after: avoid; } }
</style>
</head>
<body>
<h1>{{ title }}</h1>
<p class="sub">{{ program }}</p>

<h2>Cifras de la oferta</h2>
<table class="kv">
{% for label, value in offer %}<tr><th scope="row">{{ label }}</th><td>
{%- if loop.last %}<code>{{ value }}</code>{% else %}{{ value }}{% endif %}</td></tr>
{% endfor %}</table>

<h2>Resultados de la adjudicación</h2>
<table class="kv">
{% for label, value in results %}<tr><th scope="row">{{ label }}</th><td>{{ value }}</td></tr>
{% endfor %}</table>
<p class="nota">Nuevos accionistas: números de identificación distintos con al menos una acción
adjudicada. Coeficiente de Gini de las acciones adjudicadas por adjudicatario, calculado en
forma exacta: G = 2·Σ i·x<sub>i</sub> / (n·Σ x) − (n + 1) / n, con x<sub>1</sub> ≤ … ≤
x<sub>n</sub>. El 1 % con más acciones son los adjudicatarios que más recibieron, tantos como el
1 % de n redondeado hacia arriba (al menos uno); el 10 %, igual.</p>

<h2>Gráficos</h2>
{% for chart in charts %}<figure id="grafico-{{ chart.key }}">
<h3>{{ chart.title }}</h3>
{{ chart.svg }}
<figcaption>{{ chart.caption }}</figcaption>
</figure>
{% endfor %}
<h2>Tablas de los gráficos</h2>
{% for chart in charts %}<h3 id="tabla-{{ chart.key }}">{{ chart.table.caption }}</h3>
<table>
<thead><tr>{% for h in chart.table.header %}<th scope="col"
{%- if chart.table.numeric[loop.index0] %} class="n"{% endif %}>{{ h }}</th>
{%- endfor %}</tr></thead>
<tbody>
{% for row in chart.table.rows %}<tr
{%- if chart.table.total and loop.last %} class="total"{% endif %}>
{%- for cell in row %}<td{% if chart.table.numeric[loop.index0] %} class="n"{% endif %}>
{{- cell }}</td>{% endfor %}</tr>
{% endfor %}</tbody>
</table>
{% endfor %}</body>
</html>
"""

_ENV = Environment(autoescape=True, undefined=StrictUndefined, keep_trailing_newline=True)


def _title(inp: ReportInput) -> str:
    return f"Informe de adjudicación — {inp.programa_nombre}"


def render_html(inp: ReportInput, figures: ReportFigures) -> str:
    charts = [
        {
            "key": c.key,
            "title": c.title,
            "caption": c.caption,
            "svg": Markup(_svg(c)),  # our own matplotlib output, not user text
            "table": c.table,
        }
        for c in _charts(inp, figures)
    ]
    return _ENV.from_string(_PAGE).render(
        title=_title(inp),
        program=f"Programa {inp.programa_id} · Ley 226 de 1995",
        offer=_offer_rows(inp),
        results=_result_rows(figures),
        charts=charts,
    )


# -------------------------------------------------------------------------------------- PDF

MARGIN = 0.07  # of the page width, left and right
PAGE_RECT = (0.05, 0.03, 0.9, 0.93)  # chart pages: left, bottom, width, height
PAGE_RATIOS = (5.4, 0.8, 4.0)  # chart pages: chart, caption, table
TABLE_AXES = (0.0, 0.08, 1.0, 0.9)  # the table inside its part of the page
TABLE_HEIGHT_IN = A4[1] * PAGE_RECT[3] * PAGE_RATIOS[2] / sum(PAGE_RATIOS) * TABLE_AXES[3]


def draw_table(
    ax: Axes,
    cells: list[list[str]],
    widths: list[float],
    numeric: tuple[bool, ...],
    fontsize: float,
    height_in: float,
    header: bool,
    total: bool,
) -> None:
    """A table from the top of ``ax``, each row as tall as its lines (in inches)."""
    ax.set_axis_off()
    line_in = fontsize * 1.25 / 72
    heights = [(max(c.count("\n") for c in row) + 1.8) * line_in for row in cells]
    used = min(1.0, sum(heights) / height_in)
    table = Table(ax, bbox=Bbox.from_bounds(0.0, 1.0 - used, 1.0, used))
    table.auto_set_font_size(False)
    last = len(cells) - 1
    for row, values in enumerate(cells):
        head = header and row == 0
        for col, value in enumerate(values):
            right = numeric[col] and not head
            cell = table.add_cell(
                row, col, widths[col], heights[row], text=value, loc="right" if right else "left"
            )
            cell.set_edgecolor("#c8c8c8")
            cell.PAD = 0.04
            cell.get_text().set_fontsize(fontsize)
            if head or (not header and col == 0):
                cell.set_facecolor("#eef3f8")
            if head or (total and row == last):
                cell.get_text().set_fontweight("bold")
            if total and row == last:
                cell.set_facecolor("#f6f6f6")
    ax.add_table(table)


def _kv_height(rows: list[tuple[str, str]], fontsize: float) -> float:
    line_in = fontsize * 1.25 / 72
    return sum(
        (max(wrap(k, 48).count("\n"), wrap(v, 44).count("\n")) + 1.8) * line_in for k, v in rows
    )


def _kv_table(fig: Figure, top_in: float, title: str, rows: list[tuple[str, str]]) -> float:
    """A two-column table whose top is ``top_in`` inches from the page top; returns its bottom."""
    fontsize = 8.5
    height = _kv_height(rows, fontsize)
    page_h = A4[1]
    fig.text(MARGIN, 1 - top_in / page_h, title, fontsize=12, fontweight="bold", va="bottom")
    ax = fig.add_axes(
        (MARGIN, 1 - (top_in + 0.08 + height) / page_h, 1 - 2 * MARGIN, height / page_h)
    )
    draw_table(
        ax,
        [[wrap(k, 48), wrap(v, 44)] for k, v in rows],
        [0.5, 0.5],
        (False, False),
        fontsize,
        height,
        header=False,
        total=False,
    )
    return top_in + 0.08 + height


def _data_table(ax: Axes, t: _Table) -> None:
    cells = [
        [wrap(h, 34 if i == 0 else 14) for i, h in enumerate(t.header)],
        *([wrap(r[0], 34), *r[1:]] for r in t.rows),
    ]
    chars = [
        max(len(line) for row in cells for line in row[col].split("\n")) + 3
        for col in range(len(t.header))
    ]
    draw_table(
        ax,
        cells,
        [c / sum(chars) for c in chars],
        t.numeric,
        7.5 if len(t.header) <= 4 else 7.0,
        TABLE_HEIGHT_IN,
        header=True,
        total=t.total,
    )


def _first_page(inp: ReportInput, f: ReportFigures) -> Figure:
    fig = Figure(figsize=A4)
    page_h = A4[1]
    title = wrap(_title(inp), 55)
    fig.text(MARGIN, 1 - 0.5 / page_h, title, fontsize=16, fontweight="bold", va="top")
    below = 0.5 + 0.3 * (title.count("\n") + 1) + 0.1
    fig.text(
        MARGIN,
        1 - below / page_h,
        f"Programa {inp.programa_id} · Ley 226 de 1995",
        color="#555555",
        va="top",
    )
    fig.text(1 - MARGIN, 0.02, "Página 1", fontsize=8, ha="right", color="#777777")
    bottom = _kv_table(fig, below + 0.7, "Cifras de la oferta", _offer_rows(inp))
    _kv_table(fig, bottom + 0.6, "Resultados de la adjudicación", _result_rows(f))
    return fig


def _chart_page(chart: _Chart, page: int) -> Figure:
    fig = Figure(figsize=A4)
    fig.set_layout_engine("constrained", rect=PAGE_RECT)
    grid = fig.add_gridspec(3, 1, height_ratios=PAGE_RATIOS)
    top, middle, bottom = (fig.add_subfigure(grid[i]) for i in range(3))
    top.suptitle(chart.title, x=0.0, ha="left", fontsize=15, fontweight="bold")
    chart.draw(top.add_subplot())
    middle.text(0.0, 0.95, wrap(chart.caption, 105), fontsize=9.5, va="top")
    _data_table(bottom.add_axes(TABLE_AXES), chart.table)
    bottom.text(1.0, 0.01, f"Página {page}", fontsize=8, ha="right", color="#777777")
    return fig


def render_pdf(inp: ReportInput, figures: ReportFigures, path: Path) -> None:
    """The report as a PDF: the figures on the first page, then one chart and its table a page.

    Written under a temporary name and renamed at the end, so a failure leaves no half file.
    """
    tmp = path.with_name(f".{path.name}.tmp")
    metadata = {
        "Title": _title(inp),
        "Subject": f"Adjudicación del programa {inp.programa_id} (Ley 226 de 1995)",
        "Creator": "democratiza",
        "CreationDate": None,
    }
    try:
        with matplotlib.rc_context(chart_style()), PdfPages(tmp, metadata=metadata) as pdf:
            pdf.savefig(_first_page(inp, figures))
            for page, chart in enumerate(_charts(inp, figures), start=2):
                pdf.savefig(_chart_page(chart, page))
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
