"""``democratiza calcular``: "¿cuántas acciones puedo comprar?" for one person.

The calculator builds one acceptance and runs the same engine as a batch of one. It assumes
the written undertakings will be signed (it answers what the *limits* permit) and asks for
the largest quantity the program could ever give unless a quantity is given.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from democratiza.cli.common import centavos_option, confirm, fail, share_count
from democratiza.cli.offer_options import offer_from
from democratiza.compliance.instalments import instalment_schedule, schedule_lines
from democratiza.labels import rule_cited
from democratiza.money import AMOUNT_EXAMPLES
from democratiza.programs.parameters import OfferParameterError
from democratiza.programs.schema import unchecked_sections
from democratiza.rules.calculator import Question, ask
from democratiza.vocabulary import CATEGORIES, PAYMENT_METHODS

console = Console()

Money = Annotated[str | None, typer.Option(help=f"Pesos, p. ej. {AMOUNT_EXAMPLES}")]


def _cents(name: str, value: str | None) -> int | None:
    return None if value is None or value == "" else centavos_option(value, f"--{name}")


def _day(value: str | None, name: str) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise typer.BadParameter(
            f"fecha no válida '{value}': se escribe AAAA-MM-DD, p. ej. 2018-01-15", param_hint=name
        ) from None


def _ask(text: str) -> str:
    answer: str = typer.prompt(f"{text} (vacío si no aplica)", default="", show_default=False)
    return answer


def calculator_command(
    programa: Annotated[str, typer.Option("--programa", "-p", help="Id del programa")],
    categoria: Annotated[
        str | None, typer.Option(help="Categoría de destinatario: " + ", ".join(CATEGORIES))
    ] = None,
    cantidad: Annotated[
        int | None,
        typer.Option(
            parser=share_count, help="Acciones que quiere comprar (por defecto: el máximo)"
        ),
    ] = None,
    obligado_declarar: Annotated[
        bool,
        typer.Option(
            "--obligado-declarar/--no-obligado-declarar", help="¿Está obligado a declarar renta?"
        ),
    ] = True,
    extranjero: Annotated[bool, typer.Option(help="Persona natural extranjera")] = False,
    patrimonio_liquido: Money = None,
    ingresos: Money = None,
    ingresos_certificado: Money = None,
    ingresos_usd: Annotated[str | None, typer.Option(help="Ingresos anuales en dólares")] = None,
    directivo: Annotated[bool, typer.Option(help="Ocupa un cargo directivo")] = False,
    fecha_ingreso_directivo: Annotated[str | None, typer.Option(help="AAAA-MM-DD")] = None,
    remuneracion_anual: Money = None,
    salario_mensual: Money = None,
    meses_en_cargo: Annotated[int | None, typer.Option(help="Meses en el cargo directivo")] = None,
    activos: Money = None,
    pasivos: Money = None,
    superavit: Money = None,
    ingresos_estados_financieros: Money = None,
    limite_inversion: Money = None,
    forma_pago: Annotated[
        str, typer.Option(help="Forma de pago: " + ", ".join(PAYMENT_METHODS))
    ] = "contado",
    fecha: Annotated[
        str | None,
        typer.Option(
            "--fecha",
            help="Fecha de radicación AAAA-MM-DD (por defecto hoy; para una oferta ya cerrada, "
            "el día en que habría radicado)",
        ),
    ] = None,
    parametro: Annotated[
        list[str] | None,
        typer.Option("--parametro", help="Parámetro de la oferta NOMBRE=VALOR; repetible"),
    ] = None,
    oferta: Annotated[
        Path | None, typer.Option("--oferta", help="Archivo YAML con los parámetros de la oferta")
    ] = None,
) -> None:
    """¿Cuántas acciones puedo comprar? Muestra cada límite y cuál determina el máximo."""
    offer = offer_from(programa, parametro, oferta)
    if categoria is None:  # interactive: ask the figures that matter most
        categoria = typer.prompt(
            "Categoría (" + ", ".join(c.id for c in offer.program.categories) + ")"
        )
        patrimonio_liquido = _ask("Patrimonio líquido en pesos") or None
        ingresos = _ask("Ingresos anuales de la declaración de renta, en pesos") or None
        if ingresos is None:
            ingresos_certificado = (
                _ask("Ingresos del certificado de ingresos y retenciones") or None
            )
        obligado_declarar = patrimonio_liquido is not None
        directivo = confirm("¿Ocupa un cargo directivo?", default=False)
        if directivo:
            remuneracion_anual = _ask("Remuneración anual certificada, en pesos") or None
    if categoria not in CATEGORIES:
        raise typer.BadParameter(f"categoría desconocida '{categoria}'", param_hint="--categoria")
    if forma_pago not in PAYMENT_METHODS:  # else the engine would take it for cash
        accepted = ", ".join(PAYMENT_METHODS)
        raise typer.BadParameter(
            f"forma de pago desconocida '{forma_pago}'; valores aceptados: {accepted}",
            param_hint="--forma-pago",
        )
    joined = _day(fecha_ingreso_directivo, "--fecha-ingreso-directivo")
    filed_on = _day(fecha, "--fecha")
    question = Question(
        category=categoria,
        quantity=cantidad,
        files_tax_return=obligado_declarar,
        foreigner=extranjero,
        manager=directivo,
        manager_since=joined,
        months_in_post=meses_en_cargo,
        payment=forma_pago,
        filed_on=filed_on,
        amounts={
            "patrimonio_liquido": _cents("patrimonio-liquido", patrimonio_liquido),
            "ingresos_declaracion": _cents("ingresos", ingresos),
            "ingresos_certificado": _cents("ingresos-certificado", ingresos_certificado),
            "ingresos_usd": _cents("ingresos-usd", ingresos_usd),
            "remuneracion_anual": _cents("remuneracion-anual", remuneracion_anual),
            "salario_mensual": _cents("salario-mensual", salario_mensual),
            "activos_totales": _cents("activos", activos),
            "pasivos_totales": _cents("pasivos", pasivos),
            "superavit_valorizacion": _cents("superavit", superavit),
            "ingresos_estados_financieros": _cents(
                "ingresos-estados-financieros", ingresos_estados_financieros
            ),
            "limite_inversion": _cents("limite-inversion", limite_inversion),
        },
    )
    try:
        answer = ask(offer, question)
    except OfferParameterError as exc:
        raise fail(exc.messages, "No se puede calcular con esta oferta:") from None
    explanation = answer.explanation
    console.print(f"[bold]{answer.headline}[/]", highlight=False)
    if cantidad is None and explanation.decision != "rechazada" and answer.binding is not None:
        rule = answer.binding
        shown = rule_cited(offer.program, rule.id)
        console.print(f"Límite que determina el máximo: {shown}", highlight=False)
    for cause in explanation.causes:
        console.print(f"  ✗ {cause}", highlight=False)
    for line in unchecked_sections(offer.program):
        console.print(line, highlight=False, markup=False)
    console.print("Límites aplicables:")
    for line in explanation.limits:
        console.print(f"  • {line}", highlight=False)
    plan = offer.program.instalment_plan
    if forma_pago == "cuotas" and plan is not None and answer.permitted > 0:
        schedule = instalment_schedule(answer.permitted, offer.price_centavos, plan)
        console.print("Pago en cuotas de lo permitido:")
        for line in schedule_lines(offer.program, schedule):
            console.print(f"  • {line}", highlight=False)
