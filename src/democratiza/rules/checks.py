"""Validity checks, built from a program file: each fails a row for one cited reason.

A check never stops at the first failure: every check runs on every row and the engine keeps
all the causes found, as bits of one integer (rendered into Spanish only when shown).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import polars as pl

from democratiza.programs.parameters import Offer
from democratiza.programs.schema import Citation, LimitRule
from democratiza.rules.conditions import condition, flag, is_natural, is_new_manager
from democratiza.vocabulary import DOCUMENT_DATE, DOCUMENT_FIELDS

CheckKind = Literal[
    "categoria",
    "estado_certificado",
    "justa_causa",
    "nacionalidad",
    "documento",
    "vigencia_documento",
    "compromiso",
    "forma_pago",
    "cantidad",
    "cantidad_minima",
    "lote",
    "fuera_de_plazo",
    "directivo_nuevo",
    "falta_valor",
    "permitida_cero",
]


@dataclass(frozen=True)
class Check:
    """One cause of rejection: ``code`` is stable (exports, tests), ``subject`` names what."""

    code: str
    kind: CheckKind
    subject: str
    citation: Citation
    fails: pl.Expr | None  # None for the cause the engine derives after the limits


def presented(document: str) -> pl.Expr:
    return pl.any_horizontal([pl.col(f).is_not_null() for f in DOCUMENT_FIELDS[document]])


def filing_day() -> pl.Expr:
    return pl.col("fecha_radicacion").dt.date()


def _eligibility_checks(offer: Offer) -> list[Check]:
    program = offer.program
    listed = [c.id for c in program.categories]
    checks = [
        Check(
            "categoria_no_habilitada",
            "categoria",
            "",
            program.validity.eligibility,
            ~pl.col("categoria").is_in(listed),
        ),
    ]
    for cat in program.categories:
        is_cat = pl.col("categoria") == cat.id
        if cat.employer_status:
            wrong = pl.col("estado_certificado").is_not_null() & (
                pl.col("estado_certificado") != cat.employer_status
            )
            checks.append(
                Check(
                    f"certificado_no_acredita:{cat.id}",
                    "estado_certificado",
                    cat.employer_status,
                    cat.citation,
                    is_cat & wrong,
                )
            )
        if cat.excludes_just_cause:
            checks.append(
                Check(
                    f"justa_causa:{cat.id}",
                    "justa_causa",
                    cat.id,
                    cat.excludes_just_cause,
                    is_cat & flag("retiro_justa_causa"),
                )
            )
        if cat.nationals_only:
            checks.append(
                Check(
                    f"extranjero:{cat.id}",
                    "nacionalidad",
                    cat.id,
                    cat.nationals_only,
                    is_cat & flag("extranjero"),
                )
            )
    return checks


def _document_checks(offer: Offer) -> list[Check]:
    checks = []
    seen: dict[str, int] = {}
    for index, doc in enumerate(offer.program.documents):
        # One document may be required by two provisions (Central B.1 and B.2): keep codes unique.
        seen[doc.id] = seen.get(doc.id, 0) + 1
        suffix = "" if seen[doc.id] == 1 else f"#{seen[doc.id]}"
        required = condition(doc.required_when, offer)
        filed = pl.any_horizontal([presented(d) for d in (doc.id, *doc.alternatives)])
        checks.append(
            Check(
                f"falta_documento:{doc.id}{suffix}",
                "documento",
                str(index),
                doc.citation,
                required & ~filed,
            )
        )
        if doc.max_age_months:  # the loader refuses it on a document without a date
            dated = pl.col(DOCUMENT_DATE[doc.id])
            earliest = filing_day().dt.offset_by(f"-{doc.max_age_months}mo")
            stale = dated.is_null() | (dated < earliest) | (dated > filing_day())
            checks.append(
                Check(
                    f"documento_vencido:{doc.id}",
                    "vigencia_documento",
                    str(index),
                    doc.citation,
                    required & presented(doc.id) & stale,
                )
            )
    return checks


def _declaration_checks(offer: Offer) -> list[Check]:
    program = offer.program
    rules = [*program.undertakings, *([program.sworn_statement] if program.sworn_statement else [])]
    return [
        Check(
            f"falta_compromiso:{u.id}",
            "compromiso",
            u.id,
            u.citation,
            condition(u.required_when, offer) & ~flag(u.id),
        )
        for u in rules
    ]


def _payment_checks(offer: Offer) -> list[Check]:
    """A method the program does not offer, or one it reserves to one kind of person."""
    methods = offer.program.payment_methods
    offered = pl.col("forma_pago").is_in([m.id for m in methods])
    checks = [Check("forma_pago_no_prevista", "forma_pago", "", methods[0].citation, ~offered)]
    for method in methods:
        if method.only_for is not None:
            natural = is_natural() if method.only_for == "natural" else ~is_natural()
            checks.append(
                Check(
                    f"forma_pago_reservada:{method.id}",
                    "forma_pago",
                    method.only_for,
                    method.citation,
                    (pl.col("forma_pago") == method.id) & ~natural,
                )
            )
    return checks


def _window_checks(offer: Offer) -> list[Check]:
    checks = []
    program = offer.program
    announced, closing = offer.day("fecha_aviso"), offer.day("fecha_cierre")
    if announced is not None and closing is not None:
        opening = program.window.first_day(announced)
        outside = (filing_day() < pl.lit(opening)) | (filing_day() > pl.lit(closing))
        checks.append(
            Check("fuera_de_plazo", "fuera_de_plazo", "", program.window.citation, outside)
        )
    new_managers = program.validity.new_managers
    if new_managers is not None and closing is not None:
        deadline = new_managers.deadline(closing)
        late = is_new_manager(offer) & (pl.col("fecha_ingreso_directivo") > pl.lit(deadline))
        checks.append(
            Check(
                "directivo_nuevo_no_vinculado",
                "directivo_nuevo",
                str(deadline),
                new_managers.citation,
                late,
            )
        )
    return checks


def build_checks(offer: Offer) -> list[Check]:
    """Every check the program implies, in a fixed order (the order of the bits)."""
    program = offer.program
    quantity = Check(
        "cantidad_no_valida",
        "cantidad",
        "",
        program.validity.quantity,
        (pl.col("cantidad") <= 0) | flag("cantidad_fraccionaria"),
    )
    return [
        *_eligibility_checks(offer),
        *_document_checks(offer),
        *_declaration_checks(offer),
        *_payment_checks(offer),
        quantity,
        *_quantity_rules(offer),
        *_window_checks(offer),
    ]


def _quantity_rules(offer: Offer) -> list[Check]:
    """Fewer shares than the minimum per acceptance; a quantity not in whole lots."""
    validity = offer.program.validity
    asked = pl.col("cantidad")
    checks = []
    if validity.minimum is not None:
        low = (asked > 0) & (asked < validity.minimum.value)
        checks.append(
            Check(
                "cantidad_inferior_minima",
                "cantidad_minima",
                str(validity.minimum.value),
                validity.minimum.citation,
                low,
            )
        )
    if validity.lot is not None:
        broken = (asked > 0) & (asked % validity.lot.value != 0)
        checks.append(
            Check(
                "cantidad_no_multiplo_lote",
                "lote",
                str(validity.lot.value),
                validity.lot.citation,
                broken,
            )
        )
    return checks


def missing_value_check(rule: LimitRule) -> Check:
    return Check(f"falta_valor:{rule.id}", "falta_valor", rule.id, rule.citation, None)


def zero_permitted_check(offer: Offer) -> Check:
    return Check(
        "cantidad_permitida_cero", "permitida_cero", "", offer.program.validity.quantity, None
    )
