"""The public calculator: "¿cuántas acciones puedo comprar?", answered by the engine itself.

Why like this: a calculator that re-implemented a limit would one day disagree with the
adjudication. Like ``democratiza calcular``, it builds one acceptance and runs the same
``CompiledProgram.evaluate`` as a batch of one; the explanation comes from the same
``Explainer``. It assumes the written undertakings will be signed: it answers what the
*limits* permit, asking for the largest quantity unless one is given.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from fractions import Fraction

from pydantic import BaseModel, Field

from democratiza.labels import label
from democratiza.money import MoneyError, parse_pesos, pesos, price_text, round_centavos
from democratiza.programs.parameters import Offer, OfferParameterError
from democratiza.rules.calculator import MONEY_FIELDS, Question, ask
from democratiza.rules.explain import cite
from democratiza.tables.format import MAX_PESOS, MAX_SHARES
from democratiza.vocabulary import CATEGORIES, Category
from democratiza.web.errors import ErrorItem, Unprocessable


class CalculatorInput(BaseModel):
    """Montos en pesos como texto ("48000000", "2075.31" o "48.000.000,50")."""

    oferta: str | None = Field(None, max_length=80, description="Código de una oferta")
    programa: str | None = Field(None, max_length=80, description="Id del programa")
    categoria: Category
    cantidad: int | None = Field(None, ge=1, le=MAX_SHARES)
    obligado_declarar: bool = True
    extranjero: bool = False
    directivo: bool = False
    fecha_ingreso_directivo: date | None = None
    meses_en_cargo: int | None = Field(None, ge=0, le=1200)
    forma_pago: str = Field("contado", max_length=20)
    fecha: date | None = Field(None, description="día en que se radicaría; vacío: hoy")
    patrimonio_liquido: str | None = Field(None, max_length=40)
    ingresos_declaracion: str | None = Field(None, max_length=40)
    ingresos_certificado: str | None = Field(None, max_length=40)
    ingresos_usd: str | None = Field(None, max_length=40)
    remuneracion_anual: str | None = Field(None, max_length=40)
    salario_mensual: str | None = Field(None, max_length=40)
    activos_totales: str | None = Field(None, max_length=40)
    pasivos_totales: str | None = Field(None, max_length=40)
    superavit_valorizacion: str | None = Field(None, max_length=40)
    ingresos_estados_financieros: str | None = Field(None, max_length=40)
    limite_inversion: str | None = Field(None, max_length=40)


class CalculatorResult(BaseModel):
    programa: str
    decision: str
    cantidad_permitida: int
    resumen: str
    regla_limitante: str | None
    regla_limitante_nombre: str | None
    regla_limitante_cita: str | None
    limites: list[str]
    causas: list[str]
    precio: str = Field(description="precio por acción al que se calcula (el vigente de la oferta)")
    valor: str = Field(
        description="lo que cuestan las acciones permitidas a ese precio, al centavo más cercano"
    )


def amount_errors(values: Mapping[str, object]) -> list[ErrorItem]:
    """Every amount typed wrong, each under its field (all at once, not the first only)."""
    items = []
    for name in MONEY_FIELDS:
        text = values.get(name)
        if isinstance(text, str) and text.strip():
            problem = _amount_problem(text)
            if problem:
                items.append(ErrorItem(columna=name, mensaje=problem))
    return items


def _amount_problem(text: str) -> str | None:
    try:
        value = parse_pesos(text)
    except MoneyError as exc:
        return str(exc)
    if value < 0:
        return "el monto no puede ser negativo"
    if value > MAX_PESOS:
        return "el monto está fuera de todo rango plausible"
    return None


def centavos(text: str | None) -> int | None:
    """An amount as a person types it (``money.parse_pesos``), already checked by
    ``amount_errors``."""
    if text is None or not text.strip():
        return None
    return parse_pesos(text)


def calculate(offer: Offer, data: CalculatorInput) -> CalculatorResult:
    if data.categoria not in CATEGORIES:
        raise Unprocessable(
            "La categoría no existe.",
            [ErrorItem(columna="categoria", mensaje=f"categoría desconocida '{data.categoria}'")],
        )
    if offer.program.category(data.categoria) is None:
        raise Unprocessable(
            "La categoría no es de este programa.",
            [ErrorItem(columna="categoria", mensaje=_not_listed(offer, data.categoria))],
        )
    wrong = amount_errors(data.model_dump())
    if wrong:
        raise Unprocessable("Hay montos que no se entienden.", wrong)
    question = Question(
        category=data.categoria,
        quantity=data.cantidad,
        files_tax_return=data.obligado_declarar,
        foreigner=data.extranjero,
        manager=data.directivo,
        manager_since=data.fecha_ingreso_directivo,
        months_in_post=data.meses_en_cargo,
        payment=data.forma_pago,
        filed_on=data.fecha,
        amounts={name: centavos(getattr(data, name)) for name in MONEY_FIELDS},
    )
    try:
        answer = ask(offer, question)
    except OfferParameterError as exc:
        raise Unprocessable(
            "No se puede calcular con esta oferta.",
            [ErrorItem(mensaje=m) for m in exc.messages],
        ) from None
    explanation, rule = answer.explanation, answer.binding
    return CalculatorResult(
        programa=offer.program.id,
        decision=explanation.decision,
        cantidad_permitida=answer.permitted,
        resumen=answer.headline,
        regla_limitante=rule.id if rule else None,
        regla_limitante_nombre=rule.name if rule else None,
        regla_limitante_cita=cite(offer.program, rule.citation) if rule else None,
        limites=list(explanation.limits),
        causas=list(explanation.causes),
        precio=price_text(offer.price),
        valor=pesos(round_centavos(Fraction(offer.price) * answer.permitted)),
    )


def _not_listed(offer: Offer, category: str) -> str:
    """Why a category is refused, in the program's words: which categories it has."""
    names = ", ".join(c.name for c in offer.program.categories)
    return (
        f"«{label('categoria', category)}» no es una categoría de {offer.program.name}; "
        f"las suyas son: {names}"
    )
