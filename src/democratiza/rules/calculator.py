"""The calculator's question, "¿cuántas acciones puedo comprar?", as one acceptance.

The command line (``democratiza calcular``) and the web calculator ask it the same way:
one acceptance built here, evaluated by the same ``CompiledProgram.evaluate`` as a batch of
one, explained by the same ``Explainer``. What the calculator assumes is written once:

- the written undertakings and the sworn statement will be signed (it answers what the
  *limits* permit, not whether the paperwork is complete);
- the employer certifies the status the program expects for the category, today;
- without a quantity, it asks for the largest one any acceptance could ever file, so the
  answer is the permitted quantity.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime

from democratiza.programs.parameters import Offer, OfferParameterError
from democratiza.programs.schema import NO_LIMITS, LimitRule, missing_section
from democratiza.rules.engine import CompiledProgram, frame_from_rows
from democratiza.rules.explain import Explanation, explainer_for
from democratiza.tables.format import MAX_SHARES
from democratiza.vocabulary import UNDERTAKINGS
from democratiza.words import count

# The figures a person may give, in centavos (cents of a dollar for ingresos_usd): what a
# natural person files (tax return, certificates), and what a legal person does.
NATURAL_MONEY_FIELDS = (
    "patrimonio_liquido",
    "ingresos_declaracion",
    "ingresos_certificado",
    "ingresos_usd",
    "remuneracion_anual",
    "salario_mensual",
)
LEGAL_MONEY_FIELDS = (
    "activos_totales",
    "pasivos_totales",
    "superavit_valorizacion",
    "ingresos_estados_financieros",
    "limite_inversion",
)
MONEY_FIELDS = (*NATURAL_MONEY_FIELDS, *LEGAL_MONEY_FIELDS)


@dataclass(frozen=True)
class Question:
    category: str
    quantity: int | None = None  # None: the largest the program could give
    files_tax_return: bool = True
    foreigner: bool = False
    manager: bool = False
    manager_since: date | None = None
    months_in_post: int | None = None
    payment: str = "contado"
    amounts: Mapping[str, int | None] = field(default_factory=dict)  # MONEY_FIELDS


@dataclass(frozen=True)
class Answer:
    permitted: int
    binding: LimitRule | None
    explanation: Explanation
    asked_quantity: bool  # False: the quantity was the largest possible

    @property
    def headline(self) -> str:
        """'Puede comprar hasta 23.785 acciones.' or the decision's own summary."""
        if not self.asked_quantity and self.explanation.decision != "rechazada":
            return f"Puede comprar hasta {count(self.permitted, 'acción', 'acciones')}."
        return self.explanation.summary


def _most(offer: Offer) -> int:
    """The largest quantity one may ask, in whole lots where the program has one."""
    lot = offer.program.validity.lot_shares
    return MAX_SHARES - MAX_SHARES % lot


def ask(offer: Offer, question: Question) -> Answer:
    """Evaluate the question as one acceptance; raises ``OfferParameterError`` as a batch,
    and when the program's text has no per-acceptant limits (there is then no answer to
    give: the offered total is no one's limit)."""
    if not offer.program.limits:
        raise OfferParameterError([missing_section(offer.program, "limites", NO_LIMITS)])
    unknown = set(question.amounts) - set(MONEY_FIELDS)
    assert not unknown, f"campos desconocidos: {sorted(unknown)}"
    listed = offer.program.category(question.category)
    row: dict[str, object] = {
        "referencia": "calculadora",
        "comisionista": "-",
        "fecha_radicacion": datetime.now(),
        "tipo_identificacion": "CC",
        "numero_identificacion": "-",
        "nombre": "-",
        "categoria": question.category,
        "cantidad": question.quantity if question.quantity is not None else _most(offer),
        "forma_pago": question.payment,
        "obligado_declarar": question.files_tax_return,
        "extranjero": question.foreigner,
        "estado_certificado": listed.employer_status if listed else None,
        "fecha_certificado": date.today(),
        "directivo": question.manager,
        "fecha_ingreso_directivo": question.manager_since,
        "meses_en_cargo": question.months_in_post,
        **{name: question.amounts.get(name) for name in MONEY_FIELDS},
        **dict.fromkeys(UNDERTAKINGS, True),
    }
    frame = frame_from_rows([row])
    compiled = CompiledProgram(offer)
    result = compiled.evaluate(frame)
    explanation = next(explainer_for(compiled).explain_all(result, frame))
    rule_id = result["regla_limitante"][0]
    return Answer(
        int(result["cantidad_permitida"][0]),
        offer.program.limit(rule_id) if rule_id is not None else None,
        explanation,
        question.quantity is not None,
    )
