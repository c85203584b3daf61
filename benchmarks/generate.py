"""Synthetic acceptance files for benchmarks: text columns exactly in the acceptance format.

``generate(n)`` returns ``n`` acceptances as a frame of String columns (nulls are empty
cells), named and ordered as ``democratiza.tables.acceptances.COLUMNS``, so that written as CSV it
is a file a broker could have filed. Everything is drawn at once with NumPy (no per-row
Python), deterministically for a seed.

The mix (shares of all rows unless said otherwise):

* ~97 % natural persons: trabajador_activo / pensionado / extrabajador ≈ 60 / 25 / 15;
  of them ~3 % managers (active workers with ``remuneracion_anual``; ~10 % of those reached
  the post after the program's manager cut-off date and carry ``fecha_ingreso_directivo``),
  ~1 % foreigners (``ingresos_usd``, no peso income; only when the program has a ``trm``
  parameter), and ~35 % of the nationals not obliged to file a tax return (certificado de
  ingresos instead of declaración); ~0.3 % are ex-workers dismissed for just cause;
* ~3 % legal persons (the program's other categories) with financial statements;
* ~1 % rows the *engine* rejects (the file itself stays valid): a missing undertaking, zero
  net worth, a missing income document, cesantías for a legal person, an employer
  certificate that does not match the category;
* ~5 % of the valid rows request exactly their smallest limit (a fifth of them one share
  more), so that the limit boundaries are exercised.

Amounts are log-normal in realistic ranges of pesos; quantities go from 100 to ~5,000,000
shares. Filing dates fall on business days between 2 January and 26 February 2018.

CLI: ``python benchmarks/generate.py N OUT.csv [--seed S] [--programa ID]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import polars as pl
from numpy.typing import NDArray

from democratiza.calendar import is_business_day
from democratiza.programs.loader import load_program
from democratiza.programs.parameters import Offer, make_offer
from democratiza.programs.schema import Condition, LimitRule
from democratiza.rules.caps import fixed_cap
from democratiza.tables.acceptances import COLUMNS
from democratiza.vocabulary import NATURAL_CATEGORIES

Ints = NDArray[np.int64]
Bools = NDArray[np.bool_]

EPOCH = date(1970, 1, 1)
FIRST_FILING_DAY = date(2018, 1, 2)
LAST_FILING_DAY = date(2018, 2, 26)  # the GEB Primera Etapa closed on 26 Feb 2018
DEFAULT_MANAGER_CUTOFF = date(2017, 12, 20)
NO_LIMIT = np.iinfo(np.int64).max

NATURAL_WEIGHTS = {"trabajador_activo": 60.0, "pensionado": 25.0, "extrabajador": 15.0}
LEGAL_WEIGHTS = {
    "fondo_empleados": 28.0,
    "cooperativa": 20.0,
    "asociacion_empleados": 10.0,
    "sindicato": 10.0,
    "caja_compensacion": 8.0,
    "fondo_mutuo_inversion": 8.0,
    "fondo_pensiones_cesantias": 6.0,
    "federacion_sindicatos": 5.0,
    "confederacion_sindicatos": 5.0,
}
LEGAL_PREFIX = {
    "fondo_empleados": "Fondo de Empleados",
    "cooperativa": "Cooperativa Multiactiva",
    "asociacion_empleados": "Asociación de Empleados",
    "sindicato": "Sindicato de Trabajadores",
    "caja_compensacion": "Caja de Compensación Familiar",
    "fondo_mutuo_inversion": "Fondo Mutuo de Inversión",
    "fondo_pensiones_cesantias": "Fondo de Pensiones y Cesantías",
    "federacion_sindicatos": "Federación Sindical",
    "confederacion_sindicatos": "Confederación de Trabajadores",
}
# fmt: off
FIRST_NAMES = (
    "Ana", "Luis", "María", "Carlos", "Diana", "Jorge", "Paula", "Andrés", "Luz", "Juan",
    "Claudia", "Pedro", "Sandra", "Felipe", "Marta", "Óscar", "Gloria", "Camilo", "Rosa",
    "Hernán", "Adriana", "Javier", "Patricia", "Mauricio", "Lucía", "Édgar", "Natalia",
    "Germán", "Catalina", "Ramiro", "Ángela", "Sergio",
)
SURNAMES = (
    "Pérez", "Rodríguez", "Gómez", "González", "Martínez", "García", "López", "Hernández",
    "Sánchez", "Ramírez", "Torres", "Díaz", "Vargas", "Moreno", "Rojas", "Castro", "Ortiz",
    "Muñoz", "Jiménez", "Suárez", "Romero", "Herrera", "Medina", "Aguilar", "Cárdenas",
    "Peña", "Quintero", "Salazar", "Zapata", "Bermúdez", "Restrepo", "Ospina",
)
PLACES = (
    "Bogotá", "Sabana", "Los Andes", "Cundinamarca", "Del Sur", "Energía", "Progreso",
    "Solidaridad", "Porvenir", "Santa Fe", "El Dorado", "Tequendama", "Sumapaz", "Guavio",
)
# fmt: on
ACTIVE_STATUSES = ("activo", "pensionado", "extrabajador")

# Engine-level invalid rows (the file format stays valid).
INVALID_KINDS = (
    "falta_compromiso",
    "patrimonio_cero",
    "falta_documento_ingresos",
    "cesantias_persona_juridica",
    "certificado_no_coincide",
)
INVALID_SHARE = 0.01
BOUNDARY_SHARE = 0.05


def _log_uniform_fallback(
    rng: np.random.Generator,
    z: NDArray[np.float64],
    median: float,
    sigma: float,
    lo: float,
    hi: float,
) -> NDArray[np.float64]:
    """exp(ln median + sigma z) in [lo, hi]; values outside are redrawn log-uniformly."""
    x: NDArray[np.float64] = np.exp(np.log(median) + sigma * z)
    out = (x < lo) | (x > hi)
    x[out] = np.exp(rng.uniform(np.log(lo), np.log(hi), int(out.sum())))
    return x


def _lognormal(
    rng: np.random.Generator,
    n: int,
    median: float,
    sigma: float,
    lo: float,
    hi: float,
) -> NDArray[np.float64]:
    return _log_uniform_fallback(rng, rng.standard_normal(n), median, sigma, lo, hi)


def _pesos_to_centavos(
    rng: np.random.Generator,
    pesos: NDArray[np.float64],
    with_cents: float,
) -> Ints:
    """Whole pesos; a share ``with_cents`` of the figures also carries centavos."""
    cents = np.rint(pesos).astype(np.int64) * 100
    extra = rng.random(pesos.size) < with_cents
    cents[extra] += rng.integers(1, 100, int(extra.sum()))
    return cents


def _weighted(rng: np.random.Generator, n: int, weights: list[float]) -> Ints:
    p = np.asarray(weights, dtype=np.float64)
    return rng.choice(len(weights), size=n, p=p / p.sum()).astype(np.int64)


def _filing_days() -> tuple[Ints, NDArray[np.float64]]:
    """Business days of the window (days since 1970) and their weights (later is busier)."""
    days: list[int] = []
    day = FIRST_FILING_DAY
    while day <= LAST_FILING_DAY:
        if is_business_day(day):
            days.append((day - EPOCH).days)
        day += timedelta(days=1)
    position = np.linspace(0.0, 1.0, len(days))
    weights = 1.0 + 2.0 * position + 6.0 * (position > 0.85)
    return np.asarray(days, dtype=np.int64), weights / weights.sum()


class _Figures:
    """The numeric content of the rows: amounts in centavos (cents of a dollar), with masks."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.amounts: dict[str, Ints] = {}
        self.present: dict[str, Bools] = {}

    def set(self, name: str, mask: Bools, values: Ints | int) -> None:
        """Values for the rows of ``mask``: one per selected row, or one for all of them."""
        column = self.amounts.setdefault(name, np.zeros(self.n, dtype=np.int64))
        present = self.present.setdefault(name, np.zeros(self.n, dtype=np.bool_))
        column[mask] = values
        present |= mask

    def clear(self, name: str, mask: Bools) -> None:
        if name in self.present:
            self.present[name] &= ~mask

    def get(self, name: str) -> tuple[Ints, Bools]:
        if name not in self.amounts:
            return np.zeros(self.n, dtype=np.int64), np.zeros(self.n, dtype=np.bool_)
        return self.amounts[name], self.present[name]


