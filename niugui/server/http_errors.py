"""HTTP errors: the ``detail`` every refusal carries (:class:`~niugui.server.protocol.HttpError`,
worded by the page from its ``code``) and the app's exception handlers.

>>> fail(404, "no_table", "no table 'x'").detail
{'code': 'no_table', 'message': "no table 'x'"}
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Coroutine
from typing import Any

import sqlalchemy as sa
from fastapi import HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

from . import logs
from .guard import BodyTooLarge
from .metrics import Metrics
from .protocol import HttpError, HttpErrorCode
from .store import is_locked


def http_error(code: HttpErrorCode, message: str) -> dict[str, Any]:
    """An HTTP error's ``detail`` (:class:`~niugui.server.protocol.HttpError`)."""
    return HttpError(code=code, message=message).model_dump()


def fail(
    status: int, code: HttpErrorCode, message: str, headers: dict[str, str] | None = None
) -> HTTPException:
    """An HTTP error the page words from its ``code``."""
    return HTTPException(status, http_error(code, message), headers=headers)


def refuse(
    metrics: Metrics, status: int, code: HttpErrorCode, detail: str, retry_after: float
) -> HTTPException:
    """A request refused by a fair-use limit (counted), with the seconds to wait in ``Retry-After``.

    >>> refuse(Metrics(), 429, "too_many_logins", "wait", 0.2).headers
    {'Retry-After': '1'}
    """
    metrics.limited.labels("http").inc()
    return fail(status, code, detail, {"Retry-After": str(max(1, math.ceil(retry_after)))})


async def invalid(_request: Request, error: RequestValidationError) -> Response:
    """422 naming each bad field — without echoing the input (a password, or text that is not
    Unicode and could not even be sent back)."""
    limits = ("min_length", "max_length", "ge", "le")  # for the page's words; never the input
    detail = [
        {
            "type": e.get("type"),
            "loc": list(e.get("loc", ())),
            "msg": e.get("msg"),
            "ctx": {k: v for k, v in (e.get("ctx") or {}).items() if k in limits},
        }
        for e in error.errors()
    ]
    body = json.dumps({"detail": detail}, ensure_ascii=True, default=str)
    return Response(body, status_code=422, media_type="application/json")


async def too_deep(_request: Request, _error: RecursionError) -> JSONResponse:
    """422: a body nested deeper than the JSON parser goes."""
    detail = http_error("too_deep", "the body is nested too deeply")
    return JSONResponse({"detail": detail}, status_code=422)


async def database_unavailable(_request: Request, error: sa.exc.OperationalError) -> JSONResponse:
    """A database locked by another process, or out of reach: 503, try again (never a 500)."""
    logs.warning("an HTTP request found the database unavailable", locked=is_locked(error))
    return JSONResponse(
        {"detail": http_error("busy", "the server's database is busy; try again in a moment")},
        status_code=503,
        headers={"Retry-After": "2"},
    )


async def too_large(_request: Request, _error: BodyTooLarge) -> JSONResponse:
    """413: a body over the guard's cap."""
    return JSONResponse({"detail": http_error("too_large", "the body is too large")}, status_code=413)


Handler = Callable[[Request, Any], Coroutine[Any, Any, Response]]

HANDLERS: dict[int | type[Exception], Handler] = {
    RequestValidationError: invalid,
    RecursionError: too_deep,
    sa.exc.OperationalError: database_unavailable,
    BodyTooLarge: too_large,
}
"""The app's exception handlers, by the exception they answer."""
