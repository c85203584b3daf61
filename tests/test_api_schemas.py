"""The API's description names every schema once and types every body, as generators need.

A client generator (``openapi-python-client``, for one) makes one class per schema, named
by its title: two schemas with one title make it drop every route that uses either (five
stage routes were lost so), and an object without properties becomes a bag of untyped
keys. So: every schema's title is its own, no name is a module path FastAPI made up to
tell two apart, and every request and answer of every /api route, down to its innermost
field, says what it holds.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from democratiza.storage.database import make_engine
from democratiza.web.app import create_app

SPEC: dict[str, Any] = create_app(make_engine("sqlite://")).openapi()
SCHEMAS: dict[str, dict[str, Any]] = SPEC["components"]["schemas"]
# Words that describe a schema without saying what it holds.
NOTES = {"title", "description", "default", "examples", "example"}


def operations() -> Iterator[tuple[str, dict[str, Any]]]:
    for path, methods in SPEC["paths"].items():
        if path.startswith("/api/"):
            for method, operation in methods.items():
                yield f"{method.upper()} {path}", operation


def bodies(operation: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each JSON or form body of an operation: its request's and each answer's."""
    for media, content in operation.get("requestBody", {}).get("content", {}).items():
        yield f"petición {media}", content["schema"]
    for status, answer in operation["responses"].items():
        for media, content in answer.get("content", {}).items():
            yield f"respuesta {status} {media}", content.get("schema", {})


def untyped(schema: dict[str, Any], where: str, seen: frozenset[str] = frozenset()) -> list[str]:
    """Where, inside ``schema``, a value is not described: an empty schema, or an object with
    no properties whose values may be anything."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return [] if name in seen else untyped(SCHEMAS[name], name, seen | {name})
    if not set(schema) - NOTES:
        return [where]
    found: list[str] = []
    for key in ("anyOf", "oneOf", "allOf"):
        for i, option in enumerate(schema.get(key, [])):
            found += untyped(option, f"{where}|{i}", seen)
    for name, field in schema.get("properties", {}).items():
        found += untyped(field, f"{where}.{name}", seen)
    if "items" in schema:
        found += untyped(schema["items"], f"{where}[]", seen)
    if schema.get("type") == "object":
        extra = schema.get("additionalProperties", not schema.get("properties"))
        if extra is True:
            found.append(f"{where}{{}}")
        elif isinstance(extra, dict):
            found += untyped(extra, f"{where}{{}}", seen)
    return found


def test_every_schema_has_a_title_of_its_own() -> None:
    titles = Counter(schema.get("title", name) for name, schema in SCHEMAS.items())
    assert [t for t, n in titles.items() if n > 1] == []
    # The names FastAPI makes up to tell two apart: democratiza__web__api__stages__Reason.
    assert [name for name in SCHEMAS if re.search(r"__[A-Z]", name)] == []
    assert {name: s.get("title") for name, s in SCHEMAS.items() if s.get("title") != name} == {}


@pytest.mark.parametrize("operation", [name for name, _ in operations()])
def test_every_body_says_what_it_holds(operation: str) -> None:
    found = dict(operations())[operation]
    assert [place for what, schema in bodies(found) for place in untyped(schema, what)] == []


def test_a_dict_of_anything_is_caught() -> None:
    """The check itself: a free object, an empty schema and a list of either are found."""
    assert untyped({"type": "object", "additionalProperties": True}, "x") == ["x{}"]
    assert untyped({"type": "object"}, "x") == ["x{}"]
    assert untyped({"type": "array", "items": {}}, "x") == ["x[]"]
    assert untyped({"type": "object", "additionalProperties": {"type": "integer"}}, "x") == []
