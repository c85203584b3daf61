"""Request bodies read strictly, so that the API accepts only what its description says.

Pydantic's lax mode would take 0 for false, "5" for 5 and a number for a date (as a Unix
timestamp); schemathesis rightly calls that accepting a request the description forbids.
Dates still come as AAAA-MM-DD text, which strict mode alone would refuse.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema


def _text_date(value: object) -> object:
    """A date comes as AAAA-MM-DD text: a number is not read as a Unix timestamp."""
    if isinstance(value, date):
        return value
    if not isinstance(value, str):
        raise ValueError("se espera una fecha AAAA-MM-DD")
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ValueError("se espera una fecha AAAA-MM-DD") from None


class Body(BaseModel):
    """Request bodies are read strictly: 0 is not false, "5" is not 5, 0 is not a date."""

    model_config = ConfigDict(strict=True, extra="forbid")


Day = Annotated[date, BeforeValidator(_text_date)]

# The code of a new offer or stage: it goes into URLs and file names.
NewCode = Annotated[str, Field(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9\-_.]+$")]

# An amount of money in a body: whole centavos, never a float.
Centavos = Annotated[int, Field(ge=1, le=10**15, description="Centavos")]


def described_as(model: type[BaseModel]) -> WithJsonSchema:
    """A field read as a plain object (its handler validates it, with its own Spanish
    error) but described by ``model``'s schema, written out whole: a generated client then
    knows its keys."""
    schema = model.model_json_schema(by_alias=True)
    defs = schema.pop("$defs", {})
    for note in ("title", "description"):  # the code's own words; the field says its own
        schema.pop(note, None)

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return inline(defs[node["$ref"].rsplit("/", 1)[-1]])
            return {k: inline(v) for k, v in node.items()}
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    return WithJsonSchema(inline(schema))
