"""Interlock's one error tree, with stable codes, and its mapping to HTTP and SSE.

Every error a client can see is an :class:`InterlockError`. Its ``code`` is stable (clients
and tests match on it), its ``status`` is the HTTP status, and :func:`error_body` is the one
JSON shape used by the API (``{"error": {"code", "message", "details"?}}``) and by
``run.failed`` events on the stream. HTTP answers on the MCP endpoint use
:func:`jsonrpc_error_body` instead, the same error inside JSON-RPC's shape: MCP clients read
no other body at a non-2xx status.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

_PYDANTIC_PREFIXES = ("Value error, ", "Assertion failed, ")


class InterlockError(Exception):
    """Base of all errors shown to clients.

    Attributes:
        code: Stable machine-readable code, e.g. ``not_found``.
        status: HTTP status the API answers with.
        message: Human-readable English sentence.
        details: Optional JSON-able extra data (field errors, the recorded decision, ...).
    """

    code = "internal"
    status = 500

    def __init__(self, message: str, *, code: str | None = None, details: Any = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details = details


class BadRequest(InterlockError):
    """The request is malformed or breaks a rule (422)."""

    code = "invalid_request"
    status = 422


class MalformedHeader(InterlockError):
    """A request header that is not in its format, e.g. a ``Last-Event-ID`` that is not an
    event's number (400)."""

    code = "invalid_header"
    status = 400


class Unauthorized(InterlockError):
    """No valid bearer token (401)."""

    code = "unauthorized"
    status = 401


class Forbidden(InterlockError):
    """Authenticated, but the role does not allow this (403)."""

    code = "permission_denied"
    status = 403


class NotFound(InterlockError):
    """Unknown resource, or one the caller does not own (404; never reveals existence)."""

    code = "not_found"
    status = 404


class Conflict(InterlockError):
    """The resource is not in a state that allows this (409)."""

    code = "conflict"
    status = 409


class PayloadTooLarge(InterlockError):
    """A body over a route's own size limit (413), e.g. a frontend tool's result."""

    code = "payload_too_large"
    status = 413


class DatabaseBusy(InterlockError):
    """A lock or a database connection was not had within ``INTERLOCK_DB_LOCK_TIMEOUT_S``;
    the transaction was rolled back, so nothing was written (503)."""

    code = "database_busy"
    status = 503


JSONRPC_INVALID_REQUEST = -32600
"""JSON-RPC 2.0's "Invalid Request" code, of every HTTP-level refusal on the MCP endpoint but
a body that is no JSON."""
JSONRPC_PARSE_ERROR = -32700
"""JSON-RPC 2.0's "Parse error" code: a body on the MCP endpoint that is no JSON."""


def jsonrpc_error_body(
    exc: InterlockError, rpc_code: int = JSONRPC_INVALID_REQUEST
) -> dict[str, Any]:
    """Return ``exc`` as a JSON-RPC 2.0 error response, for an HTTP error on ``/mcp``.

    Shape: ``{"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message":
    "[<code>] <message>", "data": {"code", "message", "details"?}}}``; ``data`` is
    :func:`error_body`'s inner object. MCP clients (the ``mcp`` SDK among them) show the
    ``message`` of such a body; of any other body at a non-2xx status they show only a generic
    "Server returned an error response" (MCP Streamable HTTP transport, 2025-06-18 and later).
    """
    inner = error_body(exc)["error"]
    return {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": rpc_code,
            "message": f"[{exc.code}] {exc.message}",
            "data": inner,
        },
    }


def error_body(exc: InterlockError) -> dict[str, Any]:
    """Return the JSON error shape for ``exc``: ``{"error": {"code", "message", "details"?}}``."""
    body: dict[str, Any] = {"code": exc.code, "message": exc.message}
    if exc.details is not None:
        body["details"] = exc.details
    return {"error": body}


def plain_message(message: str) -> str:
    """``message`` of a pydantic error without the ``Value error, `` pydantic puts before the
    words of a validator, so a person reads only those words."""
    for prefix in _PYDANTIC_PREFIXES:
        if message.startswith(prefix):
            return message[len(prefix) :]
    return message


def _count(n: Any) -> str:
    return f"{n:,}" if isinstance(n, int) else str(n)


def _items(n: Any) -> str:
    return "1 item" if n == 1 else f"{_count(n)} items"


def _length_words(ctx: Mapping[str, Any], bound: str) -> str:
    if bound == "min":
        n = ctx.get("min_length")
        return "Must not be empty." if n == 1 else f"Must have at least {_count(n)} characters."
    return f"Must have at most {_count(ctx.get('max_length'))} characters."


def _list_words(ctx: Mapping[str, Any], bound: str) -> str:
    if bound == "min":
        return f"Must have at least {_items(ctx.get('min_length'))}."
    has = ctx.get("actual_length")
    tail = f"; this has {_count(has)}" if isinstance(has, int) else ""
    return f"Must have at most {_items(ctx.get('max_length'))}{tail}."


