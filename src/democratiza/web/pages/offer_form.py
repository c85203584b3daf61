"""The new offer's form, read field by field as the program will read it.

Why before ``create_offer``: the service refuses a bad offer with one message; the page
wants each problem under its field, all at once. Each value is read by the program's own
``make_offer_value`` (money by ``money.parse_pesos``), so the form accepts exactly what the
service does.
"""

from __future__ import annotations

import re

from democratiza.money import AMOUNT_EXAMPLES, SHARES_EXAMPLES, MoneyError
from democratiza.programs.loader import bundled_program_ids, load_program
from democratiza.programs.parameters import PARAMETERS, make_offer_value
from democratiza.rules.explain import cite
from democratiza.web.errors import ErrorItem

OFFER_FIELDS = ("precio", "acciones_ofrecidas", "fecha_aviso", "fecha_cierre", "trm")
NEEDED = ("precio", "acciones_ofrecidas", "fecha_aviso", "fecha_cierre")  # an offer needs them
FORM_FIELDS = ("codigo", "programa", *OFFER_FIELDS, "motivo")
CODE = re.compile(r"^[A-Za-z0-9\-_.]{1,80}$")  # as the API's NewCode: it goes into URLs


def offer_problems(form: dict[str, str]) -> list[ErrorItem]:
    """Every field of the new offer that cannot be right, read as the program reads it."""
    problems = []
    if not CODE.match(form.get("codigo", "").strip()):
        message = "escriba un código de letras, números y guiones (p. ej. geb-primera-etapa)"
        problems.append(ErrorItem(columna="codigo", mensaje=message))
    program_id = form.get("programa", "")
    if program_id not in bundled_program_ids():
        return [*problems, ErrorItem(columna="programa", mensaje="elija uno de los programas")]
    program = load_program(program_id)
    for name in OFFER_FIELDS:
        text = form.get(name, "").strip()
        param = program.parameters.get(name)
        if not text:
            if param is not None and param.value is None and name in NEEDED:
                problems.append(ErrorItem(columna=name, mensaje="falta este dato"))
            continue
        if param is None:
            problems.append(ErrorItem(columna=name, mensaje="este programa no lo usa"))
        elif param.value is not None:
            where = cite(program, param.citation)
            problems.append(ErrorItem(columna=name, mensaje=f"lo fija el decreto ({where})"))
        else:
            try:
                make_offer_value(name, text)
            except (ValueError, MoneyError):
                problems.append(ErrorItem(columna=name, mensaje=_expected(name)))
    return problems


def _expected(name: str) -> str:
    kind = PARAMETERS[name].kind
    if kind == "fecha":
        return "se espera una fecha AAAA-MM-DD"
    if kind == "entero":
        return f"se espera un número entero mayor que cero ({SHARES_EXAMPLES})"
    return f"se espera un monto en pesos mayor que cero ({AMOUNT_EXAMPLES})"
