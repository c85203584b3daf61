"""Adjudication report, its figures: what was asked, permitted and awarded, and how evenly.

``report_input`` gathers an adjudication and its offer; ``build_figures`` computes every
figure the report shows, exactly (integers and fractions, with polars): totals by decision
and category, the limits that bound, a histogram of the awards on a log scale of whole
shares, the Lorenz curve of the awards per person and its Gini coefficient, and the share of
the top 1 % and 10 %. Nothing here draws or writes text for a reader.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from democratiza.adjudication.figures import decision_counts, not_withdrawn, with_withdrawn
from democratiza.money import group, pesos, round_centavos
from democratiza.offers.lifecycle import StoredOffer
from democratiza.rules.explain import cite
from democratiza.rules.person import PERSON_KEY, person_keys

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
OPTIONAL_COLUMNS: dict[str, type[pl.DataType]] = {
    "tipo_identificacion": pl.String,
    "cantidad_persona": pl.Int64,
    "consumido_por": pl.String,  # set for an acceptance the person's earlier filings reduced
    PERSON_KEY: pl.UInt32,  # the persons numbered (``rules.person.person_keys``), if given
    "precio": pl.Int64,  # centavos per share an acceptance pays, where not the offer's
    "retirada": pl.Boolean,  # withdrawn by its broker (``adjudication.figures.with_withdrawn``)
}
NULLABLE = frozenset({"regla_limitante", "consumido_por", "precio"})
DECISION_VALUES = ("aceptada", "reducida", "rechazada")
LORENZ_POINTS = 400  # the curve is drawn through at most this many exact points


class ReportInputError(ValueError):
    pass


@dataclass(frozen=True, eq=False)
class ReportInput:
    """One program's adjudication: the offer and one row per acceptance with its award.

    ``nombres_categorias`` and ``nombres_reglas`` give readable names to the ids of
    categories and limits (for instance from the program file), ``citas_reglas`` each limit's
    article; an id without a name is shown by the family's word (``labels``).

    A person is a ``numero_identificacion``; when the frame also has ``tipo_identificacion``
    (as the engine's results do), a person is the pair, as in the rules; when it has the
    persons' numbers (``PERSON_KEY``, one per pair), a person is their number.
    """

    programa_id: str
    programa_nombre: str
    acciones_ofrecidas: int
    precio_centavos: int | Fraction  # exact: a fraction of a centavo where the decree has one
    fecha_aviso: date
    fecha_cierre: date
    metodo: str
    regla_remanente: str
    hash_entrada: str
    awards: pl.DataFrame
    nombres_categorias: Mapping[str, str] = field(default_factory=dict)
    nombres_reglas: Mapping[str, str] = field(default_factory=dict)
    citas_reglas: Mapping[str, str] = field(default_factory=dict)  # each limit's article
    topes_conjuntos: tuple[str, ...] = ()  # what each joint cap did (the record's notes)
    ajustes_precio: tuple[str, ...] = ()  # each adjusted price, from when, on what basis

    def __post_init__(self) -> None:
        if self.acciones_ofrecidas <= 0 or self.precio_centavos <= 0:
            raise ReportInputError("las acciones ofrecidas y el precio deben ser positivos")
        object.__setattr__(self, "awards", checked_awards(self.awards, self.acciones_ofrecidas))


def checked_awards(awards: pl.DataFrame, offered: int) -> pl.DataFrame:
    """The awards in plain types, refused if any is impossible (for any adjudication's
    figures: a real offer's, or a design's in the program designer)."""
    missing = [c for c in AWARD_COLUMNS if c not in awards.columns]
    if missing:
        raise ReportInputError(f"faltan columnas en las adjudicaciones: {missing}")
    # Enum columns from the engine and any integer width become the plain types.
    types = {
        **AWARD_COLUMNS,
        **{c: t for c, t in OPTIONAL_COLUMNS.items() if c in awards.columns},
    }
    typed = awards.select(pl.col(c).cast(t) for c, t in types.items())
    nulls = [c for c in types if c not in NULLABLE and typed[c].null_count() > 0]
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
    if awarded > offered:
        raise ReportInputError(
            f"se adjudican {group(awarded)} acciones y solo se ofrecen {group(offered)}"
        )
    return typed


def report_input(
    stored: StoredOffer,
    done: Adjudication,
    prices: pl.DataFrame | None = None,
    gone: pl.DataFrame | None = None,
) -> ReportInput:
    """The report's input for a stored offer and its adjudication (CLI and web alike).

    ``prices`` (radicado, precio: ``adjudication.record.acceptance_prices``) are what each
    acceptance pays when it is not the offer's initial price (after an interruption with an
    adjusted price, Ley 226 art. 11 num. 2): the value awarded counts each at its own.
    ``gone`` (``adjudication.figures.withdrawn``) are the acceptances their brokers withdrew:
    counted as withdrawn, not as rejected, as everywhere an offer's figures are shown."""
    program, offer = stored.program, stored.offer
    announced, closing = offer.day("fecha_aviso"), offer.day("fecha_cierre")
    shares = offer.values.get("acciones_ofrecidas")
    assert announced and closing and isinstance(shares, int)
    return ReportInput(
        programa_id=program.id,
        programa_nombre=program.name,
        acciones_ofrecidas=shares,
        precio_centavos=offer.price if offer.price.denominator != 1 else int(offer.price),
        fecha_aviso=announced,
        fecha_cierre=closing,
        metodo=program.allocation.method,
        regla_remanente=program.allocation.remainder,
        hash_entrada=str(done.header["huella_entradas"]),
        awards=_joined(done.results, prices, gone),
        nombres_categorias={c.id: c.name for c in program.categories},
        nombres_reglas={r.id: r.name for r in program.limits},
        citas_reglas={r.id: cite(program, r.citation) for r in program.limits},
        topes_conjuntos=_joint_cap_notes(done),
        ajustes_precio=tuple(
            f"{pesos(a.price)} desde el {a.effective:%Y-%m-%d} ({a.basis})"
            for a in stored.adjustments
        ),
    )


