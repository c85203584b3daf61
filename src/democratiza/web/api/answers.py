"""The API's answers as named, typed models: what a broker's system reads back.

Why: a client generated from ``/api/openapi.json`` (``openapi-python-client``, for one) gets
a class with typed attributes for every answer, instead of a bag of untyped keys; and the
service checks each answer against its model before it leaves. The JSON itself is the one
the routes always wrote: every model lists its keys in the order they are written, and
``InOrder`` keeps the order of records whose keys come as they were stored. A model's
docstring is its description in ``/api/openapi.json``, which brokers' developers read: in
Spanish, like everything a person reads.
"""

from __future__ import annotations

from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    ValidatorFunctionWrapHandler,
    model_serializer,
    model_validator,
    with_config,
)
from typing_extensions import TypedDict

from democratiza.web.errors import ErrorItem
from democratiza.web.server.filing_answers import RowDecision


class Answer(BaseModel):
    """An answer with exactly its keys: one the code writes and the model lacks fails the
    tests, instead of leaving the description silently."""

    model_config = ConfigDict(extra="forbid")


class InOrder(Answer):
    """A record written with its keys in the order they came (a stored record's, sorted;
    a freshly built one's, as built), and only those it has: optional keys a record lacks
    are left out, not written as null."""

    _keys: tuple[str, ...] = PrivateAttr(default=())

    @model_validator(mode="wrap")
    @classmethod
    def _remember(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        made = handler(value)
        if isinstance(value, dict):
            made._keys = tuple(value)
        return made

    # No return annotation: with one, pydantic would describe the model by it (an object of
    # anything) instead of by its fields.
    @model_serializer(mode="wrap")
    def _in_order(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        written: dict[str, Any] = handler(self)
        if not self._keys:
            return written
        return {k: written[k] for k in self._keys if k in written}


class Message(Answer):
    detalle: str


class BatchRow(Answer):
    numero: int  # the broker's own count of its batches in the offer
    comisionista: str
    lote: str
    archivo: str
    filas: int
    recibido_en: str
    huella: str


@with_config(ConfigDict(extra="forbid"))
class AcceptanceRow(TypedDict):
    """Una aceptación como la leen su comisionista, la oficina y los auditores (montos en
    centavos)."""

    radicado: str
    version: int
    estado: str
    referencia: str
    comisionista: str
    fecha_radicacion: str
    tipo_identificacion: str
    numero_identificacion: str
    nombre: str
    categoria: str
    cantidad: int
    forma_pago: str
    patrimonio_liquido: int | None
    ingresos_declaracion: int | None
    cantidad_permitida: int
    decision: str
    regla_limitante: str | None
    motivo: str | None


@with_config(ConfigDict(extra="forbid"))
class AcceptanceVersion(AcceptanceRow):
    vigente: bool


class AcceptanceVersions(Answer):
    radicado: str
    versiones: list[AcceptanceVersion]


@with_config(ConfigDict(extra="forbid"))
class ResultRow(TypedDict):
    """Una aceptación en la adjudicación (``consumido_por``: las otras radicaciones de la
    persona que usaron antes su límite; las de otro comisionista, sin su radicado)."""

    radicado: str
    comisionista: str
    tipo_identificacion: str
    numero_identificacion: str
    nombre: str
    categoria: str
    fecha_radicacion: str
    cantidad: int
    cantidad_permitida: int
    decision: str
    regla_limitante: str | None
    cantidad_persona: int
    consumido_por: str | None
    adjudicada: int


class JobResult(InOrder):
    """Lo que dejó un trabajo terminado: la respuesta de un lote, el mensaje de una
    adjudicación, o por qué falló (con los errores de las filas)."""

    detalle: str
    creado: bool | None = None
    numero_lote: int | None = None
    filas: int | None = None
    por_decision: dict[str, int] | None = None
    resultado: list[RowDecision] | None = None
    errores: list[ErrorItem] | None = None
    total_errores: int | None = None
    oferta: str | None = None


class Job(Answer):
    id: str
    tipo: str
    estado: str
    paso: int
    pasos: int
    mensaje: str
    resultado: JobResult | None
    quien: str
    comisionista: str | None
    creado_en: str
    actualizado_en: str
