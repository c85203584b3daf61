"""A NUL character (U+0000) in any text a request sends is refused before anything reads it.

Why here, for every route: PostgreSQL refuses NUL in text, and a text that reaches it fails
the whole statement it is part of, which for single acceptances filed together (the group
commit) is the statement of other brokers' acceptances too. No field of the decree's or
the office's has a use for it, so it is refused at the door (422, in Spanish, naming the
field): in the path, the query, a JSON body and a form body. A file's own bytes are the
file's (an XLSX is a ZIP, full of zero bytes): the readers judge those; the text fields of
a multipart form are held to it by their own validation (``web.api.uploads.BatchId``).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl

NUL = "\x00"
MESSAGE = "El texto no puede contener el carácter nulo (U+0000)."
JSON_NUL = b"\\u0000"  # how JSON writes it (a raw zero byte is not valid JSON at all)
FORM = b"application/x-www-form-urlencoded"
FORM_NUL = b"%00"  # how a form or a query writes it (a '%' itself is written %25)


def _found_in(value: Any, where: str) -> str | None:
    """The path (``a.b.0``) of the first text in a JSON value holding NUL, if any."""
    if isinstance(value, str):
        return where if NUL in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            at = f"{where}.{key}" if where else str(key)
            if NUL in key:
                return at.replace(NUL, "")
            if (found := _found_in(item, at)) is not None:
                return found
    if isinstance(value, list):
        for n, item in enumerate(value):
            if (found := _found_in(item, f"{where}.{n}" if where else str(n))) is not None:
                return found
    return None


def _in_pairs(encoded: bytes) -> str | None:
    """The first field of a form or query (``a=1&b=2``) whose name or value holds NUL."""
    if FORM_NUL not in encoded.lower() and b"\x00" not in encoded:
        return None
    for key, value in parse_qsl(encoded.decode("latin-1"), keep_blank_values=True):
        if NUL in key or NUL in value:
            return key.replace(NUL, "") or "?"
    return "?"


def in_query(path: str, query: bytes) -> str | None:
    """Where a request's path or query holds NUL (``ruta`` or the parameter's name), if so."""
    if NUL in path:
        return "ruta"
    return _in_pairs(query)


def _kind(content_type: bytes) -> bytes:
    return content_type.split(b";")[0].strip().lower()


def searched(content_type: bytes) -> bool:
    """Whether a body of this type is searched for NUL (JSON and plain forms)."""
    kind = _kind(content_type)
    return kind in (FORM, b"application/json") or kind.endswith(b"+json")


def in_body(content_type: bytes, body: bytes) -> str | None:
    """The field of a JSON or form body that holds NUL, if any.

    Cheap when there is none (one search of the bytes); only a body that writes the escape
    is parsed, so that a text holding the six characters ``\\u0000`` (escaped backslash)
    is not mistaken for one holding NUL.
    """
    if _kind(content_type) == FORM:
        return _in_pairs(body)
    if not searched(content_type) or JSON_NUL not in body:
        return None
    try:
        parsed = json.loads(body)
    except ValueError:
        return None  # not JSON: the route's own reading refuses it
    found = _found_in(parsed, "")
    return None if found is None else found or "cuerpo"


def without_nul(value: str) -> str:
    """A validator for a form's text field, which a multipart body brings past the search."""
    if NUL in value:
        raise ValueError(MESSAGE)
    return value