def _joined(
    results: pl.DataFrame, prices: pl.DataFrame | None, gone: pl.DataFrame | None
) -> pl.DataFrame:
    if prices is not None and not prices.is_empty():
        results = results.join(prices, on="radicado", how="left", maintain_order="left")
    return results if gone is None else with_withdrawn(results, gone)


def _value(a: pl.DataFrame, awarded: int, price_centavos: int | Fraction) -> int:
    """What the awards are worth: each at the price its acceptance pays (the offer's, unless
    the awards say another in ``precio``), in whole centavos. At a price finer than a
    centavo each award is what its acceptant pays: its shares × the price, rounded to the
    centavo (``round_centavos``), and the value is the sum of those."""
    price = Fraction(price_centavos)
    if price.denominator == 1:
        whole = int(price)
        if "precio" not in a.columns:
            return awarded * whole
        each = pl.col("adjudicada") * pl.col("precio").fill_null(whole)
        return int(a.select(each.sum()).item())
    own = a["precio"] if "precio" in a.columns else pl.Series([None] * a.height, dtype=pl.Int64)
    return sum(
        shares * at if at is not None else round_centavos(shares * price)
        for shares, at in zip(a["adjudicada"].to_list(), own.to_list(), strict=True)
        if shares
    )


def _joint_cap_notes(done: Adjudication) -> tuple[str, ...]:
    caps = done.header.get("topes_conjuntos", [])
    return tuple(str(n) for cap in (caps if isinstance(caps, list) else []) for n in cap["notas"])


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
    rechazadas: int  # withdrawn ones apart (``adjudication.figures``)
    retiradas: int
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


