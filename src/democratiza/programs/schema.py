"""The shape of a program file: every value the engine uses, each with its citation.

A program file mirrors its decree. Keys are in Spanish (the file is read by lawyers and the
program office); attributes are English. Unknown keys are refused (``extra="forbid"``) so a
typo can never silently switch a rule off.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from fractions import Fraction
from math import ceil, floor
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from democratiza.calendar import next_business_day, previous_business_day
from democratiza.vocabulary import (
    SMMLV_PARAMETER,
    AmountSource,
    Category,
    Combine,
    Document,
    Method,
    PaymentMethod,
    PersonKind,
    Remainder,
    Rounding,
    Undertaking,
)


class Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class Citation(Model):
    """Where a value comes from: a norm declared in the file's ``normas`` and a reference."""

    norm: str = Field(alias="norma", min_length=1)
    ref: str = Field(alias="ref", min_length=1)


class Norm(Model):
    """A norm the file cites, and where its words can be read: its text (``texto``: a file
    name, of the package's ``programs/normas/`` or a path beside the program file) or, for
    a norm whose text is not at hand, a sources document and its section (``fuente:
    fuentes.md §2``, ``fuente: mis-fuentes.md §1``); ``programs.texts`` checks both."""

    name: str = Field(alias="nombre", min_length=1)
    short: str = Field(alias="corto", min_length=1)
    issued: date | None = Field(default=None, alias="fecha")
    texts: tuple[str, ...] = Field(default=(), alias="texto")
    source: str | None = Field(default=None, alias="fuente", min_length=1)
    # For a copy of the text that lost its numbers (a paragraph per line): each paragraph, by
    # its first words, and the numbers the decree gives it ('Deberán acompañar copia de': A.1),
    # so ``programa cobertura`` maps the citations to the paragraphs.
    numbering: dict[str, tuple[str, ...]] = Field(default_factory=dict, alias="numeracion")

    @field_validator("texts", mode="before")
    @classmethod
    def _one_or_several(cls, value: object) -> object:
        return (value,) if isinstance(value, str) else value

    @field_validator("numbering", mode="before")
    @classmethod
    def _one_or_several_numbers(cls, value: object) -> object:
        if isinstance(value, dict):
            return {k: (v,) if isinstance(v, str) else v for k, v in value.items()}
        return value


class Parameter(Model):
    """An offer parameter; without ``valor`` the program office must set it for the offer."""

    value: Decimal | int | date | None = Field(default=None, alias="valor")
    citation: Citation = Field(alias="cita")
    note: str | None = Field(default=None, alias="nota")


class CitedText(Model):
    value: str = Field(alias="valor", min_length=1)
    citation: Citation = Field(alias="cita")


class Condition(Model):
    """When a rule applies: every given key must hold (an AND); no key means always."""

    person: PersonKind | None = Field(default=None, alias="persona")
    categories: tuple[Category, ...] | None = Field(default=None, alias="categorias")
    files_tax_return: bool | None = Field(default=None, alias="obligado_declarar")
    foreigner: bool | None = Field(default=None, alias="extranjero")
    manager: bool | None = Field(default=None, alias="directivo")
    new_manager: bool | None = Field(default=None, alias="directivo_nuevo")


class CategoryRule(Model):
    id: Category
    name: str = Field(alias="nombre", min_length=1)
    citation: Citation = Field(alias="cita")
    employer_status: Literal["activo", "pensionado", "extrabajador"] | None = Field(
        default=None, alias="estado_certificado"
    )
    excludes_just_cause: Citation | None = Field(default=None, alias="excluye_justa_causa")
    # Only nationals: a Primera Etapa for every Colombian natural person (Ley 1118 de 2006
    # style); an acceptant who files as a foreigner (``extranjero``) is rejected by it.
    nationals_only: Citation | None = Field(default=None, alias="solo_nacionales")


class DocumentRule(Model):
    id: Document
    name: str = Field(alias="nombre", min_length=1)
    required_when: Condition = Field(alias="exigible_si")
    alternatives: tuple[Document, ...] = Field(default=(), alias="o_bien")
    citation: Citation = Field(alias="cita")
    max_age_months: int | None = Field(default=None, alias="vigencia_meses", ge=1)
    note: str | None = Field(default=None, alias="nota")  # the reading chosen, where ambiguous


