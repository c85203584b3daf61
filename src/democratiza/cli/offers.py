"""``democratiza oferta …``, ``democratiza lote …``: the Primera Etapa from the command line."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text
from sqlalchemy import Engine

from democratiza.adjudication.figures import (
    TITLES,
    awarded_in_database,
    filing_figures,
    withdrawn,
)
from democratiza.adjudication.record import (
    acceptance_prices,
    adjudicate,
    publish,
    stored_adjudication,
)
from democratiza.cli.batch_files import write_batch_files
from democratiza.cli.common import (
    IbcFile,
    Separator,
    csv_separator,
    ibc_series,
    optional_day,
    refuse,
    refuse_file,
    table,
)
from democratiza.cli.offer_options import offer_file_values
from democratiza.cli.progress import rows, steps
from democratiza.compliance.credit.gate import open_offer
from democratiza.compliance.holdings import paid_shares
from democratiza.compliance.instalments import instalment_payers
from democratiza.compliance.ledger import acceptance_terms, ledger_of
from democratiza.compliance.settlement_figures import settlement_figures
from democratiza.compliance.settlement_figures import shown_figures as settlement_shown
from democratiza.filing.batches import import_batch, withdraw
from democratiza.filing.resend import evaluated_again
from democratiza.labels import label, rule_cited
from democratiza.money import group, pesos
from democratiza.offers.dates import business_dates
from democratiza.offers.lifecycle import (
    OfferError,
    OfferState,
    advance,
    create_offer,
    events,
    load_offer,
)
from democratiza.reports.exports import broker_files, registry_file
from democratiza.reports.instalment_plans import instalment_file
from democratiza.storage.database import (
    damage,
    database_url,
    make_engine,
    migrate,
    read_only,
    sqlite_file,
)
from democratiza.storage.receipts import StorageError
from democratiza.tables.errors import InputRejected
from democratiza.words import count

offer_app = typer.Typer(
    help="Ofertas: crear, abrir, cerrar, interrumpir, declarar desierta, adjudicar, publicar, "
    "exportar.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
batch_app = typer.Typer(
    help="Lotes de aceptaciones de los comisionistas.", no_args_is_help=True, rich_markup_mode=None
)
console = Console()

Db = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="URL de la base de datos (por defecto DEMOCRATIZA_DB o sqlite:///democratiza.db)",
    ),
]
Who = Annotated[str, typer.Option("--quien", help="Quién hace el cambio")]
Why = Annotated[str, typer.Option("--motivo", help="Por qué (queda en el registro)")]
Code = Annotated[str, typer.Argument(help="Código de la oferta")]


def engine_for(db: str | None, reading: bool = False) -> Engine:
    """The database of a command, migrated. A command that writes (``reading`` false) first
    has SQLite check the file (``quick_check``) and refuses a damaged one, and refuses an
    archived (read-only) file; a command that only reads opens an archived file as it is."""
    url = database_url(db)
    engine = make_engine(url)
    if read_only(engine):
        if not reading:
            raise refuse(
                f"La base de datos {sqlite_file(url)} es de solo lectura (el archivo o su "
                "carpeta no admiten escritura, como una copia archivada): esta orden escribe y "
                "no se hizo nada. Use una copia en una carpeta con permiso de escritura."
            )
        return engine
    if not reading:
        refuse_damaged(engine, full=False)
    migrate(engine)
    return engine


def refuse_damaged(engine: Engine, full: bool) -> None:
    """Refuse, in Spanish, a SQLite file that SQLite's own check finds damaged."""
    found = damage(engine, full)
    if found is not None:
        pragma = "integrity_check" if full else "quick_check"
        raise refuse(
            f"La base de datos {engine.url.database} está dañada: la revisión de SQLite "
            f"(PRAGMA {pragma}) encontró «{found}». No se hizo nada; restáurela desde un "
            "respaldo antes de seguir."
        )


