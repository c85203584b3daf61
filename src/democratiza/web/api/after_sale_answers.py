"""Answers after the sale (payments, holdings, fines, credit) as named, typed models.

``web.api.answers`` says why. Money is in centavos; rates are percentages written as text.
"""

from __future__ import annotations

from pydantic import Field

from democratiza.web.api.answers import Answer


class PaymentsAnswer(Answer):
    detalle: str
    creado: bool
    filas: int
    total: int = Field(description="Centavos")


class Settlement(Answer):
    fecha_enajenacion: str
    acciones_pagadas: int
    acciones_resueltas: int
    adjudicaciones: int


class HoldingEvent(Answer):
    tipo: str
    que: str
    fecha: str
    acciones: int
    contraprestacion: int | None = Field(description="Centavos por acción")
    detalle: str
    quien: str


class Holding(Answer):
    """An award after the sale: what was sold, its events and whether it is ineffective."""

    radicado: str
    adjudicadas: int
    fecha_enajenacion: str | None
    pagadas: int
    resueltas: int
    en_registro: int
    ineficaz: bool
    cita_ineficacia: str
    eventos: list[HoldingEvent]


class FineFigures(Answer):
    base_por_accion: int = Field(description="Centavos")
    base: str
    porcentaje: int
    monto: int = Field(description="Centavos")


class EventAnswer(Answer):
    evento: int
    tramo: str
    multa: FineFigures | None


class Condition(Answer):
    """One condition of Ley 226 art. 11 or the program, checked, with its arithmetic."""

    regla: str
    cita: str
    cumple: bool
    texto: str
    sujeto: str = Field(description="La entidad, o «líneas en su conjunto»")


class CreditCheck(Answer):
    cumple: bool
    condiciones: list[Condition]


class CreditLineRow(Answer):
    id: int
    entidad: str
    monto_disponible: int = Field(description="Centavos")
    plazo_meses: int
    gracia_meses: int
    tasa_ea: str
    fecha_otorgamiento: str
    capitalizar_gracia: bool
    garantia: str
    quien: str
    registrada_en: str


class OfferCredit(Answer):
    """An offer's credit lines and whether they let it open (Ley 226 art. 11 num. 3)."""

    oferta: str
    valor_acciones_ofrecidas: int = Field(description="Centavos")
    permite_abrir: bool
    motivo: str | None
    lineas: list[CreditLineRow]
    condiciones: list[Condition]


class FineStatementText(Answer):
    estado_de_cuenta: str


class LoanNotes(Answer):
    notas: list[str]
    cobertura: str | None
