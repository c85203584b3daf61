"""The program designer's page, for the program office: ``democratiza simular`` from a form.

The office chooses a population (an offer's own acceptances, one of the shipped population
parameter files, or a file of its own: acceptances in the format of a batch, or a parameter
file) and uploads a designs file as the command takes it
(``docs/simulacion.md``); the page shows the comparison table and its charts and offers the
CSV, HTML and PDF the command writes, from the same functions (``design.simulate``,
``reports.design_comparison``, ``reports.design_report``).

The work is bounded (``designer_input``): at most ``MAX_POPULATION`` acceptants and
``MAX_DESIGNS`` designs, so that a request takes seconds; an uploaded population is as large
as a batch may be, and removed when the request ends, whatever its outcome.

Why files in a temporary folder: the downloads are the files ``write_report`` writes, kept
under an unguessable name for ``KEEP_SECONDS`` in the service's private folder
(``server.scratch.service_folder``), so that any of its processes can serve them.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from fastapi import APIRouter, Request
from fastapi.responses import Response
from markupsafe import Markup, escape
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from democratiza.design.designs import Design, DesignError, parse_designs
from democratiza.design.simulate import simulate
from democratiza.design.sources import example_populations, spec_size
from democratiza.money import group
from democratiza.reports.design_comparison import (
    CHANGES_ROW,
    NO_CHANGES,
    DesignFigures,
    change_words,
    comparison_rows,
    design_figures,
)
from democratiza.reports.design_report import Charts, chart_svgs, write_report
from democratiza.tables.errors import InputRejected
from democratiza.web.api import catalog
from democratiza.web.errors import ErrorItem, NotFound, rejected_file
from democratiza.web.pages.designer_input import (
    FILE,
    MAX_DESIGNS,
    MAX_DESIGNS_FILE,
    MAX_POPULATION,
    Refused,
    Uploaded,
    designs_text,
    population,
    population_upload,
)
from democratiza.web.pages.forms import FieldErrors
from democratiza.web.pages.templating import program_name, render
from democratiza.web.security.access import route
from democratiza.web.server.scratch import remove_older, service_folder

router = APIRouter(include_in_schema=False)
KEEP_SECONDS = 3600
RUN = re.compile(r"[0-9a-f]{32}")
FIGURE = re.compile(r"[\d.,% —-]+")  # a row of figures is right-aligned; a row of words is not
FILES = {
    "csv": ("comparacion-disenos.csv", "text/csv; charset=utf-8"),
    "html": ("comparacion-disenos.html", "text/html; charset=utf-8"),
    "pdf": ("comparacion-disenos.pdf", "application/pdf"),
}


def _page(
    request: Request,
    form: dict[str, str],
    errors: FieldErrors,
    result: Mapping[str, object] | None = None,
    status: int = 200,
    rows: tuple[list[ErrorItem], int] = ([], 0),
) -> Response:
    with request.app.state.engine.connect() as conn:
        offers = [
            (o.codigo, f"{o.codigo} ({program_name(o.programa)})") for o in catalog.offers(conn)
        ]
    examples = [
        (name, f"{name}: {group(spec_size(path))} aceptantes")
        for name, path in example_populations().items()
    ]
    context = {
        "datos": form,
        "ofertas": offers,
        "ejemplos": examples,
        "maximo": group(MAX_POPULATION),
        "maximo_disenos": MAX_DESIGNS,
        "maximo_archivo": f"{request.app.state.max_upload // (1024 * 1024)} MiB",
        "errores_archivo": rows[0],  # a population file's errors, row by row
        "total_errores": rows[1],
        "resultado": result,
        **errors.context(),
    }
    return render(request, "disenador.html", context, status)


@route(router, "GET", "/oficina/disenador", "pag.disenador")
def designer(request: Request) -> Response:
    source = "ejemplo" if example_populations() else "oferta"
    return _page(request, {"fuente": source}, FieldErrors())


@route(router, "POST", "/oficina/disenador", "pag.disenador.simular")
async def run(request: Request) -> Response:
    posted = await request.form()
    form = {k: v for k, v in posted.items() if isinstance(v, str)}
    upload = posted.get("disenos")
    text, name = "", "disenos.yaml"
    people = posted.get(FILE)
    uploaded = None
    try:
        if isinstance(upload, UploadFile) and upload.filename:
            name = Path(upload.filename).name
            text = designs_text(await upload.read(MAX_DESIGNS_FILE + 1))
        if form.get("fuente") == "archivo" and isinstance(people, UploadFile) and people.filename:
            limit = request.app.state.max_upload
            uploaded = await run_in_threadpool(population_upload, people, limit)
    except Refused as exc:
        refused = FieldErrors({exc.field: [exc.message]})
        return await run_in_threadpool(_page, request, form, refused, None, exc.status)
    try:
        return await run_in_threadpool(_run, request, form, text, name, uploaded)
    finally:
        if uploaded is not None:
            uploaded.remove()


def _run(
    request: Request, form: dict[str, str], text: str, name: str, uploaded: Uploaded | None
) -> Response:
    errors = FieldErrors()
    if not text.strip():
        errors.by_field["disenos"] = ["falta el archivo de diseños (o está vacío)"]
    source = form.get("fuente")
    if source not in ("oferta", "ejemplo", "archivo"):
        errors.by_field["fuente"] = ["elija de dónde sale la población"]
    elif source == "archivo" and uploaded is None:
        errors.by_field[FILE] = ["falta el archivo de la población"]
    if errors:
        return _page(request, form, errors, status=422)
    try:
        designs = parse_designs(text, name, None, MAX_DESIGNS)
    except DesignError as exc:
        return _page(request, form, FieldErrors({"disenos": [str(exc)]}), status=422)
    try:
        people = population(request.app.state.engine, form, designs[0], uploaded)
        results = [design_figures(outcome) for outcome in simulate(people, designs)]
    except Refused as exc:
        return _page(request, form, FieldErrors({exc.field: [exc.message]}), status=exc.status)
    except InputRejected as exc:  # the batch checks' refusal, under the office's file name
        assert uploaded is not None and uploaded.path is not None
        hidden = str(uploaded.path.parent)
        found = rejected_file(exc, uploaded.name, hidden, "El archivo de aceptaciones")
        refused = FieldErrors({FILE: [found.message]})
        return _page(request, form, refused, None, 422, (found.items, found.total))
    except ValueError as exc:  # a design the adjudication cannot run (its own words)
        return _page(request, form, FieldErrors({"disenos": [str(exc)]}), status=422)
    program = designs[0].offer.program.name
    charts = chart_svgs(results)  # drawn once: for this page and the report to download
    run_id = _keep(results, program, charts)
    rows = comparison_rows(results)
    result = {
        "titulo": f"{len(results)} diseños de {program} sobre {group(people.height)} aceptantes",
        "nombres": [r.name for r in results],
        # The changes row with its key paths as code; the others as the table writes them.
        "fila_cambios": CHANGES_ROW,
        "cambios": [_changes(d) for d in designs],
        "filas": [
            (what, values, all(map(FIGURE.fullmatch, values)))
            for what, values in rows
            if what != CHANGES_ROW
        ],
        "graficas": [(title, Markup(svg)) for title, svg in charts],  # our SVG
        "simulacion": run_id,
    }
    return _page(request, form, FieldErrors(), result)


def _changes(design: Design) -> Markup:
    """A design's changes in words, each with the key path the designs file wrote as its
    hint (so the office finds the line it wrote); the table's own text otherwise."""
    if not design.changes:
        return Markup(escape(NO_CHANGES))
    program = design.offer.program
    return Markup("; ").join(
        Markup('<span title="{}">{}</span>').format(key, change_words(program, key, value))
        for key, value in design.changes.items()
    )


def _folder() -> Path:
    folder = service_folder() / "disenador"
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def _keep(results: list[DesignFigures], program: str, charts: Charts) -> str:
    """Write the files to download under a new name; forget those older than an hour."""
    folder = _folder()
    remove_older(folder, KEEP_SECONDS, time.time())
    run_id = secrets.token_hex(16)
    write_report(results, program, folder / run_id, charts)
    return run_id


@route(router, "GET", "/oficina/disenador/{simulacion}.{formato}", "pag.disenador.descarga")
def download(simulacion: str, formato: Literal["csv", "html", "pdf"], request: Request) -> Response:
    name, media = FILES[formato]
    path = _folder() / simulacion / name
    if not RUN.fullmatch(simulacion) or not path.is_file():
        raise NotFound("Esa simulación ya no está guardada (se guardan una hora): simule otra vez.")
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    return Response(path.read_bytes(), media_type=media, headers=headers)