@offer_app.command("crear")
def create_command(
    codigo: Code,
    programa: Annotated[
        str,
        typer.Option("--programa", "-p", help="Id del programa o ruta a un archivo .yaml"),
    ],
    oferta: Annotated[Path, typer.Option("--oferta", help="YAML con los parámetros")],
    quien: Who = "oficina del programa",
    motivo: Why = "publicación del aviso de oferta",
    db: Db = None,
) -> None:
    """Crea una oferta de la Primera Etapa (en borrador) con sus parámetros."""
    params = offer_file_values(oferta)
    try:
        with engine_for(db).begin() as conn:
            stored = create_offer(conn, codigo, programa, params, quien, motivo)
    except OfferError as exc:
        raise refuse(str(exc)) from None
    console.print(f"Oferta '{stored.code}' creada en borrador ({stored.program.name}).")


def _advance(codigo: str, target: OfferState, quien: str, motivo: str, db: str | None) -> None:
    try:
        with engine_for(db).begin() as conn:
            advance(conn, load_offer(conn, codigo), target, quien, motivo)
    except OfferError as exc:
        raise refuse(str(exc)) from None
    console.print(f"Oferta '{codigo}': {target}.")


@offer_app.command("abrir")
def open_command(
    codigo: Code,
    quien: Who = "oficina del programa",
    motivo: Why = "inicio del plazo de la oferta",
    serie_ibc: IbcFile = None,
    db: Db = None,
) -> None:
    """Abre el plazo si las líneas de crédito registradas lo permiten (Ley 226 art. 11 num. 3)."""
    ibc = ibc_series(serie_ibc)
    try:
        with engine_for(db).begin() as conn:
            open_offer(conn, load_offer(conn, codigo), quien, motivo, ibc)
    except OfferError as exc:
        raise refuse(str(exc)) from None
    console.print(f"Oferta '{codigo}': abierta.")


@offer_app.command("cerrar")
def close_command(
    codigo: Code,
    quien: Who = "oficina del programa",
    motivo: Why = "vencimiento del plazo de la oferta",
    db: Db = None,
) -> None:
    """Cierra el plazo: no se reciben, corrigen ni retiran más aceptaciones."""
    _advance(codigo, "cerrada", quien, motivo, db)


Day = Annotated[
    str | None,
    typer.Option("--fecha", help="Fecha de negocio, AAAA-MM-DD (hoy si no se da)"),
]


@offer_app.command("adjudicar")
def adjudicate_command(
    codigo: Code,
    quien: Who = "Bolsa de Valores de Colombia",
    motivo: Why = "adjudicación al vencimiento del plazo",
    fecha: Day = None,
    db: Db = None,
) -> None:
    """Adjudica una oferta cerrada y guarda el registro reproducible."""
    try:
        done = adjudicate(engine_for(db), codigo, quien, motivo, optional_day(fecha, "--fecha"))
    except OfferError as exc:
        raise refuse(str(exc)) from None
    h = done.header
    console.print(
        f"Oferta '{codigo}' adjudicada: {label('metodo', h['metodo'])}; remanente: "
        f"{label('residuo', h['residuo']).lower()}."
    )
    console.print(
        f"  Acciones ofrecidas: {group(int(str(h['acciones_ofrecidas'])))}; demanda "
        f"válida: {group(int(str(h['demanda_valida'])))}; adjudicadas: "
        f"{group(int(str(h['adjudicadas'])))}.",
        highlight=False,
    )
    caps = h.get("topes_conjuntos", [])
    for cap in caps if isinstance(caps, list) else []:  # what each joint cap did
        for note in cap["notas"]:
            console.print(Text(f"  {note}"))
    console.print(f"  Huella del programa:    {h['huella_programa']}", highlight=False)
    console.print(f"  Huella de las entradas: {h['huella_entradas']}", highlight=False)
    console.print(f"  Huella del resultado:   {h['huella_resultado']}", highlight=False)


@offer_app.command("publicar")
def publish_command(
    codigo: Code,
    quien: Who = "oficina del programa",
    motivo: Why = "publicación de resultados",
    fecha: Day = None,
    plazo_pago: Annotated[
        str | None, typer.Option(help="Último día para pagar que fija el aviso, AAAA-MM-DD")
    ] = None,
    db: Db = None,
) -> None:
    """Publica los resultados de una oferta adjudicada."""
    day, deadline = optional_day(fecha, "--fecha"), optional_day(plazo_pago, "--plazo-pago")
    try:
        publish(engine_for(db), codigo, quien, motivo, day, deadline)
    except OfferError as exc:
        raise refuse(str(exc)) from None
    console.print(f"Oferta '{codigo}': publicada.")


