"""What the pages' forms share: the posted fields, and the redirect after a post.

The fields are read as text (a file field is not text, and the pages that take files
declare them). After a form is posted the page answers with a redirect (303 See Other),
so that reloading the page that follows does not post the form again.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Form, Request
from fastapi.responses import RedirectResponse

# Fields several pages' forms have.
Action = Annotated[str, Form(max_length=20)]
Reason = Annotated[str, Form(min_length=1, max_length=500)]


async def form_fields(request: Request) -> dict[str, str]:
    """The posted form's text fields."""
    form = await request.form()
    return {k: v for k, v in form.items() if isinstance(v, str)}


def back(path: str) -> RedirectResponse:
    return RedirectResponse(path, status_code=303)
