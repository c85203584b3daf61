"""Errors as data, in Spanish, in one shape for the whole API; as a page for people.

Why one shape: a broker's system reads ``{"detalle": ..., "errores": [{archivo, fila,
columna, mensaje}]}`` whatever went wrong (a bad batch, a bad request, a refused
transition), the same fields as ``tables.errors.InputError``; the OpenAPI description
declares it, so schemathesis can hold the API to it.
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from pydantic import BaseModel
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException

from democratiza.filing.reasons import EXPLAINED_ROWS
from democratiza.storage.faults import database_fault
from democratiza.tables.errors import InputError, InputRejected
from democratiza.validation_messages import validation_message
from democratiza.words import count

# The title of a 422 whose rows say, field by field, what is wrong with the request.
INVALID_REQUEST = "La solicitud no es válida."


class ErrorItem(BaseModel):
    archivo: str | None = None
    fila: int | None = None
    columna: str | None = None
    mensaje: str


class ApiError(BaseModel):
    detalle: str
    errores: list[ErrorItem] = []
    total_errores: int = 0


class WebError(Exception):
    """A refused request: its HTTP status and the Spanish reason."""

    status = 400

    def __init_subclass__(cls, status: int | None = None, **options: Any) -> None:
        super().__init_subclass__(**options)
        if status is not None:
            cls.status = status

    def __init__(self, message: str, items: Sequence[ErrorItem] = (), total: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.items = list(items)
        self.total = total or len(self.items)

    def __reduce__(self) -> tuple[Any, ...]:
        # A batch filed in the bulk lane's process sends its refusal back pickled; the
        # subclasses' own __init__ take other arguments, so rebuild without calling it.
        return (_rebuild, (type(self), self.message, self.items, self.total))


def _rebuild(kind: type[WebError], message: str, items: list[Any], total: int) -> WebError:
    error = kind.__new__(kind)
    WebError.__init__(error, message, items, total)
    return error


class NotAllowed(WebError, status=403):
    def __init__(self, message: str = "No tiene permiso para esto.") -> None:
        super().__init__(message)


class CsrfRefused(WebError, status=403):
    def __init__(self) -> None:
        super().__init__(
            "La solicitud no trae el código de seguridad (CSRF) del formulario; "
            "recargue la página e intente de nuevo."
        )


# The other refusals: each is its class and its HTTP status, nothing more.
class NotLoggedIn(WebError, status=401): ...


class NotFound(WebError, status=404): ...


class Conflict(WebError, status=409): ...


class TooLarge(WebError, status=413): ...


class WrongMediaType(WebError, status=415): ...


class BodyTooLarge(HTTPException):
    """A body that passed its limit while being read (413). An ``HTTPException`` because
    FastAPI lets only those out of its body reading unchanged (any other becomes 400)."""

    def __init__(self, message: str) -> None:
        super().__init__(413, message)


class NulInText(HTTPException):
    """A text holding NUL (U+0000), found while the body was read (422); an
    ``HTTPException`` for the same reason as ``BodyTooLarge``. ``where`` names the field."""

    def __init__(self, message: str, where: str) -> None:
        super().__init__(422, message)
        self.where = where


class Unprocessable(WebError, status=422): ...


class TooManyRequests(WebError, status=429): ...


class Unavailable(WebError, status=503): ...


class NoSpace(WebError, status=507): ...


NO_SPACE = (
    "El servidor se quedó sin espacio en disco para recibir la solicitud y no guardó nada; "
    "la falta es del servidor, no de lo enviado: intente más tarde o avise a la oficina del "
    "programa."
)
DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT})


def disk_full(exc: BaseException) -> bool:
    """Whether the server's disk (or quota) ran out somewhere in ``exc``'s causes.

    Why look at the causes: FastAPI turns any failure while reading a form (writing an
    upload to a full temporary disk included) into a 400 that blames the client.
    """
    seen: BaseException | None = exc
    for _ in range(16):  # a chain of causes is short; never loop on a cycle
        if seen is None:
            return False
        if isinstance(seen, OSError) and seen.errno in DISK_FULL:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


MAX_ITEMS = EXPLAINED_ROWS  # rows reported in one answer; the total says how many there were

ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    code: {"model": ApiError, "description": text}
    for code, text in [
        (400, "Solicitud mal formada"),
        (401, "Sin credenciales válidas"),
        (403, "Sin permiso, o sin el código CSRF"),
        (404, "No existe, o no es visible para quien pregunta"),
        (409, "La oferta no está en el estado que la operación exige"),
        (413, "Archivo o cuerpo demasiado grande"),
        (415, "Tipo de contenido no admitido"),
        (422, "Datos no válidos, con los errores fila por fila"),
        (429, "Demasiados intentos desde la misma dirección"),
        (503, "No se pudo terminar ahora y no se guardó nada: envíe de nuevo"),
        (507, "El servidor no tiene espacio en disco: no se guardó nada, envíe más tarde"),
    ]
}


def input_items(errors: Sequence[InputError], name: str, hidden: str) -> list[ErrorItem]:
    """The intake's errors, with the temporary path replaced by the uploaded file's name."""
    return [
        ErrorItem(
            archivo=name if e.file.startswith(hidden) else e.file,
            fila=e.row,
            columna=e.column,
            mensaje=e.message,
        )
        for e in errors[:MAX_ITEMS]
    ]


def refused(exc: Exception) -> WebError:
    """A service's refusal in Spanish: 404 when what was named does not exist, else 409 (it
    exists but is not in the state the operation needs)."""
    text = str(exc)
    return NotFound(text) if text.startswith("No existe") else Conflict(text)


def rejected_file(exc: InputRejected, name: str, hidden: str, what: str = "El lote") -> WebError:
    """A refused upload (422): every row's error under the uploaded file's name."""
    found = len(exc.errors)
    return Unprocessable(
        f"{what} tiene {count(found, 'error', 'errores')}; no se guardó nada.",
        input_items(exc.errors, name, hidden),
        found,
    )


def validation_items(errors: Sequence[Mapping[str, Any]]) -> list[ErrorItem]:
    """Pydantic's errors as the API's rows: the field (its path, without 'body' or 'query')
    and the Spanish message; every error at once."""
    items = []
    for error in errors:
        where = ".".join(str(p) for p in error.get("loc", ()) if p not in ("body", "query"))
        items.append(ErrorItem(columna=where or None, mensaje=validation_message(error)))
    return items[:MAX_ITEMS]


def _validation_items(exc: RequestValidationError) -> list[ErrorItem]:
    return validation_items(exc.errors())


def _json(status: int, body: ApiError, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(body.model_dump(), status_code=status, headers=headers)


PageError = Callable[[Request, int, str, list[ErrorItem]], Response]


def for_api(scope: Mapping[str, Any]) -> bool:
    """Whether a request is for the JSON API (``/api`` and below) rather than a page: told by
    the path as sent, from the scope (``request.url`` would build the whole address, the host
    header parsed and the text split again, on every request that asks)."""
    path: str = scope["path"]
    return path == "/api" or path.startswith("/api/")


def install(app: FastAPI, page_error: PageError, allowed: Callable[[Request], list[str]]) -> None:
    def is_api(request: Request) -> bool:
        return for_api(request.scope)

    async def web_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, WebError)
        if not is_api(request):
            if isinstance(exc, NotLoggedIn):
                return RedirectResponse(f"/entrar?siguiente={request.url.path}", status_code=303)
            return page_error(request, exc.status, exc.message, exc.items)
        headers = {"WWW-Authenticate": "Bearer"} if isinstance(exc, NotLoggedIn) else None
        return _json(
            exc.status,
            ApiError(detalle=exc.message, errores=exc.items, total_errores=exc.total),
            headers,
        )

    async def invalid(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        items = _validation_items(exc)
        message = INVALID_REQUEST
        if not is_api(request):
            return page_error(request, 422, message, items)
        return _json(422, ApiError(detalle=message, errores=items, total_errores=len(items)))

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 400 and disk_full(exc):
            return await web_error(request, NoSpace(NO_SPACE))
        texts = {
            404: "No existe esta dirección.",
            405: "Método no admitido en esta dirección.",
            400: "Solicitud mal formada.",
        }
        message = texts.get(exc.status_code, "La solicitud no se pudo atender.")
        items: list[ErrorItem] = []
        if isinstance(exc, BodyTooLarge):
            message = exc.detail
        if isinstance(exc, NulInText):
            message = INVALID_REQUEST
            items = [ErrorItem(columna=exc.where, mensaje=exc.detail)]
        headers = dict(exc.headers or {})
        if exc.status_code == 405:  # every method of the path, whichever router declares it
            headers["Allow"] = ", ".join(allowed(request))
        if not is_api(request):
            response = page_error(request, exc.status_code, message, items)
            response.headers.update(headers)
            return response
        body = ApiError(detalle=message, errores=items, total_errores=len(items))
        return _json(exc.status_code, body, headers)

    async def database_failed(request: Request, exc: Exception) -> Response:
        # A failure of the database itself (damaged, read-only, busy past the wait, gone) is
        # the service's state, told in Spanish; any other database error is a defect: a 500.
        message = database_fault(exc)
        request.state.database_error = True  # counted by the service's figures
        if message is None:
            raise exc
        return await web_error(request, Unavailable(message))

    async def os_failed(request: Request, exc: Exception) -> Response:
        if not disk_full(exc):
            raise exc
        return await web_error(request, NoSpace(NO_SPACE))

    app.add_exception_handler(WebError, web_error)
    app.add_exception_handler(OSError, os_failed)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(DBAPIError, database_failed)
