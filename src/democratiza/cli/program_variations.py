"""How ``democratiza programa ID`` writes the family's variations a file may use: caps in
pesos, minimum salaries or a percentage of the offer, the financed maximum, the minimum and
the lot of an acceptance, payment in instalments and the joint caps of the adjudication.
A file that uses none of them shows nothing more."""

from __future__ import annotations

from democratiza.labels import label
from democratiza.money import decimal_percent, pesos, to_centavos
from democratiza.programs.schema import Citation, LimitRule, OfferedShare, Program
from democratiza.rules.explain import cite
from democratiza.words import count


def _share(share: OfferedShare) -> str:
    rounded = label("redondeo", share.rounding)
    return f"{decimal_percent(share.percent)} de las acciones ofrecidas, {rounded}"


def cap_words(rule: LimitRule, p: Program) -> str:
    """A cap that is not in shares, as the decree writes it."""
    if rule.cap_pesos is not None:
        return f"tope de {pesos(to_centavos(rule.cap_pesos))}"
    if rule.cap_smmlv is not None:
        name = rule.cap_smmlv.parameter
        return (
            f"tope de {rule.cap_smmlv.times} salarios mínimos mensuales legales vigentes de "
            f"{rule.cap_smmlv.year} (parámetro {name}, {cite(p, p.parameters[name].citation)})"
        )
    if rule.cap_offered is not None:
        return f"tope del {_share(rule.cap_offered)}"
    if rule.cap_outstanding is not None:
        share, name = rule.cap_outstanding, "acciones_en_circulacion"
        rounded = label("redondeo", share.rounding)
        where = cite(p, p.parameters[name].citation) if name in p.parameters else ""
        return (
            f"tope del {decimal_percent(share.percent)} de las acciones en circulación del "
            f"emisor, {rounded} (parámetro {name}, {where})"
        )
    return "lo que cabe en el monto máximo financiado, para quien paga en cuotas"


def payment_lines(p: Program) -> list[str]:
    plan = p.instalment_plan
    if plan is None:
        return []

    def c(citation: Citation) -> str:
        return cite(p, citation)

    line = (
        f"Pago en cuotas (formas_de_pago.cuotas): cuota inicial del "
        f"{decimal_percent(plan.down_payment.value)} ({c(plan.down_payment.citation)}) y el "
        f"saldo en {count(plan.instalments.value, 'cuota', 'cuotas')} iguales "
        f"({c(plan.instalments.citation)})"
    )
    if plan.max_financed is not None:
        amount = pesos(to_centavos(plan.max_financed.value))
        line += (
            f"; saldo financiado de hasta {amount} por aceptante ({c(plan.max_financed.citation)})"
        )
    return [line + (f". {plan.note}" if plan.note else ".")]


def validity_lines(p: Program) -> list[str]:
    v, lines = p.validity, []
    if v.minimum is not None:
        minimum = count(v.minimum.value, "acción", "acciones")
        lines.append(
            f"Cantidad mínima por aceptación (validez.cantidad_minima): {minimum} "
            f"({cite(p, v.minimum.citation)})"
        )
    if v.lot is not None:
        lines.append(
            f"Lote de las aceptaciones (validez.lote): múltiplos de "
            f"{count(v.lot.value, 'acción', 'acciones')}; lo que permiten los límites se lleva "
            f"a lotes completos ({cite(p, v.lot.citation)})"
        )
    return lines


def joint_cap_lines(p: Program) -> list[str]:
    return [
        f"Tope conjunto (adjudicacion.topes_conjuntos) {cap.id}: {cap.name}: "
        + ", ".join(label("categoria", c) for c in cap.categories)
        + f" reciben en conjunto a lo sumo el {_share(cap.share)} ({cite(p, cap.citation)})"
        for cap in p.allocation.joint_caps
    ]
