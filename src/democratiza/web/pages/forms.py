"""What the pages' forms share: the posted fields, their errors, and the redirect after a post.

The fields are read as text (a file field is not text, and the pages that take files
declare them). A form that is refused is shown again with what was typed and every error
under its own field (``FieldErrors``), all at once. After a form is accepted the page
answers with a redirect (303 See Other), so that reloading the page that follows does not
post the form again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Form, Request
from fastapi.responses import RedirectResponse
from pydantic import AfterValidator

from democratiza.web.errors import ErrorItem, Unprocessable
from democratiza.web.server.text_guard import MESSAGE, NUL, without_nul

# Fields several pages' forms have; like every text a form stores, without NUL (a multipart
# form's fields are not searched at the door: ``web.server.text_guard``).
Action = Annotated[str, Form(max_length=20), AfterValidator(without_nul)]
Reason = Annotated[str, Form(min_length=1, max_length=500), AfterValidator(without_nul)]
Text = Annotated[str, AfterValidator(without_nul)]


async def form_fields(request: Request) -> dict[str, str]:
    """The posted form's text fields; one holding NUL is refused (422) before any is used."""
    form = await request.form()
    fields = {k: v for k, v in form.items() if isinstance(v, str)}
    for name, value in fields.items():
        if NUL in value or NUL in name:
            raise Unprocessable(
                "La solicitud no es válida.",
                [ErrorItem(columna=name.replace(NUL, ""), mensaje=MESSAGE)],
            )
    return fields


def back(path: str) -> RedirectResponse:
    return RedirectResponse(path, status_code=303)


@dataclass(frozen=True)
class FieldErrors:
    """A refused form's errors: each field's under it, the rest above the form."""

    by_field: dict[str, list[str]] = field(default_factory=dict)
    general: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.by_field or self.general)

    def context(self) -> dict[str, object]:
        return {"errores": self.by_field, "errores_generales": self.general}


def field_errors(items: Sequence[ErrorItem], fields: Iterable[str]) -> FieldErrors:
    """Errors (the API's rows) placed under the form's fields; a field's first segment names
    it ('cantidad', not 'body.cantidad'); one a form has no field for goes above it."""
    known = set(fields)
    found = FieldErrors()
    for item in items:
        name = (item.columna or "").split(".")[0]
        if name in known:
            found.by_field.setdefault(name, []).append(item.mensaje)
        else:
            found.general.append(item.mensaje)
    return found


@dataclass(frozen=True)
class FormState:
    """One form of a page that has several: what was typed in it and its errors."""

    typed: dict[str, str] = field(default_factory=dict)
    errors: FieldErrors = field(default_factory=FieldErrors)

    def context(self) -> dict[str, object]:
        return {"datos": self.typed, **self.errors.context()}
