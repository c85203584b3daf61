"""A person's Primera Etapa result as the steps that changed its quantity, in words.

Why: an acceptance read "aceptada", "cantidad permitida 25.573", then "22.428 acciones
adjudicadas", with no word about what took the rest. Each step that changed the quantity is
shown with the rule that did it, in the decree's words and its article: what was asked; what
the limits permitted at filing; what the person's other filings left under the same limit;
the prorrateo of the offer (or a joint cap on a group of categories); what was awarded. A
step that changed nothing is not shown. A withdrawn acceptance is one step: withdrawn by its
broker, nothing awarded and nothing to pay.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from democratiza.labels import label, rule_cited
from democratiza.money import group
from democratiza.offers.lifecycle import StoredOffer
from democratiza.programs.schema import Citation, Program
from democratiza.programs.texts import SOURCES
from democratiza.rules.explain import cite
from democratiza.words import count


@dataclass(frozen=True)
class Step:
    """One step: what it is, the shares after it, and why, with the rule's article."""

    paso: str
    acciones: int
    por_que: str


def _shares(n: int) -> str:
    return count(n, "acción", "acciones")


def result_steps(stored: StoredOffer, found: Mapping[str, object]) -> list[Step]:
    """``found`` is a looked-up result (``views.lookup_result``): ``cantidad``,
    ``cantidad_permitida``, ``regla_al_radicar``, ``decision_al_radicar``,
    ``cantidad_persona``, ``regla_limitante``, ``consumido_por``, ``adjudicada``,
    ``categoria``, ``retirada``, ``topes_que_limitaron`` (the joint caps that bound) and
    ``causas_al_radicar`` (a rejection's causes in words, with their articles)."""
    program = stored.program
    asked = _int(found["cantidad"])
    if found.get("retirada"):
        return [
            Step("Acciones solicitadas", asked, "Lo que pidió en su aceptación."),
            Step(
                "Retirada por su comisionista",
                0,
                "Su comisionista retiró esta aceptación mientras la oferta recibía "
                "aceptaciones: no entró en la adjudicación, no se le adjudicaron acciones y "
                "no hay nada que pagar por ella.",
            ),
        ]
    permitted = _int(found["cantidad_permitida"])
    personal = _int(found["cantidad_persona"])
    awarded = _int(found["adjudicada"])
    steps = [Step("Acciones solicitadas", asked, "Lo que pidió en su aceptación.")]
    if found.get("decision_al_radicar") == "rechazada":
        steps.append(Step("Rechazada al radicar", 0, _rejected(program, found)))
    elif permitted < asked:
        rule = rule_cited(program, found.get("regla_al_radicar"))
        steps.append(
            Step(
                "Cantidad permitida por los límites al radicar",
                permitted,
                f"El límite que determinó la cantidad: {rule}. Se presentó por "
                f"{_shares(permitted)} de las {group(asked)} pedidas.",
            )
        )
    if personal < permitted:
        rule = rule_cited(program, found.get("regla_limitante"))
        earlier = found.get("consumido_por") or "sus radicaciones anteriores"
        steps.append(
            Step(
                "Con sus otras radicaciones",
                personal,
                f"Sus radicaciones anteriores ({earlier}) ya usaron parte del mismo límite "
                f"como persona: {rule}. Quedaron {_shares(personal)} para esta.",
            )
        )
    if awarded < personal:
        steps.append(Step(*_shared_out(stored, found, personal, awarded)))
    steps.append(
        Step(
            "Acciones adjudicadas",
            awarded,
            "Lo que se le adjudicó en la Primera Etapa."
            if awarded
            else "No se le adjudicaron acciones.",
        )
    )
    return steps + _settled(found)


def _rejected(program: Program, found: Mapping[str, object]) -> str:
    """Each condition the filing did not meet, with its article (``filing.reasons``)."""
    causes = [str(c) for c in found.get("causas_al_radicar") or []]  # type: ignore[attr-defined]
    if not causes:  # the offer's rules changed since: its causes cannot be written again
        return f"La aceptación no cumplió una condición del programa ({program.name})."
    met = count(len(causes), "condición", "condiciones")
    return f"La aceptación no cumplió {met} del programa: " + " ".join(causes)


def _settled(found: Mapping[str, object]) -> list[Step]:
    """After the payments are settled: the shares paid for (its own), and those not paid,
    whose award was resolved: they are not delivered and go back to the shares for sale."""
    if found.get("fecha_enajenacion") is None:
        return []
    day = found["fecha_enajenacion"]
    paid, resolved = _int(found["acciones_pagadas"]), _int(found["acciones_resueltas"])
    steps = [
        Step(
            "Acciones pagadas",
            paid,
            f"Pagadas en el plazo; enajenadas a su nombre el {day:%Y-%m-%d}."
            if paid
            else "No se pagó ninguna acción en el plazo.",
        )
    ]
    if resolved:
        steps.append(
            Step(
                "Acciones no pagadas",
                resolved,
                "No se pagaron en el plazo: su adjudicación se resolvió, no se le entregan y "
                "vuelven a las acciones por vender.",
            )
        )
    return steps


def _shared_out(
    stored: StoredOffer, found: Mapping[str, object], personal: int, awarded: int
) -> tuple[str, int, str]:
    """Why fewer were awarded than the limits left: a joint cap on the person's category
    group, or the prorrateo of an oversubscribed offer by the program's method."""
    program = stored.program
    rule = program.allocation
    category = str(found.get("categoria") or "")
    bound = found.get("topes_que_limitaron") or []
    caps = [
        cap
        for cap in rule.joint_caps
        if category in cap.categories and cap.id in bound  # type: ignore[operator]
    ]
    method = label("metodo", rule.method, program)
    shared = (
        f"La demanda superó las acciones ofrecidas y la oferta se repartió por el método "
        f"{method.lower()} ({_where(program, rule.citation)})"
    )
    if caps:
        cap = caps[0]
        shared += (
            f", dentro del tope conjunto «{cap.name}» ({cite(program, cap.citation)}) de su "
            "categoría"
        )
    return (
        "Reparto de la oferta (prorrateo)",
        awarded,
        f"{shared}: de {_shares(personal)} le correspondieron {group(awarded)}.",
    )


def _where(program: Program, citation: Citation) -> str:
    """The article, or, where the decree's text at hand has none (the program cites its
    sources document), that the program fixes it: never a file's name or section."""
    if SOURCES in program.norms[citation.norm].texts:
        return (
            "el que fija el programa de la oferta, pues el texto disponible del decreto no "
            "trae el artículo de adjudicación"
        )
    return cite(program, citation)


def _int(value: object) -> int:
    return int(str(value))