def build_figures(inp: ReportInput) -> ReportFigures:
    return figures(inp.awards, inp.acciones_ofrecidas, inp.precio_centavos)


def figures(a: pl.DataFrame, offered: int, price_centavos: int | Fraction) -> ReportFigures:
    """Every figure of an adjudication, from its awards (``checked_awards``)."""
    # Only the columns each figure reads are filtered or grouped: the frame has many more.
    awarded_shares = a["adjudicada"].filter(a["adjudicada"] > 0)
    # Persons by number (0, 1, ...: one per identification), given or computed here: the
    # same persons as the texts, and cheap to count and to add up by.
    identity = [c for c in ("tipo_identificacion", "numero_identificacion") if c in a.columns]
    a = a.with_columns(
        (a[PERSON_KEY] if PERSON_KEY in a.columns else person_keys(a, identity)).alias("_persona")
    )
    totals = a.select(
        pl.len().alias("n"),
        *decision_counts(a),
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
            pl.col("_persona").filter(pl.col("adjudicada") > 0).n_unique().alias("adjudicatarios"),
        )
        .sort(["solicitadas", "categoria"], descending=[True, False])
    )
    limits = (
        a.filter(not_withdrawn(a) & pl.col("regla_limitante").is_not_null())
        .select("regla_limitante", "cantidad", "cantidad_permitida")
        .group_by("regla_limitante")
        .agg(
            pl.len().alias("aceptaciones"),
            (pl.col("cantidad") - pl.col("cantidad_permitida")).sum().alias("recortadas"),
        )
        .sort(["aceptaciones", "regla_limitante"], descending=[True, False])
    )

    people = _per_person(a["_persona"], a["adjudicada"])
    n = people.len()
    cumulative = people.cum_sum().to_numpy()  # read at some 400 points: numpy reads fast

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
        retiradas=int(totals["retiradas"]),
        acciones_solicitadas=requested,
        acciones_permitidas=permitted,
        acciones_adjudicadas=awarded,
        acciones_no_adjudicadas=offered - awarded,
        valor_adjudicado_centavos=_value(a, awarded, price_centavos),
        demanda_sobre_oferta=Fraction(requested, offered),
        demanda_admisible_sobre_oferta=Fraction(permitted, offered),
        colocacion=Fraction(awarded, offered),
        nuevos_accionistas=n,
        adjudicaciones=awarded_shares.len(),
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
        histograma=_histogram(awarded_shares),
        lorenz=tuple(LorenzPoint(k, cum(k)) for k in lorenz_at),
        deciles=tuple(LorenzPoint(n * p // 100, cum(n * p // 100)) for p in range(10, 101, 10)),
        gini=_gini(people),
        top1_personas=top1[0],
        top1_participacion=top1[1],
        top10_personas=top10[0],
        top10_participacion=top10[1],
    )


def _per_person(persons: pl.Series, shares: pl.Series) -> pl.Series:
    """Each awardee's shares, all their acceptances together, from the smallest (persons
    numbered 0, 1, ...; whole numbers added as whole numbers)."""
    summed = np.zeros(int(persons.max() or 0) + 1, dtype=np.int64)  # type: ignore[arg-type]
    np.add.at(summed, persons.to_numpy(), shares.to_numpy())
    return pl.Series("adjudicada", np.sort(summed[summed > 0]))


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
    x = shares.to_numpy()
    index = np.searchsorted(np.asarray(edges, dtype=np.int64), x, side="right") - 1
    counts = np.bincount(index, minlength=len(edges))
    summed = np.zeros(len(edges), dtype=np.int64)  # whole shares added as whole numbers
    np.add.at(summed, index, x)
    found = {b: (int(counts[b]), int(summed[b])) for b in np.flatnonzero(counts).tolist()}
    first, last = min(found), max(found)
    return tuple(
        HistogramBin(edges[b], edges[b + 1] - 1, *found.get(b, (0, 0)))
        for b in range(first, last + 1)
    )