@offer_app.command("exportar")
def export_command(
    codigo: Code,
    salida: Annotated[Path, typer.Option("--salida", "-o", help="Carpeta")] = Path("salidas"),
    separador: Separator = ",",
    db: Db = None,
) -> None:
    """Archivos por comisionista, registro para el depósito e informe HTML y PDF."""
    style = csv_separator(separador)
    # Matplotlib is imported only by the command that draws.
    from democratiza.reports.adjudication_figures import build_figures, report_input
    from democratiza.reports.adjudication_report import render_html, render_pdf

    engine = engine_for(db)
    try:
        done = stored_adjudication(engine, codigo)
        with engine.connect() as conn:
            stored = load_offer(conn, codigo)
    except OfferError as exc:
        raise refuse(str(exc)) from None
    out = salida / codigo
    with steps(5) as step:
        step("Archivos por comisionista")
        with engine.connect() as conn:  # each acceptance's referencia and price, for its broker
            terms = acceptance_terms(conn, stored)
            gone = withdrawn(conn, stored)  # read as withdrawn, not as rejected
        paths = broker_files(
            done, out / "comisionistas", terms, style, stored.program, gone["radicado"].to_list()
        )
        step("Registro para el depósito")
        with engine.connect() as conn:
            paid = paid_shares(conn, stored)
            prices = acceptance_prices(conn, stored)  # each its own, after an adjusted price
        paths.append(registry_file(done, out, paid, style))
        if stored.program.instalment_plan is not None:
            with engine.connect() as conn:
                payers = instalment_payers(conn, stored)
            plans = instalment_file(done, stored.offer, payers, out, prices)
            paths += [plans] if plans is not None else []
        step("Gráficas del informe")
        report = report_input(stored, done, prices, gone)
        figures = build_figures(report)
        step("Informe HTML")
        html = out / "informe-adjudicacion.html"
        html.write_text(render_html(report, figures), encoding="utf-8")
        step("Informe PDF")
        pdf = out / "informe-adjudicacion.pdf"
        render_pdf(report, figures, pdf)
    paths += [html, pdf]
    for path in paths:
        console.print(f"Escrito: {path}", highlight=False)


@offer_app.command("ver")
def show_command(codigo: Code, db: Db = None) -> None:
    """Estado, aceptaciones recibidas y el registro de cambios de una oferta."""
    engine = engine_for(db, reading=True)
    try:
        with engine.connect() as conn:
            stored = load_offer(conn, codigo)
            filed = filing_figures(conn, stored)
            awarded = awarded_in_database(conn, stored)
            settled = settlement_figures(conn, ledger_of(stored))
            log = events(conn, stored)
            dates = business_dates(conn, stored.id, stored.offer.day("fecha_cierre"))
    except OfferError as exc:
        raise refuse(str(exc)) from None
    state = label("estado_oferta", stored.state)
    console.print(f"Oferta '{codigo}': {state}", highlight=False)
    console.print(
        f"  Programa: {stored.program.name}, versión {stored.program.version}, huella "
        f"{stored.program_sha256}",
        highlight=False,
    )
    shown = {
        "aviso": stored.offer.day("fecha_aviso"),
        "cierre": dates.closing,
        "adjudicación": dates.adjudication,
        "publicación": dates.publication,
        "plazo de pago": dates.payment_deadline,
    }
    console.print(
        "  Fechas: " + "; ".join(f"{k} {v:%Y-%m-%d}" for k, v in shown.items() if v),
        highlight=False,
    )
    if stored.adjustments:
        last = stored.adjustments[-1]
        console.print(
            f"  Precio: {pesos(last.price)} desde el {last.effective:%Y-%m-%d} (inicial "
            f"{pesos(stored.offer.price_centavos)})",
            highlight=False,
        )
    shown_figures = [
        ("recibidas", filed.recibidas),
        *(
            [("retiradas", filed.retiradas), ("vigentes", filed.vigentes)]
            if filed.retiradas
            else []
        ),
        ("personas", filed.personas),
        ("solicitadas", filed.solicitadas),
        ("admisibles", filed.admisibles),
        ("aceptadas_al_radicar", filed.aceptadas),
        ("reducidas_al_radicar", filed.reducidas),
        ("rechazadas_al_radicar", filed.rechazadas),
    ]
    if awarded is not None:
        shown_figures += [("adjudicadas", awarded[0]), ("adjudicatarios", awarded[1])]
    for key, n in shown_figures:
        console.print(f"  {TITLES[key][:1].upper()}{TITLES[key][1:]}: {group(n)}", highlight=False)
    for value, title in settlement_shown(settled) if settled else []:
        console.print(f"  {title[:1].upper()}{title[1:]}: {value}", highlight=False)
    if filed.limites:
        console.print(f"  {TITLES['limites_al_radicar']}:", highlight=False)
        for rule, n in filed.limites:
            console.print(f"    {rule_cited(stored.program, rule)}: {group(n)}", highlight=False)
    rows = [
        [
            f"{e['cuando']:%Y-%m-%d %H:%M:%S}",
            e["quien"],
            f"{label('evento', e['tipo'])}: {e['de_estado'] or '—'} → {e['a_estado'] or '—'}",
            e["por_que"],
        ]
        for e in log
    ]
    headers = ("Cuándo", "Quién", "Cambio", "Por qué")
    console.print(table("Registro de cambios", headers, rows, keys=()))


