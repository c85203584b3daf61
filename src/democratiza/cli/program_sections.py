"""The sections of a program file after the Primera Etapa's rules, as ``democratiza programa
ID`` shows them: credit lines, fines (with default interest and partial payments),
ineffectiveness, later stages and what the file does not model."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from democratiza.labels import first_stage_name
from democratiza.programs.schema import Citation, Program, missing_section
from democratiza.rules.explain import cite
from democratiza.words import word

GRID_COLUMNS = 120  # narrower than this, a section's table is read row by row


class Section(Table):
    """A section of the file as a table on a wide terminal; on a narrow one (80 columns),
    row by row: the row's code on its own line, then each column's name and its text,
    wrapped between words. A grid of four columns in 80 characters cannot hold a note
    without cutting it or breaking its words."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if options.max_width >= GRID_COLUMNS:
            yield from super().__rich_console__(console, options)
            return
        if self.title is not None:
            yield Text(str(self.title), style="bold")
        headers = [str(c.header) for c in self.columns]
        for cells in zip(*(list(c.cells) for c in self.columns), strict=True):
            texts = [str(c) for c in cells]
            yield Padding(Text(f"• {texts[0]}"), (0, 0, 0, 1))
            for header, text in zip(headers[1:], texts[1:], strict=True):
                if text.strip():
                    yield Padding(Text(f"{header}: {text}"), (0, 0, 0, 3))


def table(title: str, *columns: str) -> Table:
    """The first column holds the file's codes: a code is never cut, however narrow the
    terminal (``row`` widens the column to its longest word); every column wraps, breaking
    a word too long for it rather than cutting it off with '…'; narrower than
    ``GRID_COLUMNS``, the section is read row by row (``Section``)."""
    t = Section(title=Text(title))
    for column in columns:
        t.add_column(column, overflow="fold")
    return t


def row(t: Table, *cells: str) -> None:
    """A row as written: the file's text is never read as console markup."""
    first = t.columns[0]
    first.min_width = max(first.min_width or 0, *(len(w) for w in cells[0].split()), 1)
    t.add_row(*(Text(c) for c in cells))


def show_later_sections(console: Console, p: Program) -> None:
    def c(citation: Citation) -> str:
        return cite(p, citation)

    def say(line: str) -> None:
        console.print(Text(line))

    lines = p.credit_lines
    if lines is not None:
        t = table("Líneas de crédito (lineas_credito)", "Condición", "Valor", "Cita")
        row(
            t,
            "Financiación mínima",
            f"{lines.minimum_financing_percent.value} %",
            c(lines.minimum_financing_percent.citation),
        )
        row(
            t,
            "Plazo mínimo",
            f"{lines.minimum_term_months.value} meses",
            c(lines.minimum_term_months.citation),
        )
        row(
            t,
            "Gracia mínima a capital",
            f"{lines.minimum_grace_months.value} meses",
            c(lines.minimum_grace_months.citation),
        )
        row(
            t,
            "Tasa máxima",
            "interés bancario corriente a la fecha del crédito",
            c(lines.maximum_rate),
        )
        row(t, "Garantía", "las acciones, al precio fijo", c(lines.share_collateral))
        console.print(t)
    else:
        say("Líneas de crédito (lineas_credito): el archivo no las define.")
    if p.fines is None:
        say(missing_section(p, "multas", "calcular ni mostrar multas"))
    else:
        _show_fines(console, p)
    if p.ineffectiveness:
        cites = "; ".join(c(x) for x in p.ineffectiveness)
        say(f"Ineficacia de la adquisición contraria al programa (ineficacia): {cites}")
    else:
        say("Ineficacia (ineficacia): el archivo no la cita (no se declara ineficaz).")
    first = p.first_stage
    if first is not None:
        say(f"Primera Etapa (nombre_primera_etapa): {first.value} ({c(first.citation)})")
    else:
        say(
            "Primera Etapa (nombre_primera_etapa): el archivo no le da nombre; se llama "
            f"{first_stage_name(p)}."
        )
    void = p.void_first_stage
    if void is not None:
        say(f"Primera Etapa desierta (primera_etapa_desierta): {void.value} ({c(void.citation)})")
    else:
        say(
            "Primera Etapa desierta (primera_etapa_desierta): el texto disponible del "
            "decreto no trae la regla (no se puede declarar desierta)."
        )
    later = p.later_stages
    if later is not None:
        title = (
            f"Etapas siguientes (etapas_siguientes): {later.name.value} ({c(later.name.citation)})"
        )
        t = table(title, "Regla", "Texto", "Cita")
        for label, text in [
            ("Inversionistas", later.investors),
            ("Precio mínimo", later.minimum_price),
            ("Desierta", later.void),
            *([("Etapas subsecuentes", later.later)] if later.later else []),
        ]:
            row(t, label, text.value, c(text.citation))
        ways = ", ".join(word("forma_pago", m) for m in later.payments.methods)
        row(t, "Formas de pago (formas_de_pago)", ways, c(later.payments.citation))
        cpi = later.cpi_adjustment
        if cpi is not None:
            row(
                t,
                "Ajuste por IPC (ajuste_ipc)",
                f"cada seis meses desde el aviso de la Primera Etapa. {cpi.note or ''}".strip(),
                c(cpi.citation),
            )
        console.print(t)
    else:
        say(
            "Etapas siguientes (etapas_siguientes): el archivo no las define "
            "(no se puede crear una)."
        )
    t = table("Disposiciones no modeladas (no_modelado)", "Disposición", "Sección", "Cita", "Razón")
    for nm in p.not_modelled:
        row(t, nm.provision, nm.section or "", c(nm.citation), nm.reason)
    console.print(t)


def _show_fines(console: Console, p: Program) -> None:
    def c(citation: Citation) -> str:
        return cite(p, citation)

    def say(line: str) -> None:
        console.print(Text(line))

    assert p.fines is not None
    f = p.fines
    t = table(f"Multas: tramos desde {f.counted_from.value} (multas)", "Tramo", "%", "Cita")
    for band in f.bands:
        row(
            t, f"{band.from_months} a {band.to_months} meses", f"{band.percent} %", c(band.citation)
        )
    console.print(t)
    say(f"  Desde (multas.desde): {f.counted_from.value} ({c(f.counted_from.citation)})")
    keys = f.base_keys or ()
    for i, base in enumerate(f.base_values):
        key = f" [{keys[i]}]" if i < len(keys) else ""
        say(f"  Base posible (multas.bases){key}: {base.value} ({c(base.citation)})")
    if f.base_rule is not None:
        say(
            f"  Regla de la base (multas.regla_base): {f.base_rule.value} "
            f"({c(f.base_rule.citation)})"
        )
    say(f"  Ajuste (multas.ajuste): {f.adjustment.value} ({c(f.adjustment.citation)})")
    for label, key, text in (
        ("Intereses de mora", "intereses_mora", f.default_interest),
        ("Pagos parciales", "pagos_parciales", f.partial_payments),
    ):
        shown = f"{text.value} ({c(text.citation)})" if text else "el archivo no los define"
        say(f"  {label} (multas.{key}): {shown}")
    if f.adjustment_method and f.reference_date:
        say(
            "  Cálculo (multas.fecha_referencia, multas.metodo_ajuste): tramos desde la "
            f"{word('fecha_referencia_multa', f.reference_date)}, ajuste "
            f"{word('ajuste_multa', f.adjustment_method)}"
        )
    else:
        say(
            "  Cálculo: el archivo no trae fecha_referencia y metodo_ajuste; la multa se "
            "muestra pero no se calcula."
        )
