"""A synthetic population of acceptants, from documented parameters (``docs/simulacion.md``).

Before a decree exists there are no acceptances: the ministry reasons about who is likely
to accept and how much each can buy. A parameter file says how many acceptants of each
category, how their figures are distributed (log-normal, by their median and the standard
deviation of their logarithm), and what share of their own limit each asks for. Two such
files ship in ``examples/simulacion/`` with the reasoning for their values.

The figures are drawn with a seeded generator, so a population is reproducible; amounts
become whole pesos (integers of centavos) before any rule reads them. What each asks for is
a share of the limit the *base* design leaves them (``simulate.requested``): a population
states behaviour ("asks for 60 % to 150 % of what they may buy"), not quantities that only
make sense under one design.
"""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import numpy as np
import polars as pl
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field, model_validator

from democratiza.tables.acceptances import typed_schema
from democratiza.validation_messages import validated_yaml
from democratiza.vocabulary import NATURAL_CATEGORIES, UNDERTAKINGS, Category


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class LogNormal(_Model):
    """A positive amount in pesos: half the acceptants below ``mediana``; ``sigma`` is the
    standard deviation of its natural logarithm (0,5 narrow, 1 wide, 1,5 very unequal)."""

    median: int = Field(alias="mediana", gt=0)
    sigma: float = Field(alias="sigma", ge=0, le=4)


class Interval(_Model):
    low: float = Field(alias="desde", ge=0)
    high: float = Field(alias="hasta", gt=0)

    @model_validator(mode="after")
    def _ordered(self) -> Interval:
        if self.low > self.high:
            raise ValueError("desde debe ser menor o igual que hasta")
        return self


class NaturalPersons(_Model):
    files_return: float = Field(alias="declaran_renta", ge=0, le=1)
    net_worth: LogNormal = Field(alias="patrimonio_liquido")
    income: LogNormal = Field(alias="ingresos_anuales")
    managers: float = Field(default=0, alias="directivos", ge=0, le=1)  # of active workers
    managers_pay: LogNormal | None = Field(default=None, alias="remuneracion_directivos")


class LegalPersons(_Model):
    assets: LogNormal = Field(alias="activos")
    liabilities_share: Interval = Field(alias="pasivos_sobre_activos")
    income: LogNormal = Field(alias="ingresos")
    investment_limit: LogNormal = Field(alias="limite_inversion")


class Request(_Model):
    """What each asks for: a share of their own limit under the base design."""

    share_of_limit: Interval = Field(alias="parte_del_limite")
    payment: dict[str, float] = Field(alias="forma_pago")


class PopulationSpec(_Model):
    """A population parameter file (Spanish keys; ``docs/simulacion.md``)."""

    seed: int = Field(alias="semilla")
    filing_day: date = Field(alias="fecha_radicacion")
    counts: dict[Category, int] = Field(alias="aceptantes")
    natural: NaturalPersons = Field(alias="personas_naturales")
    legal: LegalPersons | None = Field(default=None, alias="personas_juridicas")
    request: Request = Field(alias="solicitud")
    source: str = Field(alias="fuente", min_length=1)  # why these values

    @model_validator(mode="after")
    def _consistent(self) -> PopulationSpec:
        if any(n < 0 for n in self.counts.values()) or not sum(self.counts.values()):
            raise ValueError("aceptantes: cantidades de cero o más, y al menos un aceptante")
        legal = [c for c, n in self.counts.items() if n and c not in NATURAL_CATEGORIES]
        if legal and self.legal is None:
            raise ValueError("hay personas jurídicas: falta personas_juridicas")
        if abs(sum(self.request.payment.values()) - 1) > 1e-9:
            raise ValueError("solicitud.forma_pago: las proporciones deben sumar 1")
        return self

    @property
    def size(self) -> int:
        """How many acceptants the file describes (known before any is drawn)."""
        return sum(self.counts.values())


class PopulationSpecError(ValueError):
    """A population parameter file that cannot be read; the message names each key path."""


def parse_population_spec(text: str, name: str) -> PopulationSpec:
    """A population parameter file's text (``name`` is how its problems are introduced)."""
    return validated_yaml(PopulationSpec, text, name, PopulationSpecError, floats=True)


def load_population_spec(path: Path) -> PopulationSpec:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PopulationSpecError(f"{path}: no se pudo leer ({exc})") from None
    return parse_population_spec(text, str(path))


