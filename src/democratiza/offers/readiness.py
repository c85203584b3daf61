"""What an offer of a program will need later, said when the program file is checked.

A file can be valid and still not carry what a later step requires: the opening of the
Primera Etapa needs credit lines and their conditions (Ley 226 de 1995 art. 11 num. 3); a
later stage needs the program's rules for it. ``democratiza programa validar`` lists each
such need with what to add, instead of the step refusing it months later.
"""

from __future__ import annotations

from democratiza.programs.schema import NO_LIMITS, Program, missing_section


def credit_lines_missing(program: Program) -> str:
    """Why an offer of a program without ``lineas_credito`` cannot open, and what to add."""
    why = (
        "ofrecer la Primera Etapa, que solo se ofrece cuando existen líneas de crédito para "
        "los destinatarios (Ley 226 de 1995 art. 11 num. 3)"
    )
    return (
        f"{missing_section(program, 'lineas_credito', why)} Agregue al archivo "
        "lineas_credito con financiacion_minima_porcentaje, plazo_minimo_meses, "
        "gracia_minima_meses, tasa_maxima y garantia_acciones, cada una con la cita del "
        "artículo del decreto que las fija."
    )


def later_needs(program: Program) -> list[str]:
    """Each thing a later step of an offer of ``program`` will refuse for lack of it."""
    needs = []
    if not program.limits:
        needs.append(
            "Para evaluar o adjudicar aceptaciones y para la calculadora: "
            + missing_section(program, "limites", NO_LIMITS)
        )
    if program.credit_lines is None:
        needs.append(f"Para abrir una oferta: {credit_lines_missing(program)}")
    else:
        needs.append(
            "Para abrir una oferta: registre sus líneas de crédito (credito registrar); la "
            "tasa de cada una se compara con el interés bancario corriente certificado del día "
            "de su otorgamiento: si la serie incluida no tiene ese periodo, dé la serie oficial."
        )
    if program.later_stages is None and program.unmodelled("etapas_siguientes") is None:
        needs.append(
            "Para una etapa siguiente: el archivo no trae etapas_siguientes (nombre, "
            "inversionistas, precio_minimo, desierta, formas_de_pago, con sus citas) ni lo "
            "declara en no_modelado (seccion: etapas_siguientes); no se podrá crear una."
        )
    elif program.later_stages is not None:
        needs.append(
            "Para una etapa siguiente: al crearla, dé su archivo de términos (ventana, "
            "cantidad mínima, lote, mecanismo y tope por tramo, del reglamento y del aviso)."
        )
    return needs