def _condition_mask(
    cond: Condition,
    flags: dict[str, Bools],
    categories: NDArray[np.str_],
) -> Bools:
    mask = np.ones(categories.size, dtype=np.bool_)
    if cond.person is not None:
        mask &= flags["natural"] if cond.person == "natural" else ~flags["natural"]
    if cond.categories is not None:
        mask &= np.isin(categories, list(cond.categories))
    pairs = (
        (cond.files_tax_return, "obligado_declarar"),
        (cond.foreigner, "extranjero"),
        (cond.manager, "directivo"),
        (cond.new_manager, "directivo_nuevo"),
    )
    for wanted, name in pairs:
        if wanted is not None:
            mask &= flags[name] == wanted
    return mask


def _source(name: str, figures: _Figures) -> tuple[Ints, Bools]:
    if name == "patrimonio_ajustado":
        a, pa = figures.get("activos_totales")
        d, pd = figures.get("pasivos_totales")
        s, ps = figures.get("superavit_valorizacion")
        return a - d - s, pa & pd & ps
    if name in ("ingresos_usd", "salario_mensual_anualizado"):
        # Dollars need the office's TRM; monthly salaries are not generated: never a boundary.
        return np.zeros(figures.n, dtype=np.int64), np.zeros(figures.n, dtype=np.bool_)
    return figures.get(name)