class Multiple(Model):
    """A multiple as an exact fraction (``numerador``/``denominador``)."""

    numerator: int = Field(alias="numerador", ge=1)
    denominator: int = Field(default=1, alias="denominador", ge=1)


class AmountBase(Model):
    sources: tuple[AmountSource, ...] = Field(alias="fuentes", min_length=1)
    combine: Combine = Field(default="primero", alias="combinar")
    citation: Citation | None = Field(default=None, alias="cita_combinacion")


class SmmlvCap(Model):
    """A cap of ``veces`` × the salario mínimo mensual legal vigente of year ``año``; the
    salary itself is the offer parameter ``smmlv_<año>``, cited where the decree fixing it is."""

    times: int = Field(alias="veces", ge=1)
    year: int = Field(alias="año", ge=1990, le=2100)

    @property
    def parameter(self) -> str:
        return SMMLV_PARAMETER.format(year=self.year)


class OfferedShare(Model):
    """A cap of ``porcentaje`` % of the shares offered, taken to whole shares as ``redondeo``
    says (``abajo``, ``arriba`` or ``cercano``)."""

    percent: Decimal = Field(alias="porcentaje", gt=0, le=100)
    rounding: Rounding = Field(alias="redondeo")


def offered_part(offered: int, percent: Decimal, rounding: Rounding) -> int:
    """``percent`` % of ``offered`` shares in whole shares, rounded as the file says (exact)."""
    value = Fraction(offered) * Fraction(percent) / 100
    if rounding == "abajo":
        return floor(value)
    if rounding == "arriba":
        return ceil(value)
    return floor(value + Fraction(1, 2))


# The kinds of a limit: an amount of the acceptant's (``multiplo`` × ``base``), or a cap the
# file fixes for everyone it applies to.
LIMIT_KINDS = (
    "tope_acciones",
    "tope_pesos",
    "tope_smmlv",
    "tope_porcentaje_oferta",
    "tope_porcentaje_emisor",
    "tope_financiado",
)


