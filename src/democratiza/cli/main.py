"""The ``democratiza`` command: programs, batch evaluation and the calculator, in Spanish."""

from __future__ import annotations

import typer
from rich.console import Console

from democratiza.cli.after_sale import holding_app, payment_app
from democratiza.cli.backup import backup_app
from democratiza.cli.calculator import calculator_command
from democratiza.cli.common import SpanishFaults
from democratiza.cli.credit import credit_app
from democratiza.cli.design import simulate_command
from democratiza.cli.evaluate import evaluate_command
from democratiza.cli.fines import fines_app
from democratiza.cli.offer_steps import interrupt_command, void_command
from democratiza.cli.offers import batch_app, offer_app
from democratiza.cli.program_view import show_programs
from democratiza.cli.programs import program_app
from democratiza.cli.spanish import speak_spanish
from democratiza.cli.stage_payments import stage_payment_app
from democratiza.cli.stages import stage_app
from democratiza.cli.verify import package_app, verify_command
from democratiza.cli.web import audit_app, serve_command, token_app, user_app
from democratiza.tables.acceptances import format_markdown

speak_spanish()  # typer's own help frame and usage errors, in Spanish
app = typer.Typer(
    cls=SpanishFaults,
    help="Programas de democratización accionaria (Ley 226 de 1995).",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
console = Console()


@app.command("programas")
def programs_command() -> None:
    """Lista los programas disponibles."""
    show_programs(console)


@app.command("formato")
def format_command() -> None:
    """Imprime la especificación del archivo de aceptaciones (Markdown)."""
    typer.echo(format_markdown())


app.command("evaluar")(evaluate_command)
app.command("calcular")(calculator_command)
app.command("simular")(simulate_command)
app.command("verificar")(verify_command)
app.add_typer(package_app, name="paquete")
app.add_typer(program_app, name="programa")
# The offer's legal steps beyond the plain transitions, in their own module.
offer_app.command("interrumpir")(interrupt_command)
offer_app.command("desierta")(void_command)
app.add_typer(offer_app, name="oferta")
app.add_typer(batch_app, name="lote")
app.add_typer(fines_app, name="multa")
app.add_typer(credit_app, name="credito")
app.add_typer(payment_app, name="pago")
app.add_typer(holding_app, name="tenencia")
app.command("servir")(serve_command)
app.add_typer(user_app, name="usuario")
app.add_typer(token_app, name="token")
app.add_typer(audit_app, name="auditoria")
app.add_typer(backup_app, name="respaldo")
stage_app.add_typer(stage_payment_app, name="pago")
app.add_typer(stage_app, name="etapa")


def main() -> None:
    app()