def _amounts(rng: np.random.Generator, law: LogNormal, n: int) -> NDArray[np.int64]:
    """``n`` amounts in centavos of whole pesos, drawn from the log-normal law."""
    pesos = np.rint(law.median * np.exp(law.sigma * rng.standard_normal(n)))
    centavos: NDArray[np.int64] = np.maximum(pesos, 1).astype(np.int64) * 100
    return centavos


def _column(values: NDArray[np.int64], where: NDArray[np.bool_]) -> pl.Series:
    """Values on the rows ``where`` holds, missing elsewhere."""
    return pl.Series(values, dtype=pl.Int64).set(pl.Series(~where), None)


def population(spec: PopulationSpec) -> pl.DataFrame:
    """The acceptances, typed as the engine reads them, one per acceptant, ``cantidad`` 0
    (``simulate.requested`` sets it), with radicados in the order they are listed."""
    rng = np.random.default_rng(spec.seed)
    categories = np.concatenate(
        [np.full(n, c, dtype=object) for c, n in spec.counts.items() if n]
    ).astype(str)
    n = categories.size
    natural = np.isin(categories, sorted(NATURAL_CATEGORIES))
    active = categories == "trabajador_activo"
    files = natural & (rng.random(n) < spec.natural.files_return)
    manager = active & (rng.random(n) < spec.natural.managers)
    pay_law = spec.natural.managers_pay or spec.natural.income
    legal = spec.legal
    assets = _amounts(rng, legal.assets, n) if legal else np.zeros(n, dtype=np.int64)
    low, high = (legal.liabilities_share.low, legal.liabilities_share.high) if legal else (0, 0)
    share = rng.uniform(low, high, n)
    liabilities = np.rint(assets // 100 * share).astype(np.int64) * 100  # whole pesos
    natural_income = _amounts(rng, spec.natural.income, n)
    legal_income = _amounts(rng, legal.income, n) if legal else natural_income
    methods = list(spec.request.payment)
    payment = rng.choice(methods, size=n, p=[spec.request.payment[m] for m in methods])
    payment = np.where(~natural & (payment == "cesantias"), "contado", payment)
    when = datetime.combine(spec.filing_day, datetime.min.time()).replace(hour=10)
    frame = pl.DataFrame(
        {
            "fila": np.arange(1, n + 1),
            "referencia": [f"S-{i:07d}" for i in range(1, n + 1)],
            "comisionista": "simulación",
            "fecha_radicacion": [when] * n,
            "tipo_identificacion": np.where(natural, "CC", "NIT"),
            "numero_identificacion": [f"{i:010d}" for i in range(1, n + 1)],
            "nombre": [f"Aceptante {i}" for i in range(1, n + 1)],
            "categoria": categories,
            "cantidad": np.zeros(n, dtype=np.int64),
            "forma_pago": payment,
            "obligado_declarar": files,
            "patrimonio_liquido": _column(_amounts(rng, spec.natural.net_worth, n), files),
            "ingresos_declaracion": _column(
                np.where(natural, natural_income, legal_income), files | ~natural
            ),
            "ingresos_certificado": _column(natural_income, natural & ~files),
            "estado_certificado": _employer_status(categories),
            "fecha_certificado": [spec.filing_day] * n,
            "directivo": manager,
            "remuneracion_anual": _column(_amounts(rng, pay_law, n), manager),
            "activos_totales": _column(assets, ~natural),
            "pasivos_totales": _column(liabilities, ~natural),
            "superavit_valorizacion": _column(np.zeros(n, dtype=np.int64), ~natural),
            "ingresos_estados_financieros": _column(legal_income, ~natural),
            "limite_inversion": _column(
                _amounts(rng, legal.investment_limit, n) if legal else assets, ~natural
            ),
            **{u: np.ones(n, dtype=bool) for u in UNDERTAKINGS},
        }
    )
    schema = typed_schema()
    missing = [pl.lit(None, dtype=t).alias(c) for c, t in schema.items() if c not in frame.columns]
    return frame.with_columns(missing).select(pl.col(c).cast(t) for c, t in schema.items())


# What the employer's certificate says of each natural category.
EMPLOYER_STATUS = {
    "trabajador_activo": "activo",
    "pensionado": "pensionado",
    "extrabajador": "extrabajador",
}


def _employer_status(categories: NDArray[np.str_]) -> list[str | None]:
    return [EMPLOYER_STATUS.get(c) for c in categories.tolist()]
