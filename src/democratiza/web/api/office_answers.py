"""The program office's and the auditors' answers as named, typed models.

``web.api.answers`` says why. The adjudication's record is written with its keys sorted,
as it is stored: ``InOrder`` keeps that order, and leaves out the joint caps of a program
that has none.
"""

from __future__ import annotations

from pydantic import Field

from democratiza.web.api.answers import Answer, InOrder


class FigureRow(Answer):
    clave: str = Field(description="El día, la categoría, el comisionista, el límite o la decisión")
    aceptaciones: int
    solicitadas: int
    permitidas: int


class Dashboard(Answer):
    """Intake figures of the current acceptances, by each of five keys."""

    por_dia: list[FigureRow]
    por_categoria: list[FigureRow]
    por_comisionista: list[FigureRow]
    por_limite: list[FigureRow]
    por_decision: list[FigureRow]


class JointCap(InOrder):
    """A cap shared by several categories (``topes_conjuntos`` of a program)."""

    id: str
    categorias: list[str]
    tope_acciones: int
    demanda_grupo: int
    notas: list[str]


class AdjudicationRecord(InOrder):
    """The adjudication's record: method, parameters and the hashes of its inputs and
    result, with who adjudicated and when."""

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
    """A broker's API token as the office and the auditors list it (never the token)."""

    id: int
    comisionista: str
    descripcion: str
    creado_en: str
    creado_por: str
    revocado_en: str | None


class AuditEntry(Answer):
    """One entry of the audit log, chained to the one before by its hash."""

    id: int
    cuando: str
    quien: str
    accion: str
    entidad: str
    antes: str | None = Field(description="JSON canónico")
    despues: str | None = Field(description="JSON canónico")
    huella_anterior: str
    huella: str
