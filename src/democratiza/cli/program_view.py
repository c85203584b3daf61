"""``democratiza programas`` and ``democratiza programa ID``: every value with its citation."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from democratiza.money import group, pesos
from democratiza.programs.loader import bundled_program_ids, load_program
from democratiza.programs.parameters import PARAMETERS, make_offer_value
from democratiza.programs.schema import Citation, Condition, Program
from democratiza.rules.explain import cite

CONDITION_WORDS = {
    "person": "persona {}",
    "categories": "categorías {}",
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
        elif isinstance(value, tuple):
            value = ", ".join(value)
        parts.append(template.format(value))
    return "; ".join(parts) or "siempre"


def show_programs(console: Console) -> None:
    table = Table(title="Programas disponibles")
    for col in ("Id", "Programa", "Vendedor", "Acciones ofrecidas", "Precio"):
        table.add_column(col)
    for program_id in bundled_program_ids():
        p = load_program(program_id)
        table.add_row(
            p.id, p.name, p.seller.value, _value(p, "acciones_ofrecidas"), _value(p, "precio")
        )
    console.print(table)


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


def show_program(console: Console, p: Program) -> None:
    def c(citation: Citation) -> str:
        return cite(p, citation)

    console.print(f"[bold]{p.name}[/] ({p.id}, versión {p.version})")
    console.print(f"Vendedor: {p.seller.value} ({c(p.seller.citation)})")
    console.print(f"Emisor: {p.issuer.value} ({c(p.issuer.citation)})")
    t = Table(title="Parámetros")
    for col in ("Parámetro", "Valor", "Cita", "Nota"):
        t.add_column(col)
    for name, param in p.parameters.items():
        t.add_row(name, _value(p, name), c(param.citation), param.note or "")
    console.print(t)
    t = Table(title="Destinatarios de las Condiciones Especiales")
    for col in ("Categoría", "Nombre", "Cita", "Certificado exige"):
        t.add_column(col)
    for cat in p.categories:
        extra: list[str] = [cat.employer_status] if cat.employer_status else []
        if cat.excludes_just_cause:
            extra.append(f"sin retiro por justa causa ({c(cat.excludes_just_cause)})")
        t.add_row(cat.id, cat.name, c(cat.citation), "; ".join(extra))
    console.print(t)
    t = Table(title="Documentos exigidos")
    for col in ("Documento", "Exigible si", "Cita"):
        t.add_column(col)
    for doc in p.documents:
        when = describe(doc.required_when)
        if doc.alternatives:
            when += f" (o bien: {', '.join(doc.alternatives)})"
        if doc.max_age_months:
            when += f"; expedido dentro de {doc.max_age_months} mes(es)"
        t.add_row(doc.name, when, c(doc.citation))
    console.print(t)
    t = Table(title="Límites por aceptante (se aplica el menor)")
    for col in ("Regla", "Límite", "Aplica si", "Cita"):
        t.add_column(col)
    for rule in p.limits:
        if rule.cap_shares is not None:
            what = f"{group(rule.cap_shares)} acciones"
        else:
            assert rule.base is not None
            frac = rule.fraction
            mult = str(frac.numerator) + (f"/{frac.denominator}" if frac.denominator > 1 else "")
            how = " el mayor de " if rule.base.combine == "mayor" else " el primero presentado de "
            sources = ", ".join(rule.base.sources)
            what = (
                f"{mult} × ({sources})"
                if len(rule.base.sources) == 1
                else (f"{mult} ×{how}({sources})")
            )
        t.add_row(f"{rule.id}: {rule.name}", what, describe(rule.applies_when), c(rule.citation))
    console.print(t)
    t = Table(title="Manifestaciones obligatorias")
    t.add_column("Manifestación")
    t.add_column("Cita")
    for u in [*p.undertakings, *([p.sworn_statement] if p.sworn_statement else [])]:
        t.add_row(u.text, c(u.citation))
    console.print(t)
    pay = ", ".join(
        m.id + (f" (solo {m.only_for})" if m.only_for else "") + f" [{c(m.citation)}]"
        for m in p.payment_methods
    )
    console.print(f"Formas de pago: {pay}")
    console.print(
        f"Plazo mínimo de la oferta: {p.window.min_months} meses ({c(p.window.citation)})"
    )
    a = p.allocation
    console.print(
        f"Adjudicación: {a.method}, residuo {a.remainder}, lote {a.unit_shares} "
        f"({c(a.citation)}). {a.note or ''}"
    )
    t = Table(title="Multas por incumplimiento")
    t.add_column(f"Tramo en meses (desde: {p.fines.counted_from.value})")
    t.add_column("Porcentaje")
    t.add_column("Cita")
    for band in p.fines.bands:
        t.add_row(f"{band.from_months} a {band.to_months}", f"{band.percent} %", c(band.citation))
    console.print(t)
    for base in p.fines.base_values:
        console.print(f"  Base posible: {base.value} ({c(base.citation)})")
    console.print(f"  Ajuste: {p.fines.adjustment.value} ({c(p.fines.adjustment.citation)})")
    later = p.later_stages
    if later is not None:
        t = Table(title=f"Etapas siguientes: {later.name.value} ({c(later.name.citation)})")
        t.add_column("Regla")
        t.add_column("Texto")
        t.add_column("Cita")
        rules = [
            ("Inversionistas", later.investors),
            ("Precio mínimo", later.minimum_price),
            ("Desierta", later.void),
            *([("Etapas subsecuentes", later.later)] if later.later else []),
        ]
        for label, text in rules:
            t.add_row(label, text.value, c(text.citation))
        console.print(t)
    else:
        console.print("Etapas siguientes: el archivo no las define (no se puede crear una).")
    t = Table(title="Disposiciones no modeladas (cobertura)")
    for col in ("Disposición", "Cita", "Razón"):
        t.add_column(col)
    for nm in p.not_modelled:
        t.add_row(nm.provision, c(nm.citation), nm.reason)
    console.print(t)