@batch_app.command("importar")
def import_command(
    codigo: Code,
    archivo: Annotated[Path, typer.Argument(help="Lote en CSV, XLSX o JSON")],
    comisionista: Annotated[str, typer.Option(help="Sociedad comisionista que envía")],
    lote: Annotated[str, typer.Option(help="Identificador del lote en el comisionista")],
    quien: Who = "comisionista",
    salida: Annotated[
        Path, typer.Option("--salida", "-o", help="Carpeta del informe del lote")
    ] = Path("salidas"),
    db: Db = None,
) -> None:
    """Recibe un lote: todo o nada, una sola vez, evaluado al recibirlo.

    Escribe el resultado fila por fila (aceptada, reducida o rechazada y por qué) y los
    radicados asignados, para que el comisionista lo sepa de inmediato.
    """
    engine = engine_for(db)
    try:
        with rows() as tell:
            # Its files are written from its own evaluation: a resend's reasons go unread.
            result = import_batch(
                engine, codigo, archivo, comisionista, lote, quien, progress=tell, explain=False
            )
    except InputRejected as exc:
        raise refuse_file(exc) from None
    except (OfferError, StorageError) as exc:
        raise refuse(str(exc)) from None
    console.print(result.message)
    evaluated = result.evaluated
    if evaluated is None:  # sent again: its files are written again (lost to a full disk?)
        try:
            evaluated = evaluated_again(engine, codigo, archivo, comisionista, result)
        except InputRejected as exc:
            raise refuse_file(exc) from None
        except OfferError as exc:
            raise refuse(str(exc)) from None
    # Sent again, it is told what its first answer told: its decisions, and its files.
    counts = result.decisions.group_by("decision").len().sort("decision")
    for decision, n in counts.iter_rows():  # '681 aceptadas', '1 rechazada'
        console.print(f"  {count(n, decision, decision + 's')}", highlight=False)
    folder = salida / codigo / "lotes"
    for path in write_batch_files(result, evaluated, folder, comisionista, lote):
        console.print(f"Escrito: {path}", highlight=False)


@batch_app.command("retirar")
def withdraw_command(
    codigo: Code,
    radicado: Annotated[str, typer.Argument(help="Radicado de la aceptación")],
    motivo: Why,
    quien: Who = "comisionista",
    db: Db = None,
) -> None:
    """Retira una aceptación mientras la oferta está abierta (queda el historial)."""
    try:
        withdraw(engine_for(db), codigo, radicado, quien, motivo)
    except OfferError as exc:
        raise refuse(str(exc)) from None
    console.print(f"Aceptación {radicado} retirada.")
