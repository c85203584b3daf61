"""The program office's and the auditors' answers as named, typed models.

``web.api.answers`` says why. The adjudication's record is written with its keys sorted,
as it is stored: ``InOrder`` keeps that order, and leaves out the joint caps of a program
that has none.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

from democratiza.web.api.answers import Answer, InOrder


class FigureRow(Answer):
    clave: str = Field(description="El día, la categoría, el comisionista, el límite o la decisión")
    aceptaciones: int
    solicitadas: int
    permitidas: int


class Dashboard(Answer):
    """Las cifras del ingreso de las aceptaciones vigentes, por cada una de cinco claves."""

    por_dia: list[FigureRow]
    por_categoria: list[FigureRow]
    por_comisionista: list[FigureRow]
    por_limite: list[FigureRow]
    por_decision: list[FigureRow]


class JointCap(InOrder):
    """Un tope que comparten varias categorías (``topes_conjuntos`` del programa)."""

    id: str
    categorias: list[str]
    tope_acciones: int
    demanda_grupo: int
    notas: list[str]


class AdjudicationRecord(InOrder):
    """El registro de la adjudicación: método, parámetros y huellas de sus entradas y de su
    resultado, con quién adjudicó y cuándo."""

    acciones_ofrecidas: int
    adjudicadas: int
    demanda_valida: int
    huella_entradas: str
    huella_programa: str
    huella_resultado: str
    lote_acciones: int
    metodo: str
    nivel: int | None
    notas: list[str]
    oferta: str
    orden: str
    parametros: dict[str, str]
    programa: str
    residuo: str
    sobredemanda: bool
    topes_conjuntos: list[JointCap] | None = None
    version_programa: int
    quien: str
    creada_en: str


class TokenRow(Answer):
    """Un token de comisionista como lo listan la oficina y los auditores (nunca el token)."""

    id: int
    comisionista: str
    descripcion: str
    creado_en: str
    creado_por: str
    revocado_en: str | None


@with_config(ConfigDict(extra="forbid"))
class AuditEntry(TypedDict):
    """Una entrada del registro de auditoría, encadenada a la anterior por su huella."""

    id: int
    cuando: str
    quien: str
    accion: str
    entidad: str
    antes: Annotated[str | None, Field(description="JSON canónico")]
    despues: Annotated[str | None, Field(description="JSON canónico")]
    huella_anterior: str
    huella: str
    solicitud: Annotated[
        str | None,
        Field(
            description="El identificador (X-Request-Id) de la solicitud web que causó la "
            "entrada; ninguno si no la causó una"
        ),
    ]
