"""A later stage's answers as named, typed models (``web.api.answers`` says why).

The allocation's record and a stage's origin are written as they were built when fresh,
and with their keys sorted once stored: ``InOrder`` keeps either order.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

from democratiza.web.api.answers import Answer, InOrder


class StageOrigin(InOrder):
    """De dónde salen las acciones de la etapa (lo que dejó la Primera Etapa o la etapa
    anterior) y cómo se llegó a su precio mínimo."""

    de: str
    ofrecidas_primera_etapa: int | None = None
    adjudicadas_primera_etapa: int | None = None
    disponibles_etapa_anterior: int | None = None
    asignadas_etapa_anterior: int | None = None
    pagadas: int
    resueltas_por_no_pago: int
    disponibles: int
    precio_minimo_pasos: list[str] | None = None
    tope: str | None = None


class CpiRecord(InOrder):
    semestre: int
    variacion: str = Field(description="Porcentaje, en texto")
    fuente: str


class StageTermsRecord(InOrder):
    """Los términos de la etapa como los guardó la adjudicación (porcentajes en texto)."""

    mecanismo: str
    fecha_aviso: str
    fecha_apertura: str
    fecha_cierre: str
    precio_minimo: str | None = Field(description="Pesos por acción, en texto")
    ajuste_ipc: list[CpiRecord] | None
    orden_minima: int
    lote: int
    tope_porcentaje: str | None
    fuente: str


class StageAllocationRecord(InOrder):
    """El registro de la adjudicación de la etapa: el precio único, las acciones asignadas y
    las huellas del libro y del resultado (precios en centavos por acción)."""

    etapa: str
    numero: int
    nombre: str
    primera_etapa: str
    programa: str
    version_programa: int
    terminos: StageTermsRecord
    mecanismo: str
    acciones_ofrecidas: int
    precio_minimo: int
    precio_corte: int | None
    lote: int
    orden: str
    ordenes_validas: int
    demanda_valida: int
    precio: int | None
    asignadas: int
    desierta: bool
    causa: str | None
    notas: list[str]
    huella_entradas: str
    huella_resultado: str


class BookLevel(Answer):
    precio: int = Field(description="Centavos por acción")
    acciones_a_ese_precio_o_mas: int


@with_config(ConfigDict(extra="forbid"))
class OrderDecision(TypedDict):
    radicado: str
    referencia: str
    decision: str
    motivo: str | None


class OrdersAnswer(Answer):
    """La respuesta de un lote de órdenes: la decisión de cada orden y por qué se rechazó."""

    detalle: str
    creado: bool
    numero_lote: int
    filas: int
    resultado: list[OrderDecision]


@with_config(ConfigDict(extra="forbid"))
class OrderRow(TypedDict):
    """Una orden vigente como la leen su comisionista, la oficina y los auditores."""

    radicado: str
    comisionista: str
    referencia: str
    tipo_identificacion: str
    numero_identificacion: str
    nombre: str
    tipo_persona: str
    nacionalidad: str
    fecha_ingreso: str
    precio: Annotated[int, Field(description="Centavos por acción")]
    cantidad: int
    decision: str
    motivo: str | None
    recepcion: int
