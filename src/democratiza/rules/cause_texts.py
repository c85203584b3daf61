"""Each cause of rejection's sentence, with its article, as a column.

A check's sentence is fixed by the program file, except where it quotes what the row filed
(the category, the certified status, the payment method, the filing day) or the limit that
left the permitted quantity at zero.
"""

from __future__ import annotations

import polars as pl

from democratiza.programs.schema import Program
from democratiza.rules.checks import Check
from democratiza.words import count, word

PERSON = {"natural": "personas naturales", "juridica": "personas jurídicas"}


def _quoted(column: str) -> pl.Expr:
    return pl.col(column).cast(pl.String)


def cause_sentence(check: Check, program: Program, where: str, binding: pl.Expr) -> pl.Expr:
    """The sentence of one check's failure (``binding``: the binding limits' sentence)."""
    kind = check.kind
    if kind == "categoria":
        return pl.concat_str(
            [
                pl.lit("La categoría '"),
                _quoted("categoria"),
                pl.lit(f"' no es destinataria en este programa ({where})."),
            ]
        )
    if kind == "estado_certificado":
        return pl.concat_str(
            [
                pl.lit("El certificado laboral acredita '"),
                _quoted("estado_certificado"),
                pl.lit(f"' y la categoría exige '{check.subject}' ({where})."),
            ]
        )
    if kind == "forma_pago" and check.subject:
        return pl.concat_str(
            [
                pl.lit("La forma de pago '"),
                _quoted("forma_pago"),
                pl.lit(f"' solo se admite para {PERSON[check.subject]} ({where})."),
            ]
        )
    if kind == "forma_pago":
        allowed = ", ".join(
            m.id + (f" (solo {PERSON[m.only_for]})" if m.only_for else "")
            for m in program.payment_methods
        )
        return pl.concat_str(
            [
                pl.lit("Forma de pago '"),
                _quoted("forma_pago"),
                pl.lit(f"' no admitida; se admite: {allowed} ({where})."),
            ]
        )
    if kind == "fuera_de_plazo":
        return pl.concat_str(
            [
                pl.lit("Radicada el "),
                pl.col("fecha_radicacion").dt.strftime("%Y-%m-%d"),
                pl.lit(f", fuera del plazo de la oferta ({where})."),
            ]
        )
    if kind == "permitida_cero":
        return pl.concat_str([pl.lit("La cantidad permitida es cero: "), binding, pl.lit(".")])
    return pl.lit(fixed_sentence(check, program, where))


def fixed_sentence(check: Check, program: Program, where: str) -> str:
    """The sentence of a check that quotes nothing of the row."""
    kind = check.kind
    if kind == "justa_causa":
        return f"Ex trabajador retirado por justa causa alegada por el empleador ({where})."
    if kind == "nacionalidad":
        name = next(c.name for c in program.categories if c.id == check.subject)
        return f"Extranjero: la categoría «{name}» es solo para nacionales ({where})."
    if kind in ("documento", "vigencia_documento"):
        doc = program.documents[int(check.subject)]
        if kind == "documento":
            return f"Falta el documento: {doc.name} ({where})."
        return (
            f"{doc.name}: sin fecha o expedido fuera de los {doc.max_age_months} mes(es) "
            f"anteriores a la radicación ({where})."
        )
    if kind == "compromiso":
        rules = [*program.undertakings, program.sworn_statement]
        text = next(u.text for u in rules if u is not None and u.id == check.subject)
        return f"Falta la manifestación escrita: {text} ({where})."
    if kind == "cantidad":
        return f"La cantidad debe ser un número entero de acciones mayor que cero ({where})."
    if kind == "cantidad_minima":
        minimum = count(int(check.subject), "acción", "acciones")
        return f"La cantidad es inferior al mínimo de {minimum} por aceptación ({where})."
    if kind == "lote":
        lot = count(int(check.subject), "acción", "acciones")
        return f"La cantidad no es un múltiplo del lote de {lot} ({where})."
    if kind == "directivo_nuevo":
        return (
            f"Directivo nuevo no vinculado el día hábil anterior al cierre "
            f"({check.subject}) ({where})."
        )
    if kind == "falta_valor":
        rule = program.limit(check.subject)
        assert rule.base is not None
        needed = " o ".join(word("monto", s) for s in rule.base.sources)
        return (
            f"No se puede calcular el límite «{rule.name}»: falta {needed}; "
            f"no se calcula sobre cero ({where})."
        )
    raise AssertionError(f"una causal sin frase: {check.code}")
