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


class SettlementFiguresAnswer(Answer):
    """Después de adjudicar: lo adjudicado, lo pagado, lo que falta y lo resuelto."""

    valor_adjudicado: int = Field(description="Centavos")
    pagado: int = Field(description="Centavos recibidos")
    por_pagar: int = Field(description="Centavos que faltan, adjudicación por adjudicación")
    pagado_de_mas: int = Field(
        description="Centavos recibidos por encima del valor de cada adjudicación, sumados"
    )
    liquidada: bool = Field(description="Si el periodo de pago ya se liquidó")
    acciones_pagadas: int = Field(description="Liquidado el periodo (0 antes)")
    acciones_resueltas: int = Field(description="Liquidado el periodo (0 antes)")
    valor_resuelto: int = Field(description="Centavos, liquidado el periodo")


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
    """Una adjudicación después de la venta: lo vendido, sus eventos y si es ineficaz."""

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
    """Una condición de la Ley 226 art. 11 o del programa, verificada, con su cuenta."""

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
    """Las líneas de crédito de la oferta y si permiten abrirla (Ley 226 art. 11 num. 3)."""

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
