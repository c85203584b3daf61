"""``democratiza programas`` and ``democratiza programa ID``: every section of a program file,
every value with its citation.

Each section is titled with its key in the file (``Líneas de crédito (lineas_credito)``), so
what is shown can be found in the file and nothing the file says is left out; the Primera
Etapa's sections are here, the later ones in ``cli.program_sections``. What a person types
(a program's id, a parameter's name, a category's code) is shown whole; the rest in the
decree's words (``labels``).
"""

from __future__ import annotations

import typer
from rich.console import Console
from rich.text import Text

from democratiza.cli.common import table as people_table
from democratiza.cli.program_sections import row, show_later_sections, table
from democratiza.cli.program_variations import (
    cap_words,
    joint_cap_lines,
    payment_lines,
    validity_lines,
)
from democratiza.labels import label
from democratiza.money import group
from democratiza.programs.loader import bundled_program_ids, load_program
from democratiza.programs.parameters import make_offer_value, shown
from democratiza.programs.schema import (
    NO_LIMITS,
    Citation,
    Condition,
    LimitRule,
    Program,
    missing_section,
)
from democratiza.programs.texts import shipped_texts
from democratiza.rules.explain import cite
from democratiza.tables.acceptances import format_markdown

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


def say(console: Console, line: str) -> None:
    console.print(Text(line))


def show_programs(console: Console) -> None:
    rows = []
    for program_id in bundled_program_ids():
        p = load_program(program_id)
        who = f"{p.name}\nVendedor: {p.seller.value}"
        rows.append([p.id, who, _value(p, "acciones_ofrecidas"), _value(p, "precio")])
    headers = ("Id", "Programa", "Acciones ofrecidas", "Precio")
    console.print(people_table("Programas disponibles", headers, rows, right=(2, 3)))


def _value(program: Program, name: str) -> str:
    param = program.parameters.get(name)
    if param is None or param.value is None:
        return "(lo fija la oferta)"
    return shown(name, make_offer_value(name, param.value))


def _limit(rule: LimitRule, p: Program) -> str:
    if rule.cap_shares is not None:
        return f"{group(rule.cap_shares)} acciones"
    if rule.base is None:
        return cap_words(rule, p)
    assert rule.base is not None
    frac = rule.fraction
    mult = str(frac.numerator) + (f"/{frac.denominator}" if frac.denominator > 1 else "")
    sources = ", ".join(label("monto", s) for s in rule.base.sources)
    if len(rule.base.sources) == 1:
        return f"{mult} × ({sources})"
    return f"{mult} × {label('combinar', rule.base.combine)} ({sources})"


