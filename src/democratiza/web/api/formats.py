"""Answers of the routes that return a file, in the format the caller asks for.

Why one place: a statement or a schedule is drawn only in the format asked for, and each
format goes out with its one media type; the OpenAPI description declares the route's
formats (``file_responses``). The JSON of such an answer is written as text with Spanish
letters as they are (``ensure_ascii=False``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Literal

from fastapi.responses import Response

MEDIA = {
    "json": "application/json",
    "csv": "text/csv; charset=utf-8",
    "pdf": "application/pdf",
}
# What a statement or a schedule can be asked as.
Statement = Literal["json", "csv", "pdf"]


def file_responses(*media: str) -> dict[int | str, dict[str, Any]]:
    """The 200 answer of a route that returns a file, in each of these media types."""

    def schema(m: str) -> dict[str, str]:
        return {"type": "object"} if m == "application/json" else {"type": "string"}

    content = {m: {"schema": schema(m)} for m in media}
    return {200: {"description": "El resultado, en el formato pedido", "content": content}}


STATEMENT_FILES = file_responses("application/json", "text/csv", "application/pdf")
CSV_FILE = file_responses("text/csv")


def json_text(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False)


def in_format(formato: str, draw: Mapping[str, Callable[[], str | bytes]]) -> Response:
    """The answer drawn in the format asked for (only that one is drawn)."""
    return Response(draw[formato](), media_type=MEDIA[formato])