def _rule_limit(
    rule: LimitRule,
    offer: Offer,
    figures: _Figures,
    flags: dict[str, Bools],
    categories: NDArray[np.str_],
) -> tuple[Ints, Bools]:
    """(shares allowed or NO_LIMIT, rows the rule applies to but whose figure is missing)."""
    applies = _condition_mask(rule.applies_when, flags, categories)
    none = np.zeros(figures.n, dtype=np.bool_)
    if rule.cap_financed is not None:  # no generated row pays in instalments
        return np.full(figures.n, NO_LIMIT, dtype=np.int64), none
    if rule.base is None:  # a cap the file fixes: the same for every row it applies to
        cap = fixed_cap(rule, offer).shares
        return np.where(applies, cap, NO_LIMIT).astype(np.int64), none
    sources = [_source(s, figures) for s in rule.base.sources]
    amount = np.zeros(figures.n, dtype=np.int64)
    found = np.zeros(figures.n, dtype=np.bool_)
    for value, present in sources:
        if rule.base.combine == "mayor":
            take = present & (~found | (value > amount))
        else:
            take = present & ~found
        amount = np.where(take, value, amount)
        found |= present
    frac = rule.fraction
    shares = np.where(
        amount <= 0, 0, amount * frac.numerator // (frac.denominator * offer.price_centavos)
    )
    return np.where(applies & found, shares, NO_LIMIT).astype(np.int64), applies & ~found


def _smallest_limit(
    offer: Offer,
    figures: _Figures,
    flags: dict[str, Bools],
    categories: NDArray[np.str_],
) -> tuple[Ints, Bools]:
    """Each row's smallest limit, and whether it is known (no missing figure, no dollars)."""
    least = np.full(figures.n, NO_LIMIT, dtype=np.int64)
    known = ~flags["extranjero"]
    for rule in offer.program.limits:
        shares, missing = _rule_limit(rule, offer, figures, flags, categories)
        least = np.minimum(least, shares)
        known &= ~missing
    return least, known & (least != NO_LIMIT)


def _table(values: Sequence[str | None], index: Ints) -> pl.Series:
    """``values[index]`` for every row, from a small table of strings."""
    return pl.Series(list(values), dtype=pl.String).gather(index)