class LimitRule(Model):
    """One per-acceptant limit: ``multiplo`` × an amount the acceptant files, or one cap: in
    shares, in pesos, in minimum salaries of a year, in a percentage of the shares offered,
    in a percentage of the issuer's outstanding shares (``tope_porcentaje_emisor``: ETB's
    «hasta el 0,3 % de la compañía», the count being the cited parameter
    ``acciones_en_circulacion``), or the most an acceptant paying in instalments may finance
    (``tope_financiado: cuotas``, the amount being the payment rule's
    ``monto_maximo_financiado``)."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.\-()]*$")
    name: str = Field(alias="nombre", min_length=1)
    applies_when: Condition = Field(default_factory=Condition, alias="aplica_si")
    multiple: int | Multiple | None = Field(default=None, alias="multiplo")
    base: AmountBase | None = None
    cap_shares: int | None = Field(default=None, alias="tope_acciones", ge=1)
    cap_pesos: Decimal | None = Field(default=None, alias="tope_pesos", gt=0, decimal_places=2)
    cap_smmlv: SmmlvCap | None = Field(default=None, alias="tope_smmlv")
    cap_offered: OfferedShare | None = Field(default=None, alias="tope_porcentaje_oferta")
    cap_outstanding: OfferedShare | None = Field(default=None, alias="tope_porcentaje_emisor")
    cap_financed: Literal["cuotas"] | None = Field(default=None, alias="tope_financiado")
    citation: Citation = Field(alias="cita")

    @model_validator(mode="after")
    def _one_kind(self) -> LimitRule:
        amount = self.multiple is not None and self.base is not None
        caps = [
            self.cap_shares,
            self.cap_pesos,
            self.cap_smmlv,
            self.cap_offered,
            self.cap_outstanding,
            self.cap_financed,
        ]
        kinds = int(amount) + sum(c is not None for c in caps)
        if kinds != 1 or (self.multiple is None) != (self.base is None):
            raise ValueError(
                "un límite lleva 'multiplo' y 'base', o solo uno de: " + ", ".join(LIMIT_KINDS)
            )
        return self

    @property
    def fraction(self) -> Multiple:
        if isinstance(self.multiple, Multiple):
            return self.multiple
        assert self.multiple is not None
        return Multiple(numerator=self.multiple, denominator=1)


class UndertakingRule(Model):
    id: Undertaking
    text: str = Field(alias="texto", min_length=1)
    required_when: Condition = Field(default_factory=Condition, alias="exigible_si")
    citation: Citation = Field(alias="cita")


class CitedFigure(Model):
    value: int = Field(alias="valor", ge=1)
    citation: Citation = Field(alias="cita")


class CitedPercent(Model):
    value: Decimal = Field(alias="valor", ge=0, lt=100)
    citation: Citation = Field(alias="cita")


class CitedPesos(Model):
    value: Decimal = Field(alias="valor", gt=0, decimal_places=2)
    citation: Citation = Field(alias="cita")


class InstalmentPlan(Model):
    """Payment in instalments: at least ``cuota_inicial_porcentaje`` % of the price of the
    shares awarded as a down payment, the rest in ``numero_cuotas`` equal instalments; an
    acceptant may finance at most ``monto_maximo_financiado`` (a limit of the file,
    ``tope_financiado: cuotas``, turns it into shares)."""

    down_payment: CitedPercent = Field(alias="cuota_inicial_porcentaje")
    instalments: CitedFigure = Field(alias="numero_cuotas")
    max_financed: CitedPesos | None = Field(default=None, alias="monto_maximo_financiado")
    note: str | None = Field(default=None, alias="nota")

    @property
    def financed_part(self) -> Fraction:
        """The part of the price that is financed: 1 − the down payment."""
        return 1 - Fraction(self.down_payment.value) / 100


class PaymentRule(Model):
    id: PaymentMethod
    only_for: PersonKind | None = Field(default=None, alias="solo_para")
    citation: Citation = Field(alias="cita")
    instalments: InstalmentPlan | None = Field(default=None, alias="cuotas")

    @model_validator(mode="after")
    def _plan_with_instalments(self) -> PaymentRule:
        if (self.id == "cuotas") != (self.instalments is not None):
            raise ValueError("la forma de pago 'cuotas', y solo ella, lleva 'cuotas' (su plan)")
        return self


class RemunerationDefinition(Model):
    """How annual pay is derived when the manager has been in post less than a year."""

    min_months: int = Field(alias="meses_minimos", ge=1)
    monthly_factor: int = Field(alias="factor_mensual", ge=1)
    citation: Citation = Field(alias="cita")


class WindowStart(Model):
    """The first day of the term: the business day after the aviso is published (GEB
    arts. 4 and 6.1) or the aviso's own day."""

    value: Literal["dia_habil_siguiente_al_aviso", "dia_del_aviso"] = Field(alias="valor")
    citation: Citation = Field(alias="cita")
    note: str | None = Field(default=None, alias="nota")

    @property
    def words(self) -> str:
        """The rule as a person reads it: «el día hábil siguiente al aviso»."""
        if self.value == "dia_del_aviso":
            return "el día de publicación del aviso"
        return "el día hábil siguiente al aviso"


class OfferWindow(Model):
    min_months: int = Field(alias="duracion_minima_meses", ge=1)
    citation: Citation = Field(alias="cita")
    start: WindowStart = Field(alias="desde")

    def first_day(self, announced: date) -> date:
        """The term's first day for an aviso published on ``announced``."""
        if self.start.value == "dia_del_aviso":
            return announced
        return next_business_day(announced)


class JointCap(Model):
    """A cap on what a group of categories gets together, as a percentage of the shares
    offered (e.g. all pension and severance funds at most 10 %): applied at adjudication."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.\-()]*$")
    name: str = Field(alias="nombre", min_length=1)
    categories: tuple[Category, ...] = Field(alias="categorias", min_length=1)
    share: OfferedShare = Field(alias="tope")
    citation: Citation = Field(alias="cita")

    def shares(self, offered: int) -> int:
        return offered_part(offered, self.share.percent, self.share.rounding)


class Allocation(Model):
    method: Method = Field(alias="metodo")
    remainder: Remainder = Field(alias="residuo")
    unit_shares: int = Field(default=1, alias="lote_acciones", ge=1)
    linear_percent: int | None = Field(default=None, alias="porcentaje_lineal", ge=1, le=100)
    citation: Citation = Field(alias="cita")
    note: str | None = Field(default=None, alias="nota")
    joint_caps: tuple[JointCap, ...] = Field(default=(), alias="topes_conjuntos")


class FineBand(Model):
    from_months: int = Field(alias="desde_meses", ge=0)
    to_months: int = Field(alias="hasta_meses", ge=1)
    percent: int = Field(alias="porcentaje", ge=0, le=100)
    citation: Citation = Field(alias="cita")


FineBaseKey = Literal["precio_adquisicion", "contraprestacion", "precio_segunda_etapa"]
FineAdjustment = Literal["ipc_1_enero", "tasa_moratoria_dia_pago"]


class BaseRule(Model):
    """How the fine's base per share is chosen among the listed values."""

    value: Literal["mayor"] = Field(alias="valor")  # the greatest of those known
    citation: Citation = Field(alias="cita")


