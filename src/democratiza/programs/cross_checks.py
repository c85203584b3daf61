"""What the schema alone cannot see in a program file: references between its parts, and
between the file and the texts it cites (the package's, or files beside the program).

Each check gives (key path, Spanish message). The checks on the file as written (norms and
citations) run even when the schema refuses other parts, so ``democratiza programa validar``
reports every problem at once; the checks that need the whole program run once it loads.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel

from democratiza.programs.coverage import unmatched_numbering
from democratiza.programs.parameters import PARAMETERS, REQUIRED_PARAMETERS
from democratiza.programs.schema import Program
from democratiza.programs.texts import (
    HOW_TO_CITE,
    SOURCES,
    cited_section,
    name_problem,
    resolved,
    sections_of,
    shipped_texts,
    source_file,
)
from democratiza.vocabulary import DOCUMENT_DATE

Problem = tuple[str, str]  # (key path, message)


def _written_citations(value: Any, path: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Every citation as written (a mapping with ``norma``), with its key path."""
    if isinstance(value, Mapping):
        if "norma" in value:
            yield path, value
        for key, item in value.items():
            yield from _written_citations(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _written_citations(item, f"{path}[{i}]")


def _texts(norm: Mapping[str, Any]) -> list[Any]:
    texts = norm.get("texto")
    return [texts] if isinstance(texts, str) else list(texts or [])


def cited_names(data: Any) -> list[str]:
    """Every file a program's norms name (``texto`` and ``fuente``), in the file's order."""
    if not isinstance(data, Mapping) or not isinstance(data.get("normas"), Mapping):
        return []
    names: list[str] = []
    for norm in data["normas"].values():
        if not isinstance(norm, Mapping):
            continue
        found = source_file(norm["fuente"]) if isinstance(norm.get("fuente"), str) else None
        for name in [*_texts(norm), *([found[0]] if found else [])]:
            if isinstance(name, str) and name not in names:
                names.append(name)
    return names


def _missing(name: str, where: str) -> str:
    shipped = ", ".join(shipped_texts())
    return (
        f"'{name}' no es un texto incluido en el paquete ni un archivo {where}; "
        f"{HOW_TO_CITE}; textos incluidos: {shipped}"
    )


def _norm_problems(
    path: str, norm: Mapping[str, Any], beside: Mapping[str, str], where: str
) -> Iterator[Problem]:
    texts, source = _texts(norm), norm.get("fuente")
    if not texts and not source:
        yield (
            path,
            (
                "la norma no nombra su texto ('texto') ni su fuente ('fuente: ARCHIVO §N'); "
                f"{HOW_TO_CITE}; textos incluidos: {', '.join(shipped_texts())}"
            ),
        )
    single = isinstance(norm.get("texto"), str)
    for i, name in enumerate(texts):
        if not isinstance(name, str):
            continue
        where_key = f"{path}.texto" if single else f"{path}.texto[{i}]"
        problem = name_problem(name)
        if problem is None and resolved(name, beside) is None:
            problem = _missing(name, where)
        if problem is not None:
            yield where_key, problem
    if isinstance(source, str):
        found = source_file(source)
        if found is None:
            yield (
                f"{path}.fuente",
                f"'{source}' no es un archivo de fuentes con su sección (p. ej. "
                f"'fuente: {SOURCES} §2' o 'fuente: mis-fuentes.md §1')",
            )
            return
        name, section = found
        problem = name_problem(name)
        text = resolved(name, beside) if problem is None else None
        if problem is None and text is None:
            problem = _missing(name, where)
        if problem is not None:
            yield f"{path}.fuente", problem
        elif text is not None and section is not None and section not in sections_of(text):
            yield f"{path}.fuente", f"{name} no tiene la sección §{section}"


def _numbering_problems(
    path: str, norm: Mapping[str, Any], beside: Mapping[str, str]
) -> list[Problem]:
    """``numeracion`` names paragraphs by their first words: each must open one of the norm's
    texts' paragraphs, or the map would silently number nothing."""
    numbering = norm.get("numeracion")
    if not isinstance(numbering, Mapping) or not numbering:
        return []
    texts = [t for n in _texts(norm) if isinstance(n, str) and (t := resolved(n, beside))]
    if not texts:
        return []
    unmatched = set.intersection(*(set(unmatched_numbering(t, numbering)) for t in texts))
    return [
        (f"{path}.numeracion", f"ningún párrafo del texto empieza por «{words}»")
        for words in numbering
        if words in unmatched
    ]


def written_problems(
    data: Any, beside: Mapping[str, str] | None = None, where: str = "junto al programa"
) -> list[Problem]:
    """Norms that name no text or source that can be read (``beside``: the texts found
    beside the program file, by name; ``where`` says where that is); citations of undeclared
    norms, or of a section a sources document does not have."""
    if not isinstance(data, Mapping) or not isinstance(data.get("normas"), Mapping):
        return []  # the schema says what is wrong with the file's shape
    beside = beside or {}
    norms: Mapping[str, Any] = data["normas"]
    problems: list[Problem] = []
    sections: dict[str, tuple[str, frozenset[str]]] = {}  # a sources norm: its file, sections
    for key, norm in norms.items():
        if not isinstance(norm, Mapping):
            continue
        problems += _norm_problems(f"normas.{key}", norm, beside, where)
        problems += _numbering_problems(f"normas.{key}", norm, beside)
        for name in _texts(norm):
            text = resolved(name, beside) if isinstance(name, str) else None
            if text is not None and sections_of(text):
                sections[key] = (name, sections_of(text))
    for path, citation in _written_citations(data, ""):
        norm, ref = citation.get("norma"), citation.get("ref")
        if not isinstance(norm, str):
            continue
        if norm not in norms:
            problems.append((f"{path}.norma", f"la norma '{norm}' no está declarada en 'normas'"))
        elif norm in sections and isinstance(ref, str):
            name, known = sections[norm]
            section = cited_section(ref)
            if section is not None and section not in known:
                problems.append((f"{path}.ref", f"{name} no tiene la sección §{section}"))
    return problems


def models_section(program: Program, section: str) -> bool:
    """Whether the file writes the section (a key path of aliases: ``multas.intereses_mora``)."""
    value: object = program
    for key in section.split("."):
        if not isinstance(value, BaseModel):
            return False
        fields = type(value).model_fields
        value = next(getattr(value, n) for n, f in fields.items() if (f.alias or n) == key)
    return value is not None and value != ()


def program_problems(program: Program) -> list[Problem]:
    """References between parts of a program that loaded."""
    problems: list[Problem] = []

    def err(path: str, message: str) -> None:
        problems.append((path, message))

    for name, param in program.parameters.items():
        if name not in PARAMETERS:
            err(f"parametros.{name}", "parámetro desconocido")
            continue
        spec = PARAMETERS[name]
        if param.value is not None and not spec.accepts(param.value):
            kind = spec.kind if spec.kind in ("entero", "fecha") else spec.expected
            err(f"parametros.{name}.valor", f"debe ser {kind}")
    for name in REQUIRED_PARAMETERS:
        if name not in program.parameters:
            err(f"parametros.{name}", "falta este parámetro (puede quedar sin valor)")
    ids = [r.id for r in program.limits]
    for i, rule in enumerate(program.limits):
        if ids.count(rule.id) > 1:
            err(f"limites[{i}].id", f"id repetido '{rule.id}'")
        sources = rule.base.sources if rule.base else ()
        if "salario_mensual_anualizado" in sources and program.remuneration is None:
            err(f"limites[{i}].base.fuentes", "usa el salario mensual sin 'remuneracion_anual'")
        if "ingresos_usd" in sources and "trm" not in program.parameters:
            err(f"limites[{i}].base.fuentes", "usa ingresos en dólares sin el parámetro 'trm'")
        if rule.applies_when.new_manager and "fecha_corte_directivos" not in program.parameters:
            err(f"limites[{i}].aplica_si", "directivo_nuevo exige 'fecha_corte_directivos'")
        if rule.cap_outstanding and "acciones_en_circulacion" not in program.parameters:
            err(
                f"limites[{i}].tope_porcentaje_emisor",
                "exige el parámetro 'acciones_en_circulacion' (con su cita)",
            )
        if rule.cap_smmlv and rule.cap_smmlv.parameter not in program.parameters:
            name = rule.cap_smmlv.parameter
            err(f"limites[{i}].tope_smmlv", f"exige el parámetro '{name}' (con su cita)")
    problems += _instalment_problems(program)
    problems += _joint_cap_problems(program)
    if program.validity.new_managers and "fecha_corte_directivos" not in program.parameters:
        # Otherwise no one would ever be a new manager and the rule would never be checked.
        err("validez.directivos_nuevos", "exige el parámetro 'fecha_corte_directivos'")
    listed = {c.id for c in program.categories}
    for i, doc in enumerate(program.documents):
        if doc.max_age_months is not None and doc.id not in DOCUMENT_DATE:
            # Otherwise the validity rule would silently never be checked.
            err(f"documentos[{i}].vigencia_meses", f"el documento '{doc.id}' no lleva fecha")
        for cat in doc.required_when.categories or ():
            if cat not in listed:
                err(f"documentos[{i}].exigible_si", f"la categoría '{cat}' no está en el programa")
    for key, present in (
        ("limites", bool(program.limits)),
        ("compromisos", bool(program.undertakings)),
        ("multas", program.fines is not None),
    ):
        if not present and program.unmodelled(key) is None:
            err(
                key,
                f"falta '{key}': escríbalos con su cita o, si el texto no los trae, declárelo "
                f"en no_modelado (disposicion, cita, razon y 'seccion: {key}')",
            )
    for i, entry in enumerate(program.not_modelled):
        if entry.section is not None and models_section(program, entry.section):
            err(
                f"no_modelado[{i}].seccion",
                f"el archivo modela '{entry.section}': la cobertura no puede decir que no",
            )
    return problems


def _instalment_problems(program: Program) -> list[Problem]:
    """A maximum financed amount and the limit that applies it go together: without the
    limit the maximum would never be checked; without the maximum the limit has no figure."""
    plan = program.instalment_plan
    has_max = plan is not None and plan.max_financed is not None
    capped = [i for i, r in enumerate(program.limits) if r.cap_financed is not None]
    if capped and not has_max:
        return [
            (
                f"limites[{capped[0]}].tope_financiado",
                "no hay forma de pago 'cuotas' con 'monto_maximo_financiado'",
            )
        ]
    if has_max and not capped:
        where = next(i for i, m in enumerate(program.payment_methods) if m.instalments)
        return [
            (
                f"formas_de_pago[{where}].cuotas.monto_maximo_financiado",
                "ningún límite lo aplica: falta un límite con 'tope_financiado: cuotas'",
            )
        ]
    return []


def _joint_cap_problems(program: Program) -> list[Problem]:
    listed = {c.id for c in program.categories}
    found: list[Problem] = []
    caps = program.allocation.joint_caps
    ids = [cap.id for cap in caps]
    for i, cap in enumerate(caps):
        if ids.count(cap.id) > 1:
            found.append((f"adjudicacion.topes_conjuntos[{i}].id", f"id repetido '{cap.id}'"))
        for category in cap.categories:
            if category not in listed:
                found.append(
                    (
                        f"adjudicacion.topes_conjuntos[{i}].categorias",
                        f"la categoría '{category}' no está en el programa",
                    )
                )
    return found
