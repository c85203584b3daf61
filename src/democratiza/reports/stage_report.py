"""A stage's files: per broker (CSV and XLSX), the registry, and the report with its book.

The report (HTML and PDF) shows the figures of the stage, how its shares and minimum price
were reached, the clearing notes, results by broker, and the demand curve: the shares asked
at each price or above, high to low, with the offer and the clearing point marked. Money
is printed from exact centavos; the chart only draws.
"""

from __future__ import annotations

import functools
import io
import textwrap
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib
import polars as pl
from markupsafe import Markup
from matplotlib.axes import Axes
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from democratiza.labels import label
from democratiza.money import group, pesos
from democratiza.reports.adjudication_charts import ChartTable
from democratiza.reports.exports import paid_only, per_broker_files, slug
from democratiza.reports.render.amounts import in_pesos
from democratiza.reports.render.charts import DARK, SVG_STYLE, WIDE, Width, legend, responsive_svg
from democratiza.reports.render.files import atomic_write
from democratiza.reports.render.html import PAGES
from democratiza.reports.render.pdf import A4, metadata
from democratiza.stages.allocate import DATETIMES, StageAllocation
from democratiza.stages.lifecycle import StoredStage
from democratiza.tables.cells import write_csv

BROKER_COLUMNS = [
    "radicado",
    "referencia",
    "tipo_identificacion",
    "numero_identificacion",
    "nombre",
    "fecha_ingreso",
    "precio",
    "cantidad",
    "decision",
    "motivo",
    "asignada",
    "precio_adjudicacion",
    "valor_a_pagar",
]
AMOUNT_COLUMNS = ("precio", "precio_adjudicacion", "valor_a_pagar")
DEMAND_TITLE = "Curva de demanda y punto de corte"
DEMAND_CAPTION = (
    "Acciones pedidas a cada precio o más, del precio más alto al más bajo; la línea "
    "discontinua marca las acciones ofrecidas y la punteada el precio mínimo."
)


def priced(done: StageAllocation) -> pl.DataFrame:
    price = done.header["precio"]
    assert price is None or isinstance(price, int)
    return done.results.with_columns(
        pl.lit(price if price is not None else 0, dtype=pl.Int64).alias("precio_adjudicacion"),
        (pl.col("asignada") * (price or 0)).alias("valor_a_pagar"),
    )


def allocation_frame(done: StageAllocation) -> pl.DataFrame:
    """Every order with its broker, decision, shares, price and sum to pay, in pesos with two
    decimals (``render.amounts``): 'valor_a_pagar' 24750000.00 is never read a hundred times
    too large."""
    return in_pesos(priced(done).select("comisionista", *BROKER_COLUMNS), AMOUNT_COLUMNS)


def registry_frame(done: StageAllocation, paid: pl.DataFrame | None = None) -> pl.DataFrame:
    """For the depository: one line per buyer and broker, shares summed; once the stage's
    payments are settled, only the shares paid for (``exports.paid_only``)."""
    return (
        paid_only(done.results, "asignada", paid)
        .filter(pl.col("asignada") > 0)
        .group_by("tipo_identificacion", "numero_identificacion", "nombre", "comisionista")
        .agg(pl.col("asignada").sum().alias("acciones"))
        .sort("tipo_identificacion", "numero_identificacion", "comisionista")
    )


def broker_files(
    done: StageAllocation,
    out_dir: Path,
    style: Mapping[str, Any] | None = None,
    withdrawn: Collection[str] = (),
) -> list[Path]:
    """Each broker's orders, with the decision at intake, the shares and the sum to pay (in
    pesos with two decimals); ``style``: the CSV's separator (``tables.cells.csv_style``);
    the XLSX reads the orders in ``withdrawn`` (``stages.orders.withdrawn_orders``) as
    withdrawn by their broker."""
    return per_broker_files(
        allocation_frame(done),
        out_dir,
        slug(done.stage_code),
        "Asignación",
        DATETIMES,
        style,
        words={"decision": "decision_orden"},
        withdrawn=withdrawn,
    )