_PLAIN: dict[str, Any] = {
    "missing": "Is required.",
    "string_type": "Must be text.",
    "int_type": "Must be a whole number.",
    "int_parsing": "Must be a whole number.",
    "int_from_float": "Must be a whole number.",
    "float_type": "Must be a number.",
    "float_parsing": "Must be a number.",
    "bool_type": "Must be true or false.",
    "bool_parsing": "Must be true or false.",
    "list_type": "Must be a list.",
    "dict_type": "Must be a group of fields.",
    "model_type": "Must be a group of fields.",
    "model_attributes_type": "Must be a group of fields.",
    "extra_forbidden": "Is not a field here; remove it.",
    "string_too_short": lambda ctx: _length_words(ctx, "min"),
    "string_too_long": lambda ctx: _length_words(ctx, "max"),
    "too_short": lambda ctx: _list_words(ctx, "min"),
    "too_long": lambda ctx: _list_words(ctx, "max"),
    "greater_than_equal": lambda ctx: f"Must be {_count(ctx.get('ge'))} or more.",
    "less_than_equal": lambda ctx: f"Must be {_count(ctx.get('le'))} or less.",
    "union_tag_invalid": lambda ctx: (
        f"Its {ctx.get('discriminator', 'kind')} is {ctx.get('tag')!r}, which is not one of: "
        f"{ctx.get('expected_tags')}."
    ),
    "greater_than": lambda ctx: f"Must be more than {_count(ctx.get('gt'))}.",
    "less_than": lambda ctx: f"Must be less than {_count(ctx.get('lt'))}.",
    **dict.fromkeys(
        (
            "datetime_type",
            "datetime_parsing",
            "datetime_from_date_parsing",
            "date_type",
            "date_parsing",
            "date_from_datetime_parsing",
        ),
        "Must be a date and time such as 2026-12-02T09:30:00Z, or a date such as 2026-12-02.",
    ),
}
"""Pydantic's error types in a person's words, for those whose default message reads as the
library's ("Input should be a valid integer, unable to parse string as an integer", "List
should have at most 10 items after validation, not 50")."""


def field_error_words(error: Mapping[str, Any]) -> str:
    """The message of one pydantic error as a person reads it.

    Args:
        error: A ``ValidationError.errors()`` entry (``type``, ``msg``, optional ``ctx``).

    Returns:
        A sentence: the plain words of a known type (``"Must have at most 200
        characters."``), else pydantic's message through :func:`plain_message` with "Input should
        be" read as "Must be".
    """
    plain = _PLAIN.get(str(error.get("type", "")))
    if isinstance(plain, str):
        return plain
    if plain is not None:
        try:
            return str(plain(error.get("ctx") or {}))
        except (TypeError, ValueError):
            pass
    message = plain_message(str(error.get("msg", "")))
    if message.startswith("Input should be "):
        message = "Must be " + message[len("Input should be ") :]
    return _sentence(message)


def _sentence(message: str) -> str:
    """``message`` as a sentence: a capital first letter and a closing full stop (pydantic's
    ``"Must be 'a' or 'b'"``, a validator's ``"give days or expires_at, not both"``). A first
    word holding ``_`` or ``.`` is a name as written (``approval_timeout_s must be``) and keeps
    its case."""
    message = message.strip()
    if not message:
        return message
    first = message.split(maxsplit=1)[0]
    if "_" not in first and "." not in first.rstrip(".!?…,:;"):
        message = message[:1].upper() + message[1:]
    return message if message[-1] in ".!?…" else message + "."


def _json_error(error: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON syntax error of the body (FastAPI's ``json_invalid``, located at ``("body",
    offset)``) in words, at the path ``["body"]`` as every other unreadable body."""
    loc = list(error.get("loc", ()))
    offset = loc[1] if len(loc) == 2 and isinstance(loc[1], int) else None
    reason = str((error.get("ctx") or {}).get("error", "")).strip()
    words = "The body is not valid JSON"
    if reason:  # "Expecting value" reads "expecting value"; "EOF while parsing" stays
        words += ": " + (reason[0].lower() if reason[1:2].islower() else reason[0]) + reason[1:]
    if offset is not None:
        words += f" (at character {offset + 1:,})"
    return {"path": loc[:1] or ["body"], "message": words + ".", "rule": "json_invalid"}


def pydantic_field_errors(errors: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Pydantic's errors as the API's field errors (``details.errors``).

    Args:
        errors: ``ValidationError.errors()`` entries (``loc``, ``msg``, ``type``, ``ctx``).

    Returns:
        ``[{"path": [...], "message": "...", "rule": "..."}]``, messages through
        :func:`field_error_words`; ``rule`` keeps pydantic's error type.
    """
    return [
        _json_error(e)
        if e.get("type") == "json_invalid"
        else {
            "path": list(e.get("loc", ())),
            "message": field_error_words(e),
            "rule": e.get("type", ""),
        }
        for e in errors
    ]