class Fines(Model):
    """A program's fines. The optional keys at the end make the texts computable
    (``democratiza.compliance``): without them the fines are shown but never computed."""

    base_values: tuple[CitedText, ...] = Field(alias="bases", min_length=1)
    bands: tuple[FineBand, ...] = Field(alias="tramos", min_length=1)
    counted_from: CitedText = Field(alias="desde")
    adjustment: CitedText = Field(alias="ajuste")
    default_interest: CitedText | None = Field(default=None, alias="intereses_mora")
    partial_payments: CitedText | None = Field(default=None, alias="pagos_parciales")
    # Which figure each entry of ``bases`` is, in the same order.
    base_keys: tuple[FineBaseKey, ...] | None = Field(default=None, alias="claves_bases")
    # The date the bands count from: the sale (enajenación) or the adjudication.
    reference_date: Literal["enajenacion", "adjudicacion"] | None = Field(
        default=None, alias="fecha_referencia"
    )
    adjustment_method: FineAdjustment | None = Field(default=None, alias="metodo_ajuste")
    base_rule: BaseRule | None = Field(default=None, alias="regla_base")

    @model_validator(mode="after")
    def _keys_match_bases(self) -> Fines:
        keys = self.base_keys
        if keys is not None:
            if len(keys) != len(self.base_values):
                raise ValueError("claves_bases debe tener una clave por cada entrada de bases")
            if len(set(keys)) != len(keys):
                raise ValueError("claves_bases tiene claves repetidas")
        return self


class CreditLines(Model):
    """The conditions the credit lines must meet before the offer opens (Ley 226 art. 11.3)."""

    minimum_financing_percent: CitedFigure = Field(alias="financiacion_minima_porcentaje")
    minimum_term_months: CitedFigure = Field(alias="plazo_minimo_meses")
    minimum_grace_months: CitedFigure = Field(alias="gracia_minima_meses")
    maximum_rate: Citation = Field(alias="tasa_maxima")
    share_collateral: Citation = Field(alias="garantia_acciones")


class CpiAdjustment(Model):
    """The stage's minimum price may be adjusted by CPI every six months, counted from the
    Primera Etapa's aviso (GEB 2018's reglamento); the stage's terms give each variation."""

    since: Literal["aviso_primera_etapa"] = Field(alias="desde")
    citation: Citation = Field(alias="cita")
    note: str | None = Field(default=None, alias="nota")


class LaterStagePayments(Model):
    """How a later stage's awards may be paid, with its article: credit lines and cesantías
    are special conditions of the Primera Etapa's destinatarios (Ley 226 art. 11), not of the
    public that buys after them."""

    methods: tuple[PaymentMethod, ...] = Field(alias="metodos", min_length=1)
    citation: Citation = Field(alias="cita")


class LaterStages(Model):
    """What the decree says of the stages after the Primera Etapa (GEB art. 3.2-3.3).

    The figures of each stage (window, minimum order, lot, tranche cap, mechanism) come from
    the reglamento and the stage's aviso, not the decree: they are the stage's terms
    (``stages.terms``). Here are the rules those terms must respect, with their articles.
    """

    name: CitedText = Field(alias="nombre")  # "Segunda Etapa", "Segunda Fase"
    investors: CitedText = Field(alias="inversionistas")
    # The minimum price is never below the Primera Etapa's fixed price.
    minimum_price: CitedText = Field(alias="precio_minimo")
    void: CitedText = Field(alias="desierta")
    payments: LaterStagePayments = Field(alias="formas_de_pago")
    later: CitedText | None = Field(default=None, alias="subsecuentes")
    # Without it, a stage's terms may not adjust the minimum price by CPI.
    cpi_adjustment: CpiAdjustment | None = Field(default=None, alias="ajuste_ipc")