def registry_file(
    done: StageAllocation,
    out_dir: Path,
    paid: pl.DataFrame | None = None,
    style: Mapping[str, Any] | None = None,
) -> Path:
    """For the depository: one line per buyer and broker, shares summed (paid ones only once
    the payments are settled)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    registry = registry_frame(done, paid)
    path = out_dir / f"registro-{slug(done.stage_code)}.csv"
    write_csv(registry, path, **(style or {}))
    return path


def clearing_point(done: StageAllocation) -> tuple[int, int] | None:
    """The clearing (price, shares allocated), once the stage has a price."""
    price, allocated = done.header["precio"], done.header["asignadas"]
    if isinstance(price, int) and isinstance(allocated, int):
        return price, allocated
    return None


def _draw_curve(
    shares: int,
    minimum_price: int,
    curve: Sequence[tuple[int, int]],
    point: tuple[int, int] | None,
    ax: Axes,
    width: Width = WIDE,
) -> None:
    """The curve of a stage offering ``shares`` at ``minimum_price`` centavos or more."""
    if not curve:
        ax.text(0.5, 0.5, "Sin órdenes válidas", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return
    xs = [0] + [q for _, q in curve]
    ys = [curve[0][0]] + [p for p, _ in curve]
    ax.step(xs, [y / 100 for y in ys], where="pre", color=DARK, label="Demanda acumulada")
    ax.axvline(shares, color="#999999", linestyle="--", label="Acciones ofrecidas")
    ax.axhline(minimum_price / 100, color="#e6550d", linestyle=":", label="Precio mínimo")
    if point is not None:
        ax.plot([point[1]], [point[0] / 100], "o", color="#e6550d", label="Punto de corte")
    ax.set_xlabel(width.title("Acciones pedidas a ese precio o más"))
    ax.set_ylabel(width.title("Precio por acción (pesos)"))
    # Long numbers: few ticks.
    ax.xaxis.set_major_locator(MaxNLocator(width.ticks - 1, integer=True))
    ax.xaxis.set_major_formatter(lambda v, _: group(int(v)))
    ax.yaxis.set_major_formatter(lambda v, _: group(int(v)))
    ax.spines[["top", "right"]].set_visible(False)
    legend(ax, width, frameon=False, fontsize=8)


def demand_svg(
    stage: StoredStage, curve: list[tuple[int, int]], point: tuple[int, int] | None = None
) -> str:
    """The demand curve as inline SVG for a wide screen and for a phone (the report, and the
    office's page while the book is open); ``point`` is the clearing (price, shares
    allocated) once the stage is allocated."""
    return _demand_svg(stage.shares, stage.minimum_price, tuple(curve), point)


# Why a cache: the office's stage page draws its curve on every view, twice (wide and for a
# phone), about a second on a loaded machine; the curve changes only when an order does.
@functools.lru_cache(maxsize=16)
def _demand_svg(
    shares: int,
    minimum_price: int,
    curve: tuple[tuple[int, int], ...],
    point: tuple[int, int] | None,
) -> str:
    def draw(ax: Axes, width: Width) -> None:
        _draw_curve(shares, minimum_price, curve, point, ax, width)

    return responsive_svg(draw, (7.5, 4.2), 4.6, DEMAND_TITLE, "demanda")


def demand_table(curve: list[tuple[int, int]], price: int | None) -> ChartTable:
    """The demand curve's figures, for who cannot see the chart: each price, high to low,
    with the shares asked at it or above; the clearing price's row says so (a row of its own
    when no order asked exactly that price: the minimum, or a cut-off between two prices)."""
    points = dict(curve)
    if price is not None and price not in points:
        points[price] = max((q for p, q in curve if p >= price), default=0)
    return ChartTable(
        "Demanda acumulada a cada precio",
        ("Precio por acción", "Acciones pedidas a ese precio o más", "Punto de corte"),
        tuple(
            (pesos(p), group(q), "precio de adjudicación" if p == price else "")
            for p, q in sorted(points.items(), reverse=True)
        ),
        (True, True, False),
    )


def buyers(done: StageAllocation) -> int:
    """How many people (by identification) were allocated shares."""
    bought = done.results.filter(pl.col("asignada") > 0)
    if not bought.height:
        return 0
    return bought.select("tipo_identificacion", "numero_identificacion").n_unique()


def figures(stage: StoredStage, done: StageAllocation) -> list[tuple[str, str]]:
    h = done.header
    price = h["precio"]
    return [
        ("Etapa", f"{stage.name} ({stage.code}) del programa {stage.program.name}"),
        ("Viene de", str(stage.origin["de"])),
        ("Acciones disponibles", group(int(stage.origin["disponibles"]))),
        ("Acciones ofrecidas en la etapa", group(stage.shares)),
        ("Mecanismo", label("mecanismo", h["mecanismo"])),
        ("Precio mínimo", pesos(stage.minimum_price)),
        (
            "Orden mínima / lote",
            f"{group(stage.terms.minimum_order)} / {group(stage.terms.lot)} acciones",
        ),
        ("Órdenes válidas", group(int(h["ordenes_validas"]))),  # type: ignore[call-overload]
        ("Demanda válida", f"{group(int(h['demanda_valida']))} acciones"),  # type: ignore[call-overload]
        (
            "Resultado",
            "desierta: " + str(h["causa"])
            if h["desierta"]
            else f"precio {pesos(price)} por acción"
            if isinstance(price, int)
            else "-",
        ),
        ("Acciones asignadas", group(int(h["asignadas"]))),  # type: ignore[call-overload]
        ("Compradores", group(buyers(done))),
        ("Huella de las órdenes (SHA-256)", str(h["huella_entradas"])),
        ("Huella del resultado (SHA-256)", str(h["huella_resultado"])),
    ]


def _by_broker(done: StageAllocation) -> list[tuple[str, str, str, str]]:
    table = (
        done.results.group_by("comisionista")
        .agg(
            pl.len().alias("ordenes"),
            (pl.col("decision") == "valida").sum().alias("validas"),
            pl.col("asignada").sum().alias("asignadas"),
        )
        .sort("comisionista")
    )
    return [(b, group(n), group(v), group(a)) for b, n, v, a in table.iter_rows()]


_PAGE = """{% extends "informe.html" %}{% from "grafico.html" import grafico %}{% block cuerpo %}
<table class="kv">
{% for label, value in figures %}<tr><th scope="row">{{ label }}</th><td>{{ value }}</td></tr>
{% endfor %}</table>
<h2>Curva de demanda</h2>
{{ grafico("Curva de demanda", chart, caption, encabezado=false) }}
<h2>Precio mínimo</h2>
<ol>{% for step in steps %}<li>{{ step }}</li>{% endfor %}</ol>
<h2>Cómo se asignó</h2>
<ul>{% for note in notes %}<li>{{ note }}</li>{% endfor %}</ul>
<h2>Por comisionista</h2>
<table>
<thead><tr><th scope="col">Comisionista</th><th scope="col" class="n">Órdenes</th>
<th scope="col" class="n">Válidas</th><th scope="col" class="n">Acciones asignadas</th></tr></thead>
<tbody>
{% for row in brokers %}<tr><td>{{ row[0] }}</td>
{%- for n in row[1:] %}<td class="n">{{ n }}</td>{% endfor %}</tr>
{% endfor %}</tbody>
</table>
{% endblock %}
"""


def render_html(stage: StoredStage, done: StageAllocation) -> str:
    return PAGES.from_string(_PAGE).render(
        title=f"{stage.name}: {stage.code}",
        figures=figures(stage, done),
        chart=Markup(demand_svg(stage, done.curve, clearing_point(done))),  # our own matplotlib SVG
        caption=DEMAND_CAPTION,
        steps=stage.origin.get("precio_minimo_pasos", []),
        notes=[str(n) for n in done.header["notas"]],  # type: ignore[attr-defined]
        brokers=_by_broker(done),
    )


def render_pdf(stage: StoredStage, done: StageAllocation, path: Path) -> None:
    """One page: the figures and the demand curve. Written atomically."""
    out = io.BytesIO()
    info = metadata(f"{stage.name} {stage.code}")
    with matplotlib.rc_context(SVG_STYLE), PdfPages(out, metadata=info) as pdf:
        fig = Figure(figsize=A4)
        fig.suptitle(
            f"{stage.name}: {stage.code}", x=0.07, ha="left", fontsize=15, fontweight="bold"
        )
        y = 0.93
        for key, value in figures(stage, done):
            fig.text(0.07, y, key, fontsize=9, fontweight="bold")
            for part in textwrap.wrap(value, 56):
                fig.text(0.42, y, part, fontsize=9)
                y -= 0.018
            y -= 0.004
        ax = fig.add_axes((0.12, 0.06, 0.83, 0.45))
        _draw_curve(stage.shares, stage.minimum_price, done.curve, clearing_point(done), ax)
        pdf.savefig(fig)
    atomic_write(path, out.getvalue())


def write_report(stage: StoredStage, done: StageAllocation, out_dir: Path) -> list[Path]:
    page = atomic_write(
        out_dir / f"informe-{slug(stage.code)}.html", render_html(stage, done).encode("utf-8")
    )
    pdf = out_dir / f"informe-{slug(stage.code)}.pdf"
    render_pdf(stage, done, pdf)
    return [page, pdf]
