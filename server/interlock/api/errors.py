"""Exception handlers: every error leaves the API as ``{"error": {"code","message","details"?}}``."""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Mount

from interlock.errors import DatabaseBusy, InterlockError, error_body, pydantic_field_errors
from interlock.json_words import json_problem
from interlock.storage.db_errors import is_busy_error

log = logging.getLogger(__name__)


class ErrorDetail(BaseModel):
    """One error: a stable ``code`` (e.g. ``not_found``, ``run_active``), an English
    ``message`` and optional ``details`` (field errors, the recorded decision, candidates)."""

    code: str
    message: str
    details: Any = None


class ErrorOut(BaseModel):
    """The one error shape of the API: ``{"error": {"code", "message", "details"?}}``."""

    error: ErrorDetail


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    "4XX": {"model": ErrorOut, "description": "An error with a stable code."}
}
"""The error responses every route documents (each router passes them to ``APIRouter``)."""


_HTTP_CODES = {
    400: "invalid_request",
    401: "unauthorized",
    403: "permission_denied",
    404: "not_found",
    405: "method_not_allowed",
    408: "request_timeout",
    409: "conflict",
    413: "payload_too_large",
    422: "invalid_request",
}


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers mapping errors to the one JSON error shape."""

    @app.exception_handler(InterlockError)
    async def _interlock(_request: Request, exc: InterlockError) -> JSONResponse:
        return JSONResponse(error_body(exc), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _validation(_request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = pydantic_field_errors(exc.errors())
        exc_out = InterlockError(
            "The request is not valid.",
            code="invalid_request",
            details={"errors": _jsonable(errors)},
        )
        return JSONResponse(error_body(exc_out), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        path = request.url.path
        if exc.status_code == 400 and exc.detail == _UNREADABLE_BODY:
            # FastAPI's answer to a JSON body its decoder could not even read (bytes that are
            # not UTF-8, arrays nested thousands deep, a number of thousands of digits): the
            # same answer as any JSON error, naming what its decoder raised (the cause).
            return JSONResponse(error_body(_unreadable_json(exc.__cause__)), status_code=422)
        if exc.status_code in (404, 405) and path.startswith("/api/"):
            # The web client's static mount answers every method on a path no API route
            # took: 405 for most, 404 for GET and HEAD. Under /api/ the routes decide: a
            # path none serves is 404, a method its routes do not accept (HEAD on a POST
            # route) is 405. A route's own 404 keeps its answer (it accepts the method).
            served = allowed_methods(request.app, path)
            if not served:
                return JSONResponse(
                    {"error": {"code": "not_found", "message": f"Nothing is at {path}."}},
                    status_code=404,
                )
            if request.method not in served:
                exc = StarletteHTTPException(405)
        code = _HTTP_CODES.get(exc.status_code, "http_error")
        headers = dict(getattr(exc, "headers", None) or {})
        message = str(exc.detail)
        if exc.status_code == 405:
            allowed = allowed_methods(request.app, path) or _split(headers.get("Allow", ""))
            if allowed:
                headers["Allow"] = ", ".join(allowed)
            message = f"{path} does not accept {request.method}" + (
                f"; it accepts {', '.join(allowed)}." if allowed else "."
            )
        elif exc.status_code == 404 and message == HTTPStatus.NOT_FOUND.phrase:
            message = f"Nothing is at {path}."
        body = {"error": {"code": code, "message": message}}
        return JSONResponse(body, status_code=exc.status_code, headers=headers or None)

    @app.exception_handler(OperationalError)
    async def _operational(_request: Request, exc: OperationalError) -> JSONResponse:
        if is_busy_error(exc):  # a session outside Database.session: same answer
            busy = DatabaseBusy("The database is busy; nothing was written. Try again.")
            return JSONResponse(error_body(busy), status_code=busy.status)
        log.exception("database error")
        internal = InterlockError("Internal error.")
        return JSONResponse(error_body(internal), status_code=500)


_UNREADABLE_BODY = "There was an error parsing the body"
"""FastAPI's 400 detail when decoding a JSON body raised something else than a syntax error."""


def _unreadable_json(cause: BaseException | None) -> InterlockError:
    """The answer to a body FastAPI's JSON decoder raised ``cause`` for (None: not known)."""
    why = json_problem(cause) if cause is not None else "it is not written the way JSON needs"
    return InterlockError(
        "The request is not valid.",
        code="invalid_request",
        details={
            "errors": [
                {
                    "path": ["body"],
                    "message": f"The body cannot be read as JSON: {why}.",
                    "rule": "json_invalid",
                }
            ]
        },
    )


_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def allowed_methods(app: Any, path: str) -> list[str]:
    """Every method some API route of ``app`` accepts at ``path`` (empty for none).

    Starlette's own 405 names only the first matching route's methods, but a path such as
    ``/api/conversations`` is served by several routes (GET and POST). Mounts (the web
    client's static files) are left out: they take any method and answer 405 themselves.
    """
    allowed: list[str] = []
    for method in _METHODS:
        scope = {"type": "http", "path": path, "method": method, "root_path": "", "app": app}
        for route in app.router.routes:
            if not isinstance(route, Mount) and route.matches(scope)[0] == Match.FULL:
                allowed.append(method)
                break
    if "GET" in allowed and "HEAD" not in allowed:  # api.head answers HEAD as GET
        allowed.insert(allowed.index("GET") + 1, "HEAD")
    return allowed


def _split(header: str) -> list[str]:
    return [part.strip() for part in header.split(",") if part.strip()]


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)