# The optional sections of a file, by key path: a ``no_modelado`` entry may name the one it
# concerns, and the loader refuses it when the file models that section.
Section = Literal[
    "limites",
    "compromisos",
    "multas",
    "remuneracion_anual",
    "declaracion_juramentada",
    "lineas_credito",
    "etapas_siguientes",
    "etapas_siguientes.subsecuentes",
    "etapas_siguientes.ajuste_ipc",
    "ineficacia",
    "validez.directivos_nuevos",
    "validez.cantidad_minima",
    "validez.lote",
    "adjudicacion.topes_conjuntos",
    "multas.intereses_mora",
    "multas.pagos_parciales",
    "multas.metodo_ajuste",
]

# Each optional section as the decree's words name it, for what a person reads (the key
# path is for the file's author).
SECTION_WORDS: dict[str, str] = {
    "limites": "los límites por aceptante",
    "compromisos": "los compromisos de los adquirentes",
    "multas": "las multas por incumplir los compromisos",
    "remuneracion_anual": "la remuneración anual de los directivos",
    "declaracion_juramentada": "la declaración juramentada",
    "lineas_credito": "las condiciones de las líneas de crédito",
    "etapas_siguientes": "las reglas de las etapas siguientes",
    "etapas_siguientes.subsecuentes": "las etapas posteriores a la Segunda Etapa",
    "etapas_siguientes.ajuste_ipc": "el ajuste del precio mínimo por IPC",
    "ineficacia": "la ineficacia de una adquisición",
    "validez.directivos_nuevos": "la regla de los directivos nuevos",
    "validez.cantidad_minima": "la cantidad mínima de una aceptación",
    "validez.lote": "el lote de acciones",
    "adjudicacion.topes_conjuntos": "los topes conjuntos de la adjudicación",
    "multas.intereses_mora": "los intereses de mora de una multa",
    "multas.pagos_parciales": "los pagos parciales de una multa",
    "multas.metodo_ajuste": "el ajuste de los valores de una multa",
}


class NotModelled(Model):
    provision: str = Field(alias="disposicion", min_length=1)
    citation: Citation = Field(alias="cita")
    reason: str = Field(alias="razon", min_length=1)
    section: Section | None = Field(default=None, alias="seccion")


class NewManagers(Model):
    """People who reach a manager's post after the cut-off date must be linked to the
    company on a stated day (GEB 8.2.4, Coltel 8.3(d)): the business day before the term
    ends."""

    linked_on: Literal["dia_habil_anterior_al_cierre"] = Field(alias="vinculados_el")
    citation: Citation = Field(alias="cita")

    def deadline(self, closing: date) -> date:
        """The day a new manager must be linked for an offer closing on ``closing``."""
        return previous_business_day(closing)


class Validity(Model):
    """Citations for the checks every acceptance passes, whatever its limits.

    ``cantidad_minima``: an acceptance for fewer shares is rejected (the minimum is of what is
    accepted: the limits may leave less). ``lote``: an acceptance must be a whole number of
    lots, and what the limits permit is taken down to whole lots."""

    eligibility: Citation = Field(alias="destinatarios")
    quantity: Citation = Field(alias="cantidad")
    new_managers: NewManagers | None = Field(default=None, alias="directivos_nuevos")
    minimum: CitedFigure | None = Field(default=None, alias="cantidad_minima")
    lot: CitedFigure | None = Field(default=None, alias="lote")

    @property
    def lot_shares(self) -> int:
        return 1 if self.lot is None else self.lot.value