def _sparse(present: Bools, text: pl.Series) -> pl.Series:
    """A full column: ``text`` (one string per present row) where present, null elsewhere."""
    full = pl.Series([None], dtype=pl.String).extend_constant(None, present.size - 1)
    return full.scatter(np.flatnonzero(present), text)


def _money(cents: Ints, explicit_decimals: Bools) -> pl.Series:
    """Centavos as the format writes them: 48000000, 2075.31 or (sometimes) 48000000.00."""
    frame = pl.DataFrame({"c": cents, "d": explicit_decimals})
    whole = (pl.col("c") // 100).cast(pl.String)
    frac = (pl.col("c") % 100).cast(pl.String).str.zfill(2)
    show = ((pl.col("c") % 100) != 0) | pl.col("d")
    return frame.select(
        pl.when(show).then(pl.concat_str([whole, pl.lit("."), frac])).otherwise(whole)
    ).to_series()


def _iso_days(days: Ints) -> list[str]:
    return [(EPOCH + timedelta(days=int(d))).isoformat() for d in days]


def generate(
    n: int,
    seed: int = 2017,
    program_id: str = "geb-2017",
    params: dict[str, object] | None = None,
) -> pl.DataFrame:
    """``n`` acceptances for ``program_id`` as text columns in the acceptance file format.

    ``params`` sets the offer parameters the program leaves open (e.g. the price of EBSA).
    """
    if n < 1:
        raise ValueError("n debe ser positivo")
    program = load_program(program_id)
    offer = make_offer(program, params)
    rng = np.random.default_rng(seed)
    figures = _Figures(n)

    # --- who files -------------------------------------------------------------------------
    natural_ids = [c.id for c in program.categories if c.id in NATURAL_CATEGORIES]
    legal_ids = [c.id for c in program.categories if c.id not in NATURAL_CATEGORIES]
    invalid = rng.random(n) < INVALID_SHARE
    invalid_kind = np.where(invalid, rng.integers(0, len(INVALID_KINDS), n), -1)

    def kind_is(name: str) -> Bools:
        hit: Bools = invalid_kind == INVALID_KINDS.index(name)
        return hit

    legal = rng.random(n) < (0.03 if legal_ids else 0.0)
    if legal_ids:
        legal |= kind_is("cesantias_persona_juridica")
    else:
        invalid_kind[kind_is("cesantias_persona_juridica")] = INVALID_KINDS.index(
            "falta_compromiso"
        )
    needs_natural = (
        kind_is("patrimonio_cero")
        | kind_is("falta_documento_ingresos")
        | kind_is("certificado_no_coincide")
    )
    legal &= ~needs_natural
    natural = ~legal

    nat_idx = _weighted(rng, n, [NATURAL_WEIGHTS.get(c, 1.0) for c in natural_ids])
    leg_idx = (
        _weighted(rng, n, [LEGAL_WEIGHTS.get(c, 1.0) for c in legal_ids])
        if legal_ids
        else np.zeros(n, dtype=np.int64)
    )
    all_ids = [*natural_ids, *legal_ids]
    cat_idx = np.where(natural, nat_idx, len(natural_ids) + leg_idx)
    categories = np.asarray(all_ids)[cat_idx]
    active = categories == "trabajador_activo"
    ex_worker = categories == "extrabajador"

    has_trm = "trm" in program.parameters
    foreign = natural & (rng.random(n) < (0.01 if has_trm else 0.0)) & ~needs_natural
    national = natural & ~foreign
    manager = active & ~foreign & (rng.random(n) < 0.05)  # ≈ 3 % of the natural persons
    obliged = national & ((rng.random(n) < 0.65) | manager | kind_is("patrimonio_cero"))
    cutoff = offer.day("fecha_corte_directivos") or DEFAULT_MANAGER_CUTOFF
    new_manager = manager & (rng.random(n) < 0.10)
    just_cause = ex_worker & (rng.random(n) < 0.02)  # ≈ 0.3 % of all rows

    # --- when ------------------------------------------------------------------------------
    days, weights = _filing_days()
    filing_day = days[rng.choice(days.size, size=n, p=weights)]
    filing_seconds = filing_day * 86_400 + rng.integers(8 * 3600, 17 * 3600, n)
    certificate_day = filing_day - rng.integers(0, 28, n)
    cutoff_day = (cutoff - EPOCH).days
    joined_day = cutoff_day + 1 + rng.integers(0, np.maximum(filing_day - cutoff_day, 1))
    months_in_post = np.where(
        new_manager, np.maximum((filing_day - joined_day) // 30, 0), rng.integers(1, 300, n)
    )
    founded_day = (date(1960, 1, 1) - EPOCH).days + rng.integers(0, 56 * 365, n)

    # --- natural persons' figures (drawn only for the rows that carry them) -----------------
    k = int(obliged.sum())
    z_worth = rng.standard_normal(k)
    z_income = 0.6 * z_worth + 0.8 * rng.standard_normal(k)
    net_worth = _log_uniform_fallback(rng, z_worth, 150e6, 1.1, 10e6, 2_000e6)
    income = _log_uniform_fallback(rng, z_income, 60e6, 0.8, 10e6, 500e6)
    pay = _lognormal(rng, int(manager.sum()), 250e6, 0.5, 100e6, 1_500e6)
    managers_among_obliged = manager[obliged]  # every manager is obliged to file
    income[managers_among_obliged] = np.maximum(
        income[managers_among_obliged], pay * rng.uniform(1.0, 1.3, pay.size)
    )
    not_obliged = national & ~obliged
    certified = _lognormal(rng, int(not_obliged.sum()), 25e6, 0.4, 10e6, 45e6)
    usd = _lognormal(rng, int(foreign.sum()), 40e3, 0.9, 5e3, 400e3)

    figures.set("patrimonio_liquido", obliged, _pesos_to_centavos(rng, net_worth, 0.02))
    figures.set("ingresos_declaracion", obliged, _pesos_to_centavos(rng, income, 0.02))
    figures.set("ingresos_certificado", not_obliged, _pesos_to_centavos(rng, certified, 0.30))
    figures.set("ingresos_usd", foreign, _pesos_to_centavos(rng, usd, 0.10))
    figures.set("remuneracion_anual", manager, _pesos_to_centavos(rng, pay, 0.20))

    # --- legal persons' figures ------------------------------------------------------------
    k = int(legal.sum())
    assets = _lognormal(rng, k, 8e9, 1.8, 1e8, 1e12)
    debts = assets * rng.beta(2.0, 3.0, k)
    surplus = np.where(rng.random(k) < 0.4, 0.0, assets * rng.uniform(0.0, 0.08, k))
    legal_income = np.minimum(assets * _lognormal(rng, k, 0.35, 0.6, 0.02, 3.0), 1e12)
    statements_income = np.minimum(legal_income * rng.uniform(0.97, 1.08, k), 1e12)
    adjusted = np.maximum(assets - debts - surplus, 0.0)
    investment_cap = np.maximum(adjusted, assets * 0.05) * rng.uniform(0.05, 0.6, k)

    figures.set("activos_totales", legal, _pesos_to_centavos(rng, assets, 0.05))
    figures.set("pasivos_totales", legal, _pesos_to_centavos(rng, debts, 0.05))
    figures.set("superavit_valorizacion", legal, _pesos_to_centavos(rng, surplus, 0.05))
    figures.set("ingresos_declaracion", legal, _pesos_to_centavos(rng, legal_income, 0.0))
    figures.set(
        "ingresos_estados_financieros", legal, _pesos_to_centavos(rng, statements_income, 0.05)
    )
    figures.set("limite_inversion", legal, _pesos_to_centavos(rng, investment_cap, 0.0))

    # --- what they ask for ------------------------------------------------------------------
    quantity = np.empty(n, dtype=np.int64)
    quantity[legal] = _lognormal(rng, int(legal.sum()), 400e3, 1.5, 100, 5e6)
    quantity[natural] = _lognormal(rng, int(natural.sum()), 12e3, 1.4, 100, 5e6)
    round_hundreds = rng.random(n) < 0.7
    quantity = np.where(round_hundreds, np.maximum(quantity // 100 * 100, 100), quantity)

    payment_names = np.asarray(["contado", "credito", "cesantias"])
    payment = _weighted(rng, n, [55.0, 30.0, 15.0])
    no_severance = legal | (categories == "pensionado")
    payment = np.where(no_severance & (payment == 2), 0, payment)

    # --- engine-level invalid rows ---------------------------------------------------------
    undertakings = [u.id for u in program.undertakings]
    if program.sworn_statement is not None:
        undertakings.append(program.sworn_statement.id)
    undertaking_given = {u: np.ones(n, dtype=np.bool_) for u in undertakings}
    undertaking_blank = {u: np.zeros(n, dtype=np.bool_) for u in undertakings}
    missing_undertaking = kind_is("falta_compromiso")
    which = rng.integers(0, len(undertakings), n)
    blank = rng.random(n) < 0.5
    for i, u in enumerate(undertakings):
        hit = missing_undertaking & (which == i)
        undertaking_given[u] &= ~hit
        undertaking_blank[u] |= hit & blank

    zero_worth = kind_is("patrimonio_cero") & obliged
    figures.set("patrimonio_liquido", zero_worth, 0)

    no_income_doc = kind_is("falta_documento_ingresos")
    for name in ("patrimonio_liquido", "ingresos_declaracion", "ingresos_certificado"):
        figures.clear(name, no_income_doc)

    payment = np.where(kind_is("cesantias_persona_juridica") & legal, 2, payment)

    status_of = {c.id: c.employer_status for c in program.categories}
    status_idx = np.asarray(
        [ACTIVE_STATUSES.index(s) if s else -1 for s in (status_of[c] for c in all_ids)]
    )[cat_idx]
    mismatch = kind_is("certificado_no_coincide") & (status_idx >= 0)
    status_idx = np.where(mismatch, (status_idx + rng.integers(1, 3, n)) % 3, status_idx)

    # --- requests exactly at a limit --------------------------------------------------------
    flags = {
        "natural": natural,
        "obligado_declarar": obliged,
        "extranjero": foreign,
        "directivo": manager,
        "directivo_nuevo": new_manager,
    }
    least, known = _smallest_limit(offer, figures, flags, categories)
    boundary = known & ~invalid & (least >= 1) & (rng.random(n) < BOUNDARY_SHARE)
    one_over = rng.random(n) < 0.2
    quantity = np.where(boundary, least + one_over, quantity)

    # --- text ------------------------------------------------------------------------------
    # Strings are formatted only where a cell has a value, or looked up in small tables.
    brokers = _weighted(rng, n, [float(w) for w in (30, 18, 12, 9, 7, 6, 5, 4, 3, 2, 2, 2)])
    id_type = np.where(legal, 4, np.where(foreign, 1 + (rng.random(n) < 0.4), 0))
    id_base = np.where(legal, 800_000_000, np.where(foreign, 300_000, 10_000_000))
    id_number = id_base + rng.permutation(n).astype(np.int64) * 7 + rng.integers(0, 7, n)
    legal_names = [LEGAL_PREFIX.get(c, c) for c in legal_ids] or ["Entidad"]
    people = [f"{f} {s1} {s2}" for f in FIRST_NAMES for s1 in SURNAMES for s2 in SURNAMES]
    entities = [f"{p} {place}" for p in legal_names for place in PLACES]
    person_idx = (
        rng.integers(0, len(FIRST_NAMES), n) * len(SURNAMES) + rng.integers(0, len(SURNAMES), n)
    ) * len(SURNAMES) + rng.integers(0, len(SURNAMES), n)
    entity_idx = len(people) + leg_idx * len(PLACES) + rng.integers(0, len(PLACES), n)
    explicit_decimals = rng.random(n) < 0.02
    seconds = filing_seconds - filing_day * 86_400
    first_second = int(seconds.min())
    times = [
        f"T{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}"
        for s in range(first_second, int(seconds.max()) + 1)
    ]

    width = max(7, len(str(n)))
    columns: dict[str, pl.Series] = {
        "referencia": pl.select(
            pl.concat_str(
                [
                    pl.lit("AC-"),
                    (pl.int_range(1, n + 1, dtype=pl.Int64) + 10**width)
                    .cast(pl.String)
                    .str.slice(1),
                ]
            )
        ).to_series(),
        "comisionista": _table([f"SCB{i:02d}" for i in range(1, 13)], brokers),
        "fecha_radicacion": pl.select(
            pl.concat_str(
                [
                    _table(_iso_days(days), np.searchsorted(days, filing_day)),
                    _table(times, seconds - first_second),
                ]
            )
        ).to_series(),
        "tipo_identificacion": _table(["CC", "CE", "PA", "TI", "NIT"], id_type),
        "numero_identificacion": pl.Series(id_number).cast(pl.String),
        "nombre": _table([*people, *entities], np.where(legal, entity_idx, person_idx)),
        "categoria": _table(all_ids, cat_idx),
        "cantidad": pl.Series(quantity).cast(pl.String),
        "forma_pago": _table(list(payment_names), payment),
        "estado_certificado": _table(
            [*ACTIVE_STATUSES, None], np.where(status_idx < 0, 3, status_idx)
        ),
        "meses_en_cargo": _sparse(manager, pl.Series(months_in_post[manager]).cast(pl.String)),
    }
    for name, amounts in figures.amounts.items():
        present = figures.present[name]
        columns[name] = _sparse(present, _money(amounts[present], explicit_decimals[present]))
    flags_text: dict[str, tuple[Bools, Bools]] = {
        "extranjero": (foreign, natural),
        "obligado_declarar": (obliged, national),
        "retiro_justa_causa": (just_cause, ex_worker),
        "directivo": (manager, natural),
    }
    for u in undertakings:
        flags_text[u] = (undertaking_given[u], ~undertaking_blank[u])
    for name, (value, present) in flags_text.items():
        columns[name] = _table(["no", "si", None], np.where(present, value.astype(np.int64), 2))
    dated: dict[str, tuple[Ints, Bools]] = {
        "fecha_certificado": (certificate_day, natural),
        "fecha_ingreso_directivo": (joined_day, new_manager),
        "fecha_constitucion": (founded_day, legal),
    }
    for name, (day, present) in dated.items():
        text = pl.Series(day[present].astype(np.int32)).cast(pl.Date).cast(pl.String)
        columns[name] = _sparse(present, text)
    unknown = set(columns) - {c.name for c in COLUMNS}
    assert not unknown, unknown
    empty = pl.Series([None], dtype=pl.String).extend_constant(None, n - 1)
    return pl.DataFrame([columns.get(c.name, empty).alias(c.name) for c in COLUMNS])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="Genera un archivo CSV de aceptaciones sintéticas (formato de aceptaciones)."
    )
    parser.add_argument("n", type=int, help="número de aceptaciones")
    parser.add_argument("salida", type=Path, help="archivo CSV de salida")
    parser.add_argument("--seed", type=int, default=2017, help="semilla (por defecto 2017)")
    parser.add_argument("--programa", default="geb-2017", help="programa (por defecto geb-2017)")
    parser.add_argument(
        "--parametro", action="append", default=[], help="parámetro de la oferta NOMBRE=VALOR"
    )
    args = parser.parse_args(argv)
    params: dict[str, object] = dict(p.split("=", 1) for p in args.parametro)
    start = time.perf_counter()
    frame = generate(args.n, seed=args.seed, program_id=args.programa, params=params)
    generated = time.perf_counter() - start
    frame.write_csv(args.salida, separator=",")
    total = time.perf_counter() - start
    print(
        f"{frame.height} aceptaciones en {args.salida} "
        f"(generación {generated:.2f} s, total {total:.2f} s)"
    )


if __name__ == "__main__":
    main()
