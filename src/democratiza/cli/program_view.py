"""``democratiza programas`` and ``democratiza programa ID``: every value with its citation.

What a person types (a program's id, a parameter's name, a category's code) is shown whole,
in its own column; everything else in the decree's words (``labels``), never an identifier.
"""

from __future__ import annotations

from rich.console import Console

from democratiza.cli.common import table
from democratiza.labels import label
from democratiza.money import group, pesos
from democratiza.programs.loader import bundled_program_ids, load_program
from democratiza.programs.parameters import PARAMETERS, make_offer_value
from democratiza.programs.schema import Citation, Condition, LimitRule, Program
from democratiza.rules.explain import cite

CONDITION_WORDS = {
    "person": "{}",
    "categories": "categorías: {}",
    "files_tax_return": "obligado a declarar: {}",
    "foreigner": "extranjero: {}",
    "manager": "directivo: {}",
    "new_manager": "directivo nuevo: {}",
}


def describe(cond: Condition) -> str:
    parts = []
    for field, template in CONDITION_WORDS.items():
        value = getattr(cond, field)
        if value is None:
            continue
        if isinstance(value, bool):
            value = "sí" if value else "no"
        elif field == "person":
            value = label("persona", value)
        elif isinstance(value, tuple):
            value = ", ".join(label("categoria", c) for c in value)
        parts.append(template.format(value))
    return "; ".join(parts) or "siempre"


def show_programs(console: Console) -> None:
    rows = []
    for program_id in bundled_program_ids():
        p = load_program(program_id)
        who = f"{p.name}\nVendedor: {p.seller.value}"
        rows.append([p.id, who, _value(p, "acciones_ofrecidas"), _value(p, "precio")])
    headers = ("Id", "Programa", "Acciones ofrecidas", "Precio")
    console.print(table("Programas disponibles", headers, rows, right=(2, 3)))


def _value(program: Program, name: str) -> str:
    param = program.parameters.get(name)
    if param is None or param.value is None:
        return "(lo fija la oferta)"
    value = make_offer_value(name, param.value)
    kind = PARAMETERS[name].kind
    if kind == "dinero" and isinstance(value, int):
        return pesos(value)
    if kind == "entero" and isinstance(value, int):
        return group(value)
    return str(value)


def _limit(rule: LimitRule) -> str:
    """What a limit allows: '367.800 acciones', '2 × (patrimonio líquido)'."""
    if rule.cap_shares is not None:
        return f"{group(rule.cap_shares)} acciones"
    assert rule.base is not None
    frac = rule.fraction
    mult = str(frac.numerator) + (f"/{frac.denominator}" if frac.denominator > 1 else "")
    sources = ", ".join(label("monto", s) for s in rule.base.sources)
    if len(rule.base.sources) == 1:
        return f"{mult} × ({sources})"
    return f"{mult} × {label('combinar', rule.base.combine)} ({sources})"


def show_program(console: Console, p: Program) -> None:
    headers: tuple[str, ...]

    def c(citation: Citation) -> str:
        return cite(p, citation)

    console.print(f"[bold]{p.name}[/] ({p.id}, versión {p.version})")
    console.print(f"Vendedor: {p.seller.value} ({c(p.seller.citation)})")
    console.print(f"Emisor: {p.issuer.value} ({c(p.issuer.citation)})")
    rows = [
        [name, label("parametro", name), _value(p, name), c(param.citation), param.note or ""]
        for name, param in p.parameters.items()
    ]
    headers = ("Parámetro", "Qué es", "Valor", "Cita", "Nota")
    console.print(table("Parámetros (--parametro NOMBRE=VALOR)", headers, rows))
    rows = []
    for cat in p.categories:
        extra = [label("estado_certificado", cat.employer_status)] if cat.employer_status else []
        if cat.excludes_just_cause:
            extra.append(f"sin retiro por justa causa ({c(cat.excludes_just_cause)})")
        rows.append([cat.id, cat.name, c(cat.citation), "; ".join(extra)])
    headers = ("Código", "Destinatario", "Cita", "El certificado laboral acredita")
    console.print(table("Destinatarios de las Condiciones Especiales", headers, rows))
    rows = []
    for doc in p.documents:
        when = describe(doc.required_when)
        if doc.alternatives:
            others = ", ".join(label("documento", a, p) for a in doc.alternatives)
            when += f" (o bien: {others})"
        if doc.max_age_months:
            when += f"; expedido dentro de {doc.max_age_months} mes(es)"
        rows.append([doc.name, when, c(doc.citation)])
    console.print(table("Documentos exigidos", ("Documento", "Exigible si", "Cita"), rows, keys=()))
    rows = [[r.name, _limit(r), describe(r.applies_when), c(r.citation)] for r in p.limits]
    headers = ("Límite", "Permite", "Aplica si", "Cita")
    console.print(table("Límites por aceptante (se aplica el menor)", headers, rows, keys=()))
    pledges = [*p.undertakings, *([p.sworn_statement] if p.sworn_statement else [])]
    rows = [[u.text, c(u.citation)] for u in pledges]
    headers = ("Manifestación", "Cita")
    console.print(table("Manifestaciones obligatorias", headers, rows, keys=()))
    pay = "; ".join(
        label("forma_pago", m.id)
        + (f" (solo {label('persona', m.only_for).lower()})" if m.only_for else "")
        + f" [{c(m.citation)}]"
        for m in p.payment_methods
    )
    console.print(f"Formas de pago: {pay}")
    console.print(
        f"Plazo mínimo de la oferta: {p.window.min_months} meses ({c(p.window.citation)})"
    )
    a = p.allocation
    console.print(
        f"Adjudicación: {label('metodo', a.method)}; remanente: "
        f"{label('residuo', a.remainder).lower()}; lote de {group(a.unit_shares)} "
        f"({c(a.citation)}). {a.note or ''}"
    )
    rows = [
        [f"{b.from_months} a {b.to_months}", f"{b.percent} %", c(b.citation)] for b in p.fines.bands
    ]
    headers = (f"Tramo en meses (desde: {p.fines.counted_from.value})", "Porcentaje", "Cita")
    console.print(table("Multas por incumplimiento", headers, rows, keys=()))
    for base in p.fines.base_values:
        console.print(f"  Base posible: {base.value} ({c(base.citation)})")
    console.print(f"  Ajuste: {p.fines.adjustment.value} ({c(p.fines.adjustment.citation)})")
    later = p.later_stages
    if later is not None:
        stage_rules = [
            ("Inversionistas", later.investors),
            ("Precio mínimo", later.minimum_price),
            ("Desierta", later.void),
            *([("Etapas subsecuentes", later.later)] if later.later else []),
        ]
        rows = [[name, text.value, c(text.citation)] for name, text in stage_rules]
        title = f"Etapas siguientes: {later.name.value} ({c(later.name.citation)})"
        console.print(table(title, ("Regla", "Texto", "Cita"), rows, keys=()))
    else:
        console.print("Etapas siguientes: el archivo no las define (no se puede crear una).")
    rows = [[nm.provision, c(nm.citation), nm.reason] for nm in p.not_modelled]
    headers = ("Disposición", "Cita", "Razón")
    console.print(table("Disposiciones no modeladas (cobertura)", headers, rows, keys=()))