class Program(Model):
    id: str = Field(pattern=r"^[a-z0-9\-]+$")
    name: str = Field(alias="nombre", min_length=1)
    version: int = Field(ge=1)
    norms: dict[str, Norm] = Field(alias="normas", min_length=1)
    seller: CitedText = Field(alias="vendedor")
    issuer: CitedText = Field(alias="emisor")
    parameters: dict[str, Parameter] = Field(alias="parametros")
    categories: tuple[CategoryRule, ...] = Field(alias="categorias", min_length=1)
    documents: tuple[DocumentRule, ...] = Field(alias="documentos")
    # Without them, a ``no_modelado`` entry with ``seccion: limites`` says why (the text at
    # hand does not have the per-acceptant limits); no output then invents one.
    limits: tuple[LimitRule, ...] = Field(default=(), alias="limites")
    # Without them, a ``no_modelado`` entry with ``seccion: compromisos`` says why (the text
    # at hand does not have them); the loader refuses a file with neither.
    undertakings: tuple[UndertakingRule, ...] = Field(default=(), alias="compromisos")
    sworn_statement: UndertakingRule | None = Field(default=None, alias="declaracion_juramentada")
    payment_methods: tuple[PaymentRule, ...] = Field(alias="formas_de_pago", min_length=1)
    remuneration: RemunerationDefinition | None = Field(default=None, alias="remuneracion_anual")
    window: OfferWindow = Field(alias="ventana")
    credit_lines: CreditLines | None = Field(default=None, alias="lineas_credito")
    later_stages: LaterStages | None = Field(default=None, alias="etapas_siguientes")
    # The Primera Etapa as the decree calls it ("Primera Etapa", Central's "Primera Fase");
    # without it, the family's word (``labels.first_stage_name``).
    first_stage: CitedText | None = Field(default=None, alias="nombre_primera_etapa")
    # Who may declare the Primera Etapa void (desierta) and on what grounds (GEB art. 3.1);
    # without it, a program's Primera Etapa cannot be declared void.
    void_first_stage: CitedText | None = Field(default=None, alias="primera_etapa_desierta")
    # An acquisition contrary to the real-beneficiary rules is ineffective: Ley 226 art. 14
    # inciso 2, and the program's own articles where its text repeats the rule.
    ineffectiveness: tuple[Citation, ...] = Field(default=(), alias="ineficacia")
    validity: Validity = Field(alias="validez")
    allocation: Allocation = Field(alias="adjudicacion")
    # Without them, as the undertakings: declared not modelled (``seccion: multas``).
    fines: Fines | None = Field(default=None, alias="multas")
    not_modelled: tuple[NotModelled, ...] = Field(alias="no_modelado")

    @property
    def name_in_sentence(self) -> str:
        """The file's name as it reads inside a sentence, its first letter in lower case:
        'programa de democratización de acciones del Grupo…'."""
        return self.name[:1].lower() + self.name[1:]

    @property
    def called(self) -> str:
        """The program as a sentence that a person reads names it, by its file's name and
        never its identifier: 'El programa de democratización de acciones del Grupo…'."""
        within = self.name_in_sentence
        return f"El {within}" if within.startswith("programa ") else f"El programa {self.name}"

    def unmodelled(self, section: str) -> NotModelled | None:
        """The ``no_modelado`` entry that declares a section missing from the text, if any."""
        return next((n for n in self.not_modelled if n.section == section), None)

    def category(self, category_id: str) -> CategoryRule | None:
        return next((c for c in self.categories if c.id == category_id), None)

    def limit(self, rule_id: str) -> LimitRule:
        return next(r for r in self.limits if r.id == rule_id)

    def cite(self, citation: Citation) -> str:
        """Where a rule is written, as a person reads it: 'Decreto 706/2017 art. 8.2.1'."""
        return f"{self.norms[citation.norm].short} {citation.ref}"

    @property
    def caps_a_way_of_paying(self) -> bool:
        """Whether a limit caps one way of paying only (``tope_financiado``). Only then can an
        acceptance's smallest limit whatever its way of paying (``limite_general``) differ from
        its smallest limit (``limite_minimo``): elsewhere they are one figure, kept once."""
        return any(r.cap_financed is not None for r in self.limits)

    @property
    def instalment_plan(self) -> InstalmentPlan | None:
        """The plan of payment in instalments, where the program offers it."""
        return next((m.instalments for m in self.payment_methods if m.instalments), None)


# What cannot be done without the per-acceptant limits (``seccion: limites``).
NO_LIMITS = "decir cuántas acciones puede adquirir cada aceptante"


def missing_section(program: Program, section: str, why: str) -> str:
    """What every output that needs a section the text lacks says: that it is missing, the
    ``no_modelado`` entry's provision, citation and reason, and what cannot be done."""
    entry = program.unmodelled(section)
    what = SECTION_WORDS.get(section, section)
    if entry is None:
        return f"{program.called} no define {what}: no se puede {why}."
    return (
        f"{program.called} no trae {what}: {entry.provision} "
        f"({program.cite(entry.citation)}): {entry.reason} No se puede {why}."
    )


def unchecked_sections(program: Program) -> list[str]:
    """What an evaluation of an acceptance does not check because the text lacks it: each
    output that decides an acceptance says so (the undertakings, today)."""
    if program.undertakings:
        return []
    return [missing_section(program, "compromisos", "exigir ni verificar compromisos")]
