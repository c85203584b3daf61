"""The words a program file may use: categories, documents, amounts, undertakings.

This is the vocabulary of the *family* of Ley 226 decrees, not of any one decree: a program
file picks from it and attaches its own numbers and citations. A new decree of the same
family needs a new file; only a new *kind* of rule needs a new word here.
"""

from __future__ import annotations

from typing import Literal, get_args

PersonKind = Literal["natural", "juridica"]

Category = Literal[
    "trabajador_activo",
    "pensionado",
    "extrabajador",
    "asociacion_empleados",
    "sindicato",
    "federacion_sindicatos",
    "confederacion_sindicatos",
    "fondo_empleados",
    "fondo_mutuo_inversion",
    "fondo_pensiones_cesantias",
    "cooperativa",
    "caja_compensacion",
    # A Primera Etapa open to every natural person (Ley 1118 de 2006 style: the programs of
    # Ecopetrol offered it to every Colombian natural person), not only to the company's own.
    "persona_natural",
]
CATEGORIES: tuple[str, ...] = get_args(Category)
NATURAL_CATEGORIES = frozenset(
    {"trabajador_activo", "pensionado", "extrabajador", "persona_natural"}
)


Document = Literal[
    "declaracion_renta",
    "certificado_ingresos",
    "declaracion_jurada_ingresos_usd",
    "certificado_laboral",
    "certificado_remuneracion",
    "estados_financieros",
    "declaracion_renta_o_ingresos_patrimonio",
    "certificado_limite_inversion",
]

# A document counts as presented when any of the figures it carries was filed.
DOCUMENT_FIELDS: dict[str, tuple[str, ...]] = {
    "declaracion_renta": ("patrimonio_liquido", "ingresos_declaracion"),
    "certificado_ingresos": ("ingresos_certificado",),
    "declaracion_jurada_ingresos_usd": ("ingresos_usd",),
    "certificado_laboral": ("estado_certificado",),
    "certificado_remuneracion": ("remuneracion_anual", "salario_mensual"),
    "estados_financieros": ("activos_totales", "pasivos_totales"),
    "declaracion_renta_o_ingresos_patrimonio": ("ingresos_declaracion",),
    "certificado_limite_inversion": ("limite_inversion",),
}
# The date column that dates a document, for documents whose age a program limits.
DOCUMENT_DATE: dict[str, str] = {"certificado_laboral": "fecha_certificado"}

AmountSource = Literal[
    "patrimonio_liquido",
    "ingresos_declaracion",
    "ingresos_certificado",
    "ingresos_usd",
    "remuneracion_anual",
    "salario_mensual_anualizado",
    "patrimonio_ajustado",
    "ingresos_estados_financieros",
    "limite_inversion",
    "salario_mensual",
]

Combine = Literal["primero", "mayor"]

Undertaking = Literal[
    "compromiso_no_negociar",
    "compromiso_beneficiario_real",
    "compromiso_no_dar_en_pago",
    "compromiso_no_subrogar",
    "compromiso_aceptar_condiciones",
    "declaracion_cuenta_propia",
]
UNDERTAKINGS: tuple[str, ...] = get_args(Undertaking)

# ``cuotas``: a down payment and the rest in instalments (``formas_de_pago[].cuotas``).
PaymentMethod = Literal["contado", "credito", "cesantias", "cuotas"]
PAYMENT_METHODS: tuple[str, ...] = get_args(PaymentMethod)

# How a figure that is a percentage of the shares offered becomes whole shares.
Rounding = Literal["abajo", "arriba", "cercano"]

# The SMMLV of a year is an offer parameter named by its year (``smmlv_2018``), cited where
# the decree fixing it is; a cap in minimum salaries names the year (``tope_smmlv.año``).
SMMLV_PARAMETER = "smmlv_{year}"

EMPLOYER_STATUSES = ("activo", "pensionado", "extrabajador")

# Identity documents a filing may name (cédula, cédula de extranjería, pasaporte, tarjeta de
# identidad, NIT, permiso especial y permiso por protección temporal de permanencia).
ID_TYPES = ("CC", "CE", "PA", "TI", "NIT", "PEP", "PPT")

# How an oversubscribed Primera Etapa is shared out, and who gets the lots left by the floors
# (``allocation.methods``, ``allocation.remainder``).
Method = Literal["igualitario_redistribucion", "proporcional", "lineal_proporcional"]
METHODS: tuple[Method, ...] = get_args(Method)
Remainder = Literal["primero_radicado", "mayor_solicitud"]
REMAINDERS: tuple[Remainder, ...] = get_args(Remainder)

# How a later stage finds its single price (``stages.clearing``).
Mechanism = Literal["subasta_holandesa", "construccion_libro"]
MECHANISMS: tuple[Mechanism, ...] = get_args(Mechanism)
