"""What the pages' forms share.

After a form is posted the page answers with a redirect (303 See Other), so that
reloading the page that follows does not post the form again.
"""

from __future__ import annotations

from fastapi.responses import RedirectResponse


def back(path: str) -> RedirectResponse:
    return RedirectResponse(path, status_code=303)
