"""Answers of the routes that return a file, in the format the caller asks for.

Why one place: a statement or a schedule is drawn only in the format asked for, and each
format goes out with its one media type; the OpenAPI description declares the route's
formats (``file_route``, ``statement_route``, a statement's JSON under its model's name).
The JSON of such an answer is written as text with Spanish letters as they are
(``ensure_ascii=False``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal

from fastapi import Depends, Query
from fastapi.responses import Response
from pydantic import BaseModel

from democratiza.tables.cells import csv_style

MEDIA = {
    "json": "application/json",
    "csv": "text/csv; charset=utf-8",
    "pdf": "application/pdf",
}
# What a statement or a schedule can be asked as.
Statement = Literal["json", "csv", "pdf"]


def file_route(*media: str) -> dict[str, Any]:
    """The options of a route that returns a file in one of these media types (never JSON):
    its 200 answer declares each, and no JSON body it never sends."""
    content = {m: {"schema": {"type": "string"}} for m in media}
    description = "El archivo, en el formato pedido"
    answer = {"description": description, "content": content}
    return {"responses": {200: answer}, "response_class": Response}


def statement_route(json_model: type[BaseModel]) -> dict[str, Any]:
    """The options of a route that draws a statement as JSON (this model), CSV or PDF."""
    # The JSON body is the model's, declared by FastAPI under the model's name.
    content = {m: {"schema": {"type": "string"}} for m in ("text/csv", "application/pdf")}
    description = "El resultado, en el formato pedido"
    answer = {"description": description, "model": json_model, "content": content}
    return {"responses": {200: answer}}


CSV_FILE = file_route("text/csv")

# A CSV to download as ``democratiza … --separador`` writes it: ',' with a dot decimal by
# default, or ';' with a comma decimal for a Colombian Excel (``tables.cells.csv_style``).
CsvSeparator = Literal[",", ";"]
SEPARATOR = Query(
    ",",
    description="',' (punto decimal, por defecto) o ';' (coma decimal, para Excel en español)",
)


def _csv_options(separador: CsvSeparator = SEPARATOR) -> dict[str, Any]:
    return csv_style(separador)


# A route's parameter: the CSV writer's options (the CLI's own) for the ``separador`` asked.
CsvOptions = Annotated[dict[str, Any], Depends(_csv_options)]
REPORT_FILE = file_route("text/html", "application/pdf")


def json_text(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False)


def in_format(formato: str, draw: Mapping[str, Callable[[], str | bytes]]) -> Response:
    """The answer drawn in the format asked for (only that one is drawn)."""
    return Response(draw[formato](), media_type=MEDIA[formato])