def show_program(console: Console, p: Program) -> None:
    def c(citation: Citation | None) -> str:
        return "" if citation is None else cite(p, citation)

    console.print(Text(f"{p.name} ({p.id}, versión {p.version})", style="bold"))
    say(console, f"Vendedor (vendedor): {p.seller.value} ({c(p.seller.citation)})")
    say(console, f"Emisor (emisor): {p.issuer.value} ({c(p.issuer.citation)})")
    t = table(
        "Normas citadas (normas)", "Clave", "Norma", "Se cita como", "Fecha", "Texto o fuente"
    )
    for key, norm in p.norms.items():
        where = ", ".join(
            f"normas/{name}" if name in shipped_texts() else name for name in norm.texts
        )
        where = "; ".join(x for x in (where, norm.source or "") if x)
        row(t, key, norm.name, norm.short, str(norm.issued or ""), where)
    console.print(t)
    for norm in p.norms.values():
        if norm.numbering:
            numbers = "; ".join(f"«{k}»: {', '.join(v)}" for k, v in norm.numbering.items())
            say(
                console,
                f"Párrafos de {norm.short} por sus primeras palabras (numeracion): {numbers}",
            )
    t = table("Parámetros (parametros)", "Parámetro", "Valor", "Cita", "Nota")
    for name, param in p.parameters.items():
        row(t, name, _value(p, name), c(param.citation), param.note or "")
    console.print(t)
    t = table("Destinatarios (categorias)", "Categoría", "Nombre", "Cita", "Certificado exige")
    for cat in p.categories:
        extra: list[str] = [cat.employer_status] if cat.employer_status else []
        if cat.excludes_just_cause:
            extra.append(f"sin retiro por justa causa ({c(cat.excludes_just_cause)})")
        if cat.nationals_only:
            extra.append(f"solo nacionales ({c(cat.nationals_only)})")
        row(t, cat.id, cat.name, c(cat.citation), "; ".join(extra))
    console.print(t)
    t = table(
        "Documentos exigidos (documentos)", "Documento", "Nombre", "Exigible si", "Cita", "Nota"
    )
    for doc in p.documents:
        when = describe(doc.required_when)
        if doc.alternatives:
            when += f" (o bien: {', '.join(doc.alternatives)})"
        if doc.max_age_months:
            when += f"; expedido dentro de {doc.max_age_months} mes(es)"
        row(t, doc.id, doc.name, when, c(doc.citation), doc.note or "")
    console.print(t)
    if p.remuneration is not None:
        r = p.remuneration
        say(
            console,
            f"Remuneración anual (remuneracion_anual): con menos de {r.min_months} meses en el "
            f"cargo, el salario mensual × {r.monthly_factor} ({c(r.citation)})",
        )
    else:
        say(console, "Remuneración anual (remuneracion_anual): el programa no la define.")
    t = table("Límites por aceptante, se aplica el menor (limites)", "Regla", "Límite", "Aplica si")
    t.add_column("Cita", overflow="fold")
    for rule in p.limits:
        combined = c(rule.base.citation) if rule.base and rule.base.citation else ""
        limit = _limit(rule, p) + (f" ({combined})" if combined else "")
        when = describe(rule.applies_when)
        if rule.cap_financed is not None:  # the engine adds it: it concerns who finances
            paying = f"forma de pago: {label('forma_pago', rule.cap_financed)}"
            when = paying if when == "siempre" else f"{when}; {paying}"
        row(t, f"{rule.id}: {rule.name}", limit, when, c(rule.citation))
    if p.limits:
        console.print(t)
    else:
        say(console, missing_section(p, "limites", NO_LIMITS))
    t = table("Manifestaciones (compromisos, declaracion_juramentada)", "Id", "Manifestación")
    t.add_column("Exigible si", overflow="fold")
    t.add_column("Cita", overflow="fold")
    for u in [*p.undertakings, *([p.sworn_statement] if p.sworn_statement else [])]:
        row(t, u.id, u.text, describe(u.required_when), c(u.citation))
    console.print(t)
    if not p.undertakings:
        say(console, missing_section(p, "compromisos", "exigir ni verificar compromisos"))
    pay = ", ".join(
        label("forma_pago", m.id)
        + (f" (solo {label('persona', m.only_for).lower()})" if m.only_for else "")
        + f" ({c(m.citation)})"
        for m in p.payment_methods
    )
    say(console, f"Formas de pago (formas_de_pago): {pay}")
    for line in payment_lines(p):
        say(console, line)
    w = p.window
    say(
        console,
        f"Plazo mínimo de la oferta (ventana): {w.min_months} meses ({c(w.citation)}), "
        f"contados desde {w.start.words} ({c(w.start.citation)}). {w.start.note or ''}",
    )
    v = p.validity
    say(console, f"Destinatarios válidos (validez.destinatarios): {c(v.eligibility)}")
    say(console, f"Cantidad válida (validez.cantidad): {c(v.quantity)}")
    if v.new_managers is not None:
        say(
            console,
            "Directivos nuevos (validez.directivos_nuevos): vinculados el día hábil anterior "
            f"al vencimiento del plazo ({c(v.new_managers.citation)})",
        )
    for line in validity_lines(p):
        say(console, line)
    a = p.allocation
    linear = f", tramo lineal {a.linear_percent} %" if a.linear_percent else ""
    say(
        console,
        f"Adjudicación (adjudicacion): {label('metodo', a.method)}; remanente: "
        f"{label('residuo', a.remainder).lower()}; lote de {a.unit_shares} "
        f"{'acción' if a.unit_shares == 1 else 'acciones'}{linear} ({c(a.citation)}). "
        f"{a.note or ''}",
    )
    for line in joint_cap_lines(p):
        say(console, line)
    show_later_sections(console, p)


def programs_command() -> None:
    """Lista los programas disponibles."""
    show_programs(Console())


def format_command() -> None:
    """Imprime la especificación del archivo de aceptaciones (Markdown)."""
    typer.echo(format_markdown())
